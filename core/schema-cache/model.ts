/**
 * The resolved model: metadata checked against each source's catalog. Everything downstream (the
 * GraphQL schema generator, the IR builder, permissions) reads this, never raw metadata, so a
 * name is resolved and validated exactly once per schema-cache build.
 */
import type { CatalogColumn, CatalogTable, DatabaseCatalog } from '../db/catalog.js';
import type {
  DeletePermission,
  InsertPermission,
  QualifiedTable,
  SelectPermission,
  SourceCustomization,
  SourceMetadata,
  TableMetadata,
  UpdatePermission,
} from '../metadata/types.js';
import type { SourceConnection } from '../db/contract.js';

export interface ResolvedColumn {
  /** Database column name. */
  name: string;
  /** GraphQL field name (custom name from column_config, else the column name). */
  graphqlName: string;
  /** Database type name (`int4`, `text`, `_text`, ...). */
  type: string;
  catalog: CatalogColumn;
  nullable: boolean;
  description: string | null;
  /** Set when this column references an enum table (`is_enum`): the enum table's key. */
  enumTable?: string;
}

export interface ResolvedRelationship {
  name: string;
  kind: 'object' | 'array';
  /** Key (`schema.name`) of the target table in the same source. */
  target: string;
  /** Pairs of (column in this table, column in the target table). */
  mapping: Array<[string, string]>;
  comment: string | null;
  /** For object relationships through a foreign key on this table: insert the target first. */
  insertionOrder: 'before_parent' | 'after_parent';
  /** True when the relationship is guaranteed to find a row (non-null FK columns). */
  required: boolean;
}

export interface TableRootFieldNames {
  select: string;
  select_by_pk: string;
  select_aggregate: string;
  select_stream: string;
  insert: string;
  insert_one: string;
  update: string;
  update_by_pk: string;
  update_many: string;
  delete: string;
  delete_by_pk: string;
}

export interface TablePermissions {
  select: Map<string, SelectPermission>;
  insert: Map<string, InsertPermission>;
  update: Map<string, UpdatePermission>;
  delete: Map<string, DeletePermission>;
}

export interface ResolvedTable {
  source: string;
  table: QualifiedTable;
  /** `schema.name`, the key used across the model. */
  key: string;
  catalog: CatalogTable;
  metadata: TableMetadata;
  /** Base for generated names: configuration.custom_name/identifier, else the table name (non-public schemas prefixed `schema_`). */
  identifier: string;
  /** GraphQL object type name with the source's type-name prefix/suffix applied. */
  typeName: string;
  columns: ResolvedColumn[];
  columnsByName: Map<string, ResolvedColumn>;
  columnsByGraphqlName: Map<string, ResolvedColumn>;
  relationships: Map<string, ResolvedRelationship>;
  /** Root field names after custom_root_fields and the source's root-field prefix/suffix. */
  rootFields: TableRootFieldNames;
  primaryKey: string[] | null;
  description: string | null;
  isEnum: boolean;
  /** For enum tables: the values (first column) and their comments (second column, if any). */
  enumValues?: Array<{ value: string; description: string | null }>;
  permissions: TablePermissions;
}

export interface ResolvedSource {
  name: string;
  /** Database kind, e.g. `postgres`. */
  kind: string;
  metadata: SourceMetadata;
  customization: SourceCustomization;
  catalog: DatabaseCatalog;
  connection: SourceConnection;
  tables: Map<string, ResolvedTable>;
}
