/**
 * Statement text with its parameters. SQL Server's parameters are named (`@p0`, ...), but a
 * statement is assembled out of order (a level's OUTER APPLY after its select list), so the
 * compiler writes markers naming a slot and `render` numbers them `@p0..@pN` in text order,
 * listing which value each one takes. A value used twice is sent twice.
 */
import { booleanText, EngineError, pagingParam, pagingValue, paramSlot, renderSlots, SqlSlotList, type RenderedSql } from '../../../../core/sdk/index.js';

/** What one `@pN` receives. */
export type Slot =
  /** `params[index]` of the compiled statement, prepared for its use. */
  | { kind: 'param'; index: number; use: ParamUse; cap?: number; boolean?: true }
  /** The session variables as JSON text. */
  | { kind: 'session' }
  /** Mutations: the condition matching the rows a statement wrote, expanded per run. */
  | { kind: 'affected'; alias: string };

/**
 * How a value goes to the server: as is, as a JSON array (`_in`, read with OPENJSON), as a
 * paging bound (checked, capped by the role's limit; FETCH takes no 0, so a limit is sent as at
 * least 1 and its `gate`, 1 or 0, says whether any row is wanted), or as a LIKE pattern given PostgreSQL's
 * meaning (`[` is literal).
 */
export type ParamUse = 'value' | 'json' | 'limit' | 'offset' | 'gate' | 'like';

/** SQL Server's slots: a `param` slot knows whether its value is a BIT. */
export class SlotList extends SqlSlotList<Slot, ParamUse> {
  constructor() {
    super((index, use, v, cap) => paramSlot(index, use, cap, v.dbType === 'bit' || v.dbType === 'boolean' || v.dbType === 'bool' ? { boolean: true as const } : {}));
  }
}

/** Marked text → `@pN` text and the slots in the order they are numbered. */
export const render = (marked: string, slots: readonly Slot[]): RenderedSql<Slot> => renderSlots(marked, slots, (n) => `@p${n}`);

/** Values for the rendered order: `values` are the request's resolved params. */
export function bindSlots(order: readonly Slot[], values: readonly unknown[], sessionJson: string): unknown[] {
  return order.map((s) => {
    switch (s.kind) {
      case 'session':
        return sessionJson;
      case 'affected':
        throw new EngineError('unexpected', 'an affected-rows condition outside a mutation');
      case 'param':
        return s.boolean ? booleanValue(prepare(values[s.index], s.use, s.cap)) : prepare(values[s.index], s.use, s.cap);
    }
  });
}

/** A BIT: SQL Server would take 'true' and 'false' but refuse 't' or 'yes'. */
const booleanValue = (v: unknown): unknown => booleanText(v, true, false);

/** The largest row count FETCH takes, standing for "no limit" when only the offset is given. */
export const NO_LIMIT = 2147483647;

function prepare(v: unknown, use: ParamUse, cap: number | undefined): unknown {
  if (v === undefined) v = null;
  switch (use) {
    case 'json':
      return v === null ? null : JSON.stringify(v);
    case 'offset':
      return pagingParam(v, use, cap, NO_LIMIT);
    case 'limit':
      return Math.max(1, Math.min(pagingParam(v, use, cap, NO_LIMIT), NO_LIMIT));
    case 'gate': {
      const n = pagingValue(v, 'limit');
      const limit = n === null ? cap : cap === undefined ? n : Math.min(n, cap);
      return limit === 0 ? 0 : 1;
    }
    case 'like':
      return v === null ? null : likePattern(String(v));
    case 'value':
      if (v !== null && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v)) return JSON.stringify(v);
      return v;
  }
}

/**
 * A PostgreSQL LIKE pattern for SQL Server's LIKE ... ESCAPE '\': `%` and `_` are wildcards and
 * `\` escapes in both, but SQL Server also reads `[...]` as a character class, so a `[` is
 * escaped to stay literal.
 */
export function likePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      // A trailing backslash escapes nothing in PostgreSQL: it is matched literally.
      out += i + 1 < pattern.length ? '\\' + pattern[++i] : '\\\\';
    } else if (c === '[') out += '\\[';
    else out += c;
  }
  return out;
}
