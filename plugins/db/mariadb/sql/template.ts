/**
 * Statement text with its parameters. MariaDB's placeholders are positional (`?`), but a
 * statement is assembled out of order (a level's aggregates before its FROM), so the compiler
 * writes markers naming a slot and `render` turns them into `?` in text order, listing which
 * value each one takes. A value used twice is sent twice.
 */
import { booleanText, EngineError, pagingParam, pagingValue, paramSlot, renderSlots, similarToRegex, SqlSlotList, type RenderedSql } from '../../../../core/sdk/index.js';

/** What one `?` receives. */
export type Slot =
  /** `params[index]` of the compiled statement, prepared for its use. */
  | { kind: 'param'; index: number; use: ParamUse; cap?: number; boolean?: true; timestamp?: true }
  /** The session variables as JSON text. */
  | { kind: 'session' }
  /** A constant string the compiler chose (a JSON path): sent as a value, never written into the text. */
  | { kind: 'text'; value: string }
  /**
   * A JSON path slicing an array to rows offset..offset+limit-1 (`$[o to e]`): paging of a nested
   * level whose limit or offset is a variable. Each bound is a constant, or `params[index]`.
   */
  | { kind: 'slice'; limit: PagingBound | null; offset: PagingBound | null; cap?: number }
  /** Mutations: the condition matching the rows a statement wrote, expanded per run. */
  | { kind: 'affected'; alias: string };

export type PagingBound = { const: number } | { index: number };

/** How a value goes to the server: as is, as a JSON array (for `_in`), or rewritten (patterns, paging). */
export type ParamUse = 'value' | 'json' | 'limit' | 'offset' | 'similar' | 'regex' | 'iregex';

/** MariaDB's slots: a `param` slot knows the types whose values it rewrites when bound. */
export class SlotList extends SqlSlotList<Slot, ParamUse> {
  constructor() {
    super((index, use, v, cap) =>
      paramSlot(index, use, cap, {
        ...(v.dbType === 'boolean' || v.dbType === 'bool' ? { boolean: true as const } : {}),
        ...(v.dbType === 'timestamp' ? { timestamp: true as const } : {}),
      }),
    );
  }
}

/** Marked text → `?` text and the slots in the order the server reads them. */
export const render = (marked: string, slots: readonly Slot[]): RenderedSql<Slot> => renderSlots(marked, slots, () => '?');

/** Values for the rendered order: `params` are the request's resolved values. */
export function bindSlots(order: readonly Slot[], values: readonly unknown[], sessionJson: string): unknown[] {
  return order.map((s) => {
    switch (s.kind) {
      case 'session':
        return sessionJson;
      case 'text':
        return s.value;
      case 'affected':
        throw new EngineError('unexpected', 'an affected-rows condition outside a mutation');
      case 'slice': {
        const bound = (b: PagingBound | null, use: 'limit' | 'offset'): number | null =>
          b === null ? null : 'const' in b ? b.const : pagingValue(values[b.index], use);
        let limit = bound(s.limit, 'limit');
        if (s.cap !== undefined) limit = limit === null ? s.cap : Math.min(limit, s.cap);
        const offset = bound(s.offset, 'offset') ?? 0;
        // No row wanted: a path an array never matches, which the compiler turns into [].
        if (limit === 0) return '$.none';
        return limit === null ? `$[${offset} to last]` : `$[${offset} to ${offset + limit - 1}]`;
      }
      case 'param':
        if (s.timestamp) return prepare(timestampValue(values[s.index]), s.use, s.cap);
        return s.boolean ? booleanValue(prepare(values[s.index], s.use, s.cap)) : prepare(values[s.index], s.use, s.cap);
    }
  });
}

/** A BOOLEAN is a TINYINT: MariaDB would turn 'true' into 0. */
const booleanValue = (v: unknown): unknown => booleanText(v, 1, 0);

const ZONED = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * A `timestamp` value (or a list of them, for `_in`) as MariaDB reads it. ISO 8601 with `T` it
 * reads already; a zone designator (`Z`, `+02:00`) it refuses in strict mode, while PostgreSQL's
 * `timestamp` (without time zone) ignores it: so it is dropped, as there.
 */
function timestampValue(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(ZONED, '$1');
  if (Array.isArray(v)) return v.map(timestampValue);
  return v;
}

function prepare(v: unknown, use: ParamUse, cap: number | undefined): unknown {
  if (v === undefined) v = null;
  switch (use) {
    case 'json':
      return v === null ? null : JSON.stringify(v);
    case 'limit':
    case 'offset':
      return pagingParam(v, use, cap, Number.MAX_SAFE_INTEGER);
    case 'similar':
      return v === null ? null : '(?-i)' + similarToRegex(String(v));
    case 'regex':
      return v === null ? null : '(?-i)' + String(v);
    case 'iregex':
      return v === null ? null : '(?i)' + String(v);
    case 'value':
      if (v !== null && typeof v === 'object') return JSON.stringify(v);
      return v;
  }
}
