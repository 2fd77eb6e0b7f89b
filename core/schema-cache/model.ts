/**
 * The resolved model: metadata checked against each source's catalog. Everything downstream (the
 * GraphQL schema generator, the IR builder, permissions) reads this, never raw metadata, so a
 * name is resolved and validated exactly once per schema-cache build.
 */
import type { CatalogColumn, CatalogFunction, CatalogTable, DatabaseCatalog } from '../db/catalog.js';
import type {
  BoolExpJson,
  ComputedFieldMetadata,
  DeletePermission,
  FunctionMetadata,
  QualifiedFunction,
  InsertPermission,
  QualifiedTable,
  SelectPermission,
  SourceCustomization,
  SourceMetadata,
  TableMetadata,
  UpdatePermission,
} from '../metadata/types.js';
import type { KindCapabilities, SourceConnection } from '../db/contract.js';
import type { TypeOperators } from '../db/operators.js';
import type { ScalarTypes } from '../db/scalar-types.js';
import type { ResolvedEventTrigger } from './resolve/event-triggers.js';

export type { ResolvedEventTrigger } from './resolve/event-triggers.js';

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
  /** Comparison operators the source's kind adds for the column's type (PostGIS, ltree). */
  operators?: TypeOperators;
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
  /**
   * Inherited roles (metadata/inherited-roles): per role, the columns that only some parent roles
   * may see, each with the filter a row must pass for the role to see that cell; elsewhere the
   * cell reads null, as the reference engine's CASE WHEN does.
   */
  cellFilters?: Map<string, ReadonlyMap<string, BoolExpJson>>;
}

export interface ResolvedTable {
  source: string;
  /** The source kind's column-type facts (GraphQL scalars, comparable, numeric, ...). */
  scalars: ScalarTypes;
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
  /** Computed fields that resolved, by name; absent when the table has none. */
  computedFields?: Map<string, ResolvedComputedField>;
  /** Event triggers that resolved, by name; absent when the table has none. */
  eventTriggers?: Map<string, ResolvedEventTrigger>;
}

/**
 * One input argument of a SQL function, in SQL order. `role` says who supplies it: the client
 * (through `args`), the session variables, or (computed fields) the row of the table.
 */
export interface ResolvedFunctionArg {
  /** SQL name; null for an unnamed argument, which can only be passed by position. */
  name: string | null;
  /** Name of its field in the `args` input object: the SQL name, else `arg_<n>`. */
  field: string;
  /** Database type name and schema, as the catalog reports them. */
  type: string;
  typeSchema?: string;
  typeKind?: CatalogColumn['typeKind'];
  hasDefault: boolean;
  role: 'input' | 'session' | 'row' | 'column';
  /** With role `column`: the table column the argument takes (`argument_mapping`). */
  column?: string;
}

export interface ResolvedFunction {
  source: string;
  function: QualifiedFunction;
  /** `schema.name`. */
  key: string;
  catalog: CatalogFunction;
  metadata: FunctionMetadata;
  volatility: CatalogFunction['volatility'];
  exposedAs: 'query' | 'mutation';
  /** Key of the tracked table whose rows the function returns. */
  returnTable: string;
  /** SETOF: a list of rows; otherwise at most one row. */
  returnsSet: boolean;
  args: ResolvedFunctionArg[];
  /** Root field names after custom names, the naming convention and the source's prefix/suffix. */
  rootFields: { function: string; function_aggregate: string };
  /** The `args` input type's name (type-name prefix/suffix applied) and the name descriptions quote. */
  argsTypeName: string;
  graphqlName: string;
  /** `comment`, else the database function's own comment; null: the generated description. */
  description: string | null;
  /** Roles with an explicit function permission. */
  permissions: ReadonlySet<string>;
}

export interface ResolvedComputedField {
  name: string;
  /** Key of the table the field is on. */
  table: string;
  function: QualifiedFunction;
  catalog: CatalogFunction;
  metadata: ComputedFieldMetadata;
  /** A base-type value, or the rows of a tracked table (always a list, as in the reference). */
  returns: { kind: 'scalar'; type: string; typeKind?: CatalogColumn['typeKind'] } | { kind: 'table'; table: string };
  /** Every input argument in SQL order, the row and session ones marked. */
  args: ResolvedFunctionArg[];
  /** The `args` input type's name (`<field>_<table>_args`, type-name prefix/suffix applied). */
  argsTypeName: string;
  /** Explicit comment, else the function's comment, else the generated one; null: none. */
  description: string | null;
}

export interface ResolvedSource {
  name: string;
  /** Database kind, e.g. `postgres`. */
  kind: string;
  metadata: SourceMetadata;
  customization: SourceCustomization;
  catalog: DatabaseCatalog;
  connection: SourceConnection;
  /** The kind's column-type facts (`DatabaseKind.scalarTypes`). */
  scalars: ScalarTypes;
  tables: Map<string, ResolvedTable>;
  /** Tracked functions that resolved, by `schema.name`; absent when the source has none. */
  functions?: Map<string, ResolvedFunction>;
  /**
   * What the source's kind declared: the schema generator leaves out fields of capabilities it
   * lacks (`distinctOn`, `subscriptions`). Absent (sources built outside the schema cache
   * builder): every field.
   */
  capabilities?: Readonly<KindCapabilities>;
}
