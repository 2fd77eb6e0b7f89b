/**
 * One table as one role sees it: the permitted columns under their GraphQL names, the
 * relationships to tables the role may also select, the role's select permission, and the type
 * names of the source's naming. The schema generator builds these once per role schema and both
 * the GraphQL types and the IR builders read them, so a field name is mapped back to a database
 * column without consulting the GraphQL schema at plan time.
 */
import type { GraphQLInterfaceType } from 'graphql';
import type { BoolExpIR, TableRef } from '../ir.js';
import type { ExtraTableField } from '../schema-draft.js';
import type { BoolExpJson } from '../../metadata/types.js';
import type {
  ResolvedColumn,
  ResolvedComputedField,
  ResolvedFunction,
  ResolvedFunctionArg,
  ResolvedRelationship,
  ResolvedTable,
} from '../../schema-cache/model.js';
import type { ScalarInfo } from '../scalars.js';
import type { Naming, TableTypeNames } from '../schema/naming.js';

export interface ColumnView {
  column: ResolvedColumn;
  /** GraphQL field name. */
  field: string;
  info: ScalarInfo;
  /** GraphQL type of one value, for messages and types: `Int`, `uuid`, `status_enum`. */
  graphqlType: string;
  /** For columns referencing an enum table: GraphQL enum value name → database value. */
  enumValues?: ReadonlyMap<string, string>;
  /** Descriptions of those enum values (the enum table's comment column), by GraphQL name. */
  enumDescriptions?: ReadonlyMap<string, string>;
  /**
   * Inherited roles: the row filter under which the role sees this column's value (null
   * elsewhere); absent when every row the role sees shows it.
   */
  visibleWhen?: () => BoolExpIR;
  /** Inherited roles' columns are nullable whatever the database says (cells may be nulled). */
  forceNullable?: boolean;
}

export interface RelationshipView {
  rel: ResolvedRelationship;
  /** GraphQL field name of the relationship. */
  field: string;
  /** GraphQL field name of `<rel>_aggregate` (array relationships whose target allows aggregations). */
  aggregateField: string | null;
  target: TableView;
  /**
   * optimise_permission_filters: the target's row filter is `{<back>: <this table's filter>}`
   * through a relationship joining back on the same columns, so every row reached from a row the
   * role sees passes it; the join then leaves it out (the reference's permission deduplication).
   */
  targetFilterImplied?: boolean;
}

/** One argument of a function as the client supplies it in `args`. */
export interface FunctionArgView {
  arg: ResolvedFunctionArg;
  /** Database type values are cast to (schema-qualified unless built in). */
  dbType: string;
  info: ScalarInfo;
  /** GraphQL scalar of one value. */
  graphqlType: string;
}

/** A computed field the role may select: a scalar one, or one returning rows of `target`. */
export interface ComputedFieldView {
  cf: ResolvedComputedField;
  /** GraphQL field name (the computed field's name). */
  field: string;
  /** The client's arguments, in SQL order (the row and session ones are not among them). */
  args: FunctionArgView[];
  scalar: { info: ScalarInfo; graphqlType: string } | null;
  target: TableView | null;
  /** Inherited roles: as for columns, the rows on which the role sees a scalar field's value. */
  visibleWhen?: () => BoolExpIR;
}

/** A tracked function as one role sees it: visible, over the role's view of its table. */
export interface FunctionView {
  fn: ResolvedFunction;
  target: TableView;
  args: FunctionArgView[];
}

export interface TableAccess {
  /** The select permission's row filter; null for admin. */
  filter: BoolExpJson | null;
  limit: number | null;
  allowAggregations: boolean;
  /** `query_root_fields` / `subscription_root_fields` of the permission; null: all of them. */
  queryRootFields: readonly string[] | null;
  subscriptionRootFields: readonly string[] | null;
}

export interface TableView {
  source: string;
  table: ResolvedTable;
  ref: TableRef;
  naming: Naming;
  names: TableTypeNames;
  columns: ColumnView[];
  columnsByField: ReadonlyMap<string, ColumnView>;
  relationships: RelationshipView[];
  /** By relationship field name, and by `<rel>_aggregate` field name. */
  relationshipsByField: ReadonlyMap<string, RelationshipView>;
  aggregatesByField: ReadonlyMap<string, RelationshipView>;
  /** Computed fields the role may select, and by field name. */
  computedFields: ComputedFieldView[];
  computedFieldsByField: ReadonlyMap<string, ComputedFieldView>;
  access: TableAccess;
  /** Every table of the source, by key, for permission filters (`_exists`, relationships). */
  sourceTables: ReadonlyMap<string, ResolvedTable>;
  /** Whether the source's kind can select DISTINCT ON: without it, selects have no `distinct_on`. */
  distinctOn?: boolean;
  /** The role's row filter as IR, built on first use. Null for admin or an empty filter. */
  permissionFilter(): BoolExpIR | null;
  /** Fields other plugins add to the row (remote relationships), by field name; set once per draft. */
  extraFields?: ReadonlyMap<string, ExtraTableField>;
  /**
   * The view `where` arguments and `_by_pk` keys are read against when it is not this one: Relay's
   * views keep the ordinary view here (every column and relationship), their own fields differing.
   */
  inputs?: TableView;
  /** Interfaces the row type implements (Relay's `Node`); a thunk, as the types are built lazily. */
  interfaces?: () => GraphQLInterfaceType[];
}

export const tableRef = (t: ResolvedTable): TableRef => ({ schema: t.table.schema, name: t.table.name });
