/**
 * A compiled mutation root field: a small program of statements run in the request's
 * transaction. Values resolved per request are the plan's `params`; values only known while the
 * program runs (rows a statement returned, row counts) live in numbered slots, passed to later
 * statements as parameters, never spliced into SQL.
 *
 * Every write statement returns `[count, rows, check]`: the rows it wrote, those rows as a JSON
 * array (`json_agg` of the result CTE, kept as text and never parsed here), and whether they all
 * passed the role's check. `direct` statements instead return `[output, check]`.
 */
import type { CompiledMutation } from '../../../../../core/sdk/index.js';
import type { SqlParam } from '../context.js';

/** Where one placeholder's value comes from: the plan's params, or a slot filled at run time. */
export type ArgSource = { kind: 'param'; index: number } | { kind: 'slot'; slot: number };

export interface PgStatement {
  text: string;
  /** Its prepared-statement name (from the text), used when the source prepares statements. */
  name: string;
  /** Sources of `$2, $3, ...` (`$1` is always the session JSON). */
  args: ArgSource[];
}

/** Rows of one table inserted through one insert (the root field's, or a relationship's). */
export type PgInsertNode =
  | { kind: 'flat'; statement: PgStatement; table: string; path: string }
  | { kind: 'perRow'; rows: PgInsertRow[]; table: string; path: string };

/** One row inserted with its relationships: objects it refers to first, then rows referring to it. */
export interface PgInsertRow {
  before: Array<{ name: string; node: PgInsertNode; slot: number }>;
  statement: PgStatement;
  /** Slot receiving this row (as a one-element JSON array) for the inserts that follow. */
  slot: number;
  after: PgInsertNode[];
}

/** How a write runs: one statement, or a tree of inserts. */
export type PgWrite = { kind: 'statement'; statement: PgStatement; path: string } | { kind: 'insert'; node: PgInsertNode };

export type PgProgram =
  /** Nothing to run (no rows to insert, nothing to update): the answer is known. */
  | { kind: 'constant'; json: string }
  /** One statement answers, whatever it does (a VOLATILE function's select): `[output]`. */
  | { kind: 'read'; statement: PgStatement; path: string }
  /**
   * One statement writes and answers: `[output, check]`. When the role has a check, the
   * statement itself fails if the check fails (directWriteSql, isCheckViolation in ./write.ts).
   */
  | { kind: 'direct'; statement: PgStatement; path: string }
  /**
   * Write first, then answer from a second statement over the written rows, which then sees
   * everything the writes did (relationships in the answer, nested inserts), as the reference
   * engine does. The output statement reads `rowsSlot` (and `countSlot`).
   */
  | { kind: 'staged'; write: PgWrite; output: PgStatement; rowsSlot: number; countSlot: number }
  /** `update_<t>_many`: each update in order; the answer is their list. */
  | { kind: 'many'; items: PgProgram[] };

export class PgCompiledMutation implements CompiledMutation {
  constructor(
    readonly params: SqlParam[],
    readonly program: PgProgram,
    /** How many slots the program uses. */
    readonly slotCount: number,
  ) {}
}
