/**
 * Statement text with its parameters, for SQL compilers whose statements are assembled out of
 * order (a level's aggregates or OUTER APPLYs written before or after its FROM) while the
 * server numbers placeholders in text order. The compiler writes a marker naming a slot where a
 * value goes; `renderSlots` turns the markers into the dialect's placeholders (`?`, `@p0`, ...)
 * and lists the slots in the order the server reads them. A value used twice is sent twice.
 *
 * The markers are control characters: `checkName` refuses them in identifiers, and values never
 * enter the text, so a marker can only be one the compiler wrote.
 */
import { EngineError } from '../../errors.js';
import type { TypedValueIR } from '../../graphql/ir.js';

const SLOT = '\u0001';
const EXCLUDED = '\u0002';
// eslint-disable-next-line no-control-regex
const SLOT_RE = /\u0001(\d+)\u0001/g;

/**
 * Slot markers and on_conflict's EXCLUDED markers (`excludedMarker`) in a mutation program's
 * statements: group 1 a slot's index, group 2 an excluded column's name.
 */
// eslint-disable-next-line no-control-regex
export const PROGRAM_MARKERS = /\u0001(\d+)\u0001|\u0002([^\u0002]*)\u0002/g;

/** Names holding NUL or the marker characters are refused, not escaped. */
export function checkName(name: string): string {
  if (name.includes('\u0000') || name.includes(SLOT) || name.includes(EXCLUDED)) throw new EngineError('validation-failed', `the name ${JSON.stringify(name)} holds a control character`);
  return name;
}

/** The marker of slot `index`. */
export const slotMarker = (index: number): string => SLOT + index + SLOT;

/** The proposed row's value of `column` (on_conflict's EXCLUDED.column), bound per row at run time. */
export const excludedMarker = (column: string): string => EXCLUDED + checkName(column) + EXCLUDED;

/** How every dialect can send a value: as it is, or a list as one JSON array (`_in`). */
export type BaseParamUse = 'value' | 'json';

/** A `param` slot: `params[index]`, sent as `use` asks, a limit capped at `cap`; `flags` are the kind's own. */
export function paramSlot<U extends string, F extends object>(index: number, use: U, cap: number | undefined, flags: F): { kind: 'param'; index: number; use: U; cap?: number } & F {
  return { kind: 'param', index, use, ...(cap !== undefined ? { cap } : {}), ...flags };
}

/**
 * The slots of one compilation and the statement's parameters. `S` is the kind's slot union
 * (its `param` slots made by `paramSlot`), `U` how its parameters may be sent.
 */
export class SlotList<S extends { kind: string }, U extends string> {
  readonly slots: S[] = [];
  readonly params: TypedValueIR[] = [];
  usesSession = false;

  constructor(private readonly paramSlot: (index: number, use: U | BaseParamUse, value: TypedValueIR, cap: number | undefined) => S) {}

  mark(slot: S): string {
    if (slot.kind === 'session') this.usesSession = true;
    this.slots.push(slot);
    return slotMarker(this.slots.length - 1);
  }

  /** A placeholder for a statement parameter (a constant, GraphQL variable or session variable). */
  value(v: TypedValueIR, use: U | BaseParamUse = 'value', cap?: number): string {
    this.params.push(v);
    return this.mark(this.paramSlot(this.params.length - 1, use, v, cap));
  }
}

export interface Rendered<S> {
  text: string;
  order: S[];
}

/** Marked text → the dialect's placeholders (`placeholder(n)` for the n-th, from 0) and the slots in that order. */
export function renderSlots<S>(marked: string, slots: readonly S[], placeholder: (n: number) => string): Rendered<S> {
  const order: S[] = [];
  const text = marked.replace(SLOT_RE, (_m, n: string) => {
    order.push(slots[Number(n)]!);
    return placeholder(order.length - 1);
  });
  return { text, order };
}

/** A limit or offset as the request gives it (a number, or digits as text); null for none. */
export function pagingValue(v: unknown, use: 'limit' | 'offset'): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n === 'number' && n < 0) throw new EngineError('not-supported', 'unexpected negative value');
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new EngineError('validation-failed', `expected an integer for ${use}`);
  return n;
}

/**
 * A limit or offset parameter's value as PostgreSQL reads it: a null offset is none (0), a null
 * limit no limit (the role's `cap`, if any, else `noLimit`, the dialect's largest row count), and
 * a limit is capped by the role's.
 */
export function pagingParam(v: unknown, use: 'limit' | 'offset', cap: number | undefined, noLimit: number): number {
  const n = pagingValue(v, use);
  if (use === 'offset') return n ?? 0;
  if (n === null) return cap ?? noLimit;
  return cap === undefined ? n : Math.min(n, cap);
}

/**
 * SQL `SIMILAR TO` → an anchored regular expression (PCRE and RE2 alike): `%` and `_` are
 * wildcards, `.` is literal, `\` escapes, and the regular-expression operators
 * (`| * + ? {} () []`) mean what they mean in a regex.
 */
export function similarToRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) out += '\\' + pattern[++i];
    else if (c === '%') out += '.*';
    else if (c === '_') out += '.';
    else if ('.^$'.includes(c)) out += '\\' + c;
    else out += c;
  }
  return `^(?:${out})$`;
}

/**
 * A boolean given as text (session variables) read as PostgreSQL reads boolean text, sent as the
 * dialect's `yes` / `no`; anything else goes as it is.
 */
export function booleanText<T>(v: unknown, yes: T, no: T): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim().toLowerCase();
  if (['t', 'true', 'y', 'yes', 'on', '1'].includes(t)) return yes;
  if (['f', 'false', 'n', 'no', 'off', '0'].includes(t)) return no;
  return v;
}
