/**
 * The metadata document: the JSON form of the exported metadata (version 3), the one source of
 * truth stored in the metadata database. Keys follow the reference engine's export format so
 * that users can move their exported metadata across unchanged.
 */

export interface QualifiedTable {
  schema: string;
  name: string;
}

export interface QualifiedFunction {
  schema: string;
  name: string;
}

/** `{from_env: NAME}`: a value read from the server's environment when it is used. */
export interface FromEnv {
  from_env: string;
}

export type ValueOrEnv = string | FromEnv;

export interface PoolSettings {
  max_connections?: number;
  total_max_connections?: number;
  idle_timeout?: number;
  retries?: number;
  pool_timeout?: number;
  connection_lifetime?: number;
}

export interface SourceCustomization {
  root_fields?: { namespace?: string; prefix?: string; suffix?: string };
  type_names?: { prefix?: string; suffix?: string };
  naming_convention?: string;
}

export interface CustomRootFields {
  select?: string | null;
  select_by_pk?: string | null;
  select_aggregate?: string | null;
  select_stream?: string | null;
  insert?: string | null;
  insert_one?: string | null;
  update?: string | null;
  update_by_pk?: string | null;
  update_many?: string | null;
  delete?: string | null;
  delete_by_pk?: string | null;
}

export interface ColumnConfig {
  custom_name?: string;
  comment?: string;
}

export interface TableConfiguration {
  custom_name?: string;
  identifier?: string;
  custom_root_fields?: CustomRootFields;
  column_config?: Record<string, ColumnConfig>;
  /** Deprecated form of column_config custom names, still exported by older engines. */
  custom_column_names?: Record<string, string>;
  comment?: string;
}

export interface ManualRelationshipConfiguration {
  remote_table: QualifiedTable | string;
  column_mapping: Record<string, string>;
  insertion_order?: 'before_parent' | 'after_parent' | null;
}

export type ForeignKeyConstraintOn =
  | string
  | string[]
  | { table: QualifiedTable | string; columns: string[] }
  | { table: QualifiedTable | string; column: string };

export interface RelationshipUsing {
  foreign_key_constraint_on?: ForeignKeyConstraintOn;
  manual_configuration?: ManualRelationshipConfiguration;
}

export interface RelationshipMetadata {
  name: string;
  using: RelationshipUsing;
  comment?: string | null;
}

/** A boolean expression as written in permissions and `where` (JSON form). */
export type BoolExpJson = Record<string, unknown>;

export interface SelectPermission {
  columns: string[] | '*';
  filter: BoolExpJson;
  limit?: number;
  allow_aggregations?: boolean;
  computed_fields?: string[];
  query_root_fields?: string[];
  subscription_root_fields?: string[];
}

export interface InsertPermission {
  check: BoolExpJson;
  set?: Record<string, unknown>;
  columns: string[] | '*';
  backend_only?: boolean;
}

export interface UpdatePermission {
  columns: string[] | '*';
  filter: BoolExpJson;
  check?: BoolExpJson | null;
  set?: Record<string, unknown>;
  backend_only?: boolean;
}

export interface DeletePermission {
  filter: BoolExpJson;
  backend_only?: boolean;
}

export interface PermissionEntry<P> {
  role: string;
  permission: P;
  comment?: string | null;
}

export interface ComputedFieldMetadata {
  name: string;
  definition: {
    function: QualifiedFunction | string;
    table_argument?: string | null;
    session_argument?: string | null;
    /** The warehouse kind's form: function argument → table column, and the table its rows are. */
    argument_mapping?: Record<string, string>;
    return_table?: QualifiedTable | { dataset: string; name: string };
  };
  comment?: string | null;
}

export interface TableMetadata {
  table: QualifiedTable;
  configuration?: TableConfiguration;
  is_enum?: boolean;
  apollo_federation_config?: { enable: string } | null;
  object_relationships?: RelationshipMetadata[];
  array_relationships?: RelationshipMetadata[];
  computed_fields?: ComputedFieldMetadata[];
  remote_relationships?: Record<string, unknown>[];
  insert_permissions?: PermissionEntry<InsertPermission>[];
  select_permissions?: PermissionEntry<SelectPermission>[];
  update_permissions?: PermissionEntry<UpdatePermission>[];
  delete_permissions?: PermissionEntry<DeletePermission>[];
  event_triggers?: Record<string, unknown>[];
}

export interface FunctionConfiguration {
  /** The input argument that receives the session variables (a `json` argument). */
  session_argument?: string;
  /** Default: `mutation` for VOLATILE functions, `query` for the others. */
  exposed_as?: 'query' | 'mutation';
  custom_root_fields?: { function?: string; function_aggregate?: string };
  /** Replaces the function's name as the base of its generated names. */
  custom_name?: string;
}

export interface FunctionMetadata {
  function: QualifiedFunction;
  configuration?: FunctionConfiguration;
  permissions?: { role: string }[];
  comment?: string;
}

export interface SourceMetadata {
  name: string;
  kind: string;
  tables: TableMetadata[];
  functions?: FunctionMetadata[];
  configuration: Record<string, unknown>;
  customization?: SourceCustomization;
  [key: string]: unknown;
}

export interface MetadataDocument {
  version: 3;
  sources: SourceMetadata[];
  remote_schemas?: Record<string, unknown>[];
  query_collections?: Record<string, unknown>[];
  allowlist?: Record<string, unknown>[];
  custom_types?: Record<string, unknown>;
  actions?: Record<string, unknown>[];
  cron_triggers?: Record<string, unknown>[];
  inherited_roles?: Record<string, unknown>[];
  rest_endpoints?: Record<string, unknown>[];
  api_limits?: Record<string, unknown>;
  metrics_config?: Record<string, unknown>;
  graphql_schema_introspection?: Record<string, unknown>;
  network?: Record<string, unknown>;
  backend_configs?: Record<string, unknown>;
  opentelemetry?: Record<string, unknown>;
}

/** Top-level keys in export order; empty ones are omitted on export. */
export const METADATA_KEY_ORDER = [
  'version',
  'sources',
  'remote_schemas',
  'query_collections',
  'allowlist',
  'custom_types',
  'actions',
  'cron_triggers',
  'inherited_roles',
  'rest_endpoints',
  'api_limits',
  'metrics_config',
  'graphql_schema_introspection',
  'network',
  'backend_configs',
  'opentelemetry',
] as const;

export const emptyMetadata = (): MetadataDocument => ({ version: 3, sources: [] });

/** A metadata object that could not be built; the rest of the metadata keeps serving. */
export interface InconsistentObject {
  type: string;
  name: string;
  /** What the metadata holds for the object; undefined (left out) for purely informational reports. */
  definition: unknown;
  reason: string;
  /** The entity an inherited role could not derive a permission for (reference shape). */
  entity?: unknown;
}

export const qualifiedTableName = (t: QualifiedTable): string =>
  t.schema === 'public' ? t.name : `${t.schema}.${t.name}`;
