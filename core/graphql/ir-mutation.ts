/**
 * The database-neutral mutation IR: what a mutation root field (`insert_<t>`, `update_<t>`,
 * `delete_<t>` and their `_one`/`_by_pk`/`_many` forms) becomes once validated against the role's
 * schema. As in the read IR (./ir.ts), the role's permissions are already folded in: insert and
 * update presets sit among the column values, permission filters beside the user's `where`, and
 * insert/update `check`s are conditions the database plugin must verify on every written row.
 *
 * Values are TypedValueIR (constants, GraphQL variables, session variables), never SQL text.
 * All names are database names (columns, constraints); GraphQL names only appear as aliases of
 * the output.
 */
import type { BoolExpIR, FieldIR, SelectIR, TableRef, TypedValueIR } from './ir.js';

/** One column's value in an inserted row or an update `SET`. */
export interface ColumnValueIR {
  column: string;
  value: TypedValueIR;
}

/** `ON CONFLICT ON CONSTRAINT <constraint>`: DO NOTHING when `updateColumns` is empty. */
export interface OnConflictIR {
  /** Null only with DO NOTHING: any unique violation (the legacy `/v1/query` insert allows it). */
  constraint: string | null;
  /** Columns taking the proposed row's value (`EXCLUDED.<column>`). */
  updateColumns: string[];
  /** The role's update presets, applied on the update path. */
  presets: ColumnValueIR[];
  /** The role's update filter AND the user's `where`, over the existing row; null: any row. */
  where: BoolExpIR | null;
}

/** Rows of one table inserted through a relationship of a parent row. */
export interface RelationshipInsertIR {
  /** Relationship name (error messages and paths). */
  name: string;
  /** (column of the parent table, column of the target table) pairs. */
  mapping: Array<[string, string]>;
  /**
   * `before_parent`: an object relationship whose foreign key is on the parent, so the target row
   * is inserted first and the parent's mapped columns take its values. `after_parent`: the target
   * rows are inserted after the parent and their mapped columns take the parent's values.
   */
  insertionOrder: 'before_parent' | 'after_parent';
  insert: InsertIR;
}

export interface InsertRowIR {
  /** Values the client gave, plus the role's insert presets (absent columns get their DEFAULT). */
  columns: ColumnValueIR[];
  /** Relationship inserts: object relationships (one row each) and array relationships. */
  relationships: RelationshipInsertIR[];
}

export interface InsertIR {
  table: TableRef;
  rows: InsertRowIR[];
  /** The role's insert `check`, over each inserted row; null: nothing to check. */
  check: BoolExpIR | null;
  /**
   * With `onConflict`, the role's update `check` over rows the upsert updated instead of
   * inserting; null: rows updated that way are held to `check` (the reference engine does the same).
   */
  updateCheck: BoolExpIR | null;
  onConflict: OnConflictIR | null;
}

export type UpdateOperator =
  | '_set' | '_inc' | '_append' | '_prepend' | '_delete_key' | '_delete_elem' | '_delete_at_path'
  // The legacy `/v1/query` update's `$mul` and `$default` (the column's DEFAULT; its value is ignored).
  | '_mul' | '_default';

/** `<column> = <operator applied to the column and value>`. */
export interface UpdateOpIR {
  column: string;
  /** Database type of the column. */
  type: string;
  op: UpdateOperator;
  value: TypedValueIR;
}

export interface UpdateIR {
  table: TableRef;
  /** Client operations plus the role's presets (as `_set`); empty means nothing to run. */
  ops: UpdateOpIR[];
  /** The user's `where` (or the primary key of `_by_pk`). */
  where: BoolExpIR | null;
  /** The role's update filter; null for admin or an empty filter. */
  permissionFilter: BoolExpIR | null;
  /** The role's update `check` over the updated rows; null: nothing to check. */
  check: BoolExpIR | null;
}

export interface DeleteIR {
  table: TableRef;
  where: BoolExpIR | null;
  permissionFilter: BoolExpIR | null;
}

/** A field of `<t>_mutation_response`. */
export type MutationResponseFieldIR =
  | { kind: 'affectedRows'; alias: string }
  | { kind: 'returning'; alias: string; fields: FieldIR[] }
  | { kind: 'typename'; alias: string; typeName: string };

/**
 * What a mutation answers: the `<t>_mutation_response` object, or (`_one`, `_by_pk`) the single
 * affected row as an object, null when there is none the role may see.
 */
export type MutationOutputIR =
  | { kind: 'response'; fields: MutationResponseFieldIR[] }
  | { kind: 'single'; fields: FieldIR[] };

/** How affected rows are shown: through the role's select permission filter (null: all rows). */
export interface MutationReturnIR {
  output: MutationOutputIR;
  selectFilter: BoolExpIR | null;
}

/** The select over a mutation's returned rows that an answer reads: the role's select filter, no paging. */
export function returningSelect(from: TableRef, ret: MutationReturnIR, fields: FieldIR[]): SelectIR {
  return {
    from,
    where: null,
    permissionFilter: ret.selectFilter,
    orderBy: [],
    distinctOn: [],
    limit: null,
    offset: null,
    permissionLimit: null,
    fields,
  };
}

/** What the table mutations have in common: how their answer is shown. */
interface WithReturning {
  returning: MutationReturnIR;
}

/**
 * One mutation root field against a database source: a table mutation, or a VOLATILE function
 * exposed as a mutation, which is a select over the function's rows run in the mutation
 * transaction (`single`: at most one row, for a function not returning SETOF).
 */
export type MutationIR = (
  | ({ kind: 'insert'; insert: InsertIR } & WithReturning)
  | ({ kind: 'update'; update: UpdateIR } & WithReturning)
  /** `update_<t>_many`: the updates run in order; the answer is a list of responses. */
  | ({ kind: 'updateMany'; updates: UpdateIR[] } & WithReturning)
  | ({ kind: 'delete'; delete: DeleteIR } & WithReturning)
  | { kind: 'function'; select: SelectIR; single: boolean }
) & {
  source: string;
  /** JSON path reported with database errors, e.g. `$.selectionSet.insert_author.args.objects`. */
  errorPath: string;
};
