/**
 * The values of a statement. Each value is a named query parameter (`@p0`, `@p1`, ...) with the
 * BigQuery type of the column or argument it meets; the engine's own IR types (`int4` for counts,
 * `text`, `bool`, `float8` of aggregate predicates) get theirs. Paging is the one exception: a
 * LIMIT/OFFSET clause is written per run with the bound integers (checked to be integers, never
 * text from a request), since BigQuery wants constants there and a role's cap or the source's
 * `global_select_limit` may lower it.
 */
import { EngineError, type TypedValueIR } from '../../../../core/sdk/index.js';

/** How a value goes to BigQuery: as is, or rewritten into an RE2 pattern. */
export type ParamUse = 'value' | 'similar' | 'regex' | 'iregex';

export interface ParamSlot {
  /** `params[index]` of the compiled statement. */
  index: number;
  /** BigQuery type of one value (`INT64`); `array`: an ARRAY of it (`_in`). */
  bqType: string;
  array: boolean;
  use: ParamUse;
  /** A session variable: bad text is the database's complaint (data-exception), not the client's. */
  session: boolean;
}

/** A LIMIT/OFFSET clause: the request's values (`params` indexes), the role's cap, the source's limit. */
export interface PagingClause {
  limit: number | null;
  offset: number | null;
  cap: number | null;
  /** Whether the source's `global_select_limit` caps this level (list selects). */
  global: boolean;
  /**
   * A nested level pages by its rows' numbers per parent (`ROW_NUMBER()`, in this column): the
   * clause is then a condition on it, not LIMIT/OFFSET.
   */
  rowNumber?: string;
}

const IR_TYPES: Readonly<Record<string, string>> = {
  int4: 'INT64',
  int8: 'INT64',
  text: 'STRING',
  bool: 'BOOL',
  float8: 'FLOAT64',
  numeric: 'NUMERIC',
};

const BQ_TYPES = new Set(['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC', 'BOOL', 'STRING', 'BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'GEOGRAPHY', 'JSON']);

/** The BigQuery type a value of `dbType` is sent as. */
export function parameterType(dbType: string): string {
  if (BQ_TYPES.has(dbType)) return dbType;
  const t = IR_TYPES[dbType];
  if (t !== undefined) return t;
  throw new EngineError('not-supported', `values of type ${dbType} cannot be sent to BigQuery`);
}

export const PAGING_MARK = '\u0002';
// eslint-disable-next-line no-control-regex
export const PAGING_RE = /\u0002(\d+)\u0002/g;

export class ParamList {
  readonly params: TypedValueIR[] = [];
  readonly slots: ParamSlot[] = [];
  readonly paging: PagingClause[] = [];

  /** `@pN` for a value; `dbType` overrides the value's own type (an `_is_null` flag is a BOOL). */
  value(v: TypedValueIR, use: ParamUse = 'value', dbType?: string): string {
    this.params.push(v);
    this.slots.push({
      index: this.params.length - 1,
      bqType: parameterType(dbType ?? v.dbType),
      array: dbType === undefined && v.array === true,
      use,
      session: v.value.kind === 'session',
    });
    return `@p${this.slots.length - 1}`;
  }

  /** A condition keeping the rows numbered (per parent) offset+1 .. offset+limit, written when the values are known. */
  rowNumberCondition(limit: TypedValueIR | null, offset: TypedValueIR | null, cap: number | null, column: string): string {
    const marker = this.pagingClause(limit, offset, cap, false);
    this.paging[this.paging.length - 1]!.rowNumber = column;
    return marker;
  }

  /** A LIMIT/OFFSET clause (or nothing), written when the values are known. */
  pagingClause(limit: TypedValueIR | null, offset: TypedValueIR | null, cap: number | null, global: boolean): string {
    const index = (v: TypedValueIR | null): number | null => {
      if (v === null) return null;
      this.params.push(v);
      return this.params.length - 1;
    };
    this.paging.push({ limit: index(limit), offset: index(offset), cap, global });
    return PAGING_MARK + (this.paging.length - 1) + PAGING_MARK;
  }
}
