/** Small constructors that keep boolean IR flat: `_and: []` is true, `_or: []` is false. */
import type { BoolExpIR } from '../ir.js';

export const TRUE: BoolExpIR = { kind: 'true' };
export const FALSE: BoolExpIR = { kind: 'false' };

export function and(items: BoolExpIR[]): BoolExpIR {
  // Nested ANDs flatten: `{a: {_gt: 1, _lt: 5}, b: ...}` is one conjunction.
  const kept = items.flatMap((i) => (i.kind === 'and' ? i.items : [i])).filter((i) => i.kind !== 'true');
  if (kept.some((i) => i.kind === 'false')) return FALSE;
  if (kept.length === 0) return TRUE;
  return kept.length === 1 ? kept[0]! : { kind: 'and', items: kept };
}

export function or(items: BoolExpIR[]): BoolExpIR {
  if (items.some((i) => i.kind === 'true')) return TRUE;
  const kept = items.flatMap((i) => (i.kind === 'or' ? i.items : [i])).filter((i) => i.kind !== 'false');
  if (kept.length === 0) return FALSE;
  return kept.length === 1 ? kept[0]! : { kind: 'or', items: kept };
}

export function not(item: BoolExpIR): BoolExpIR {
  if (item.kind === 'true') return FALSE;
  if (item.kind === 'false') return TRUE;
  return { kind: 'not', item };
}

/** AND two optional filters (a permission filter and a user filter); null means "no filter". */
export function andMaybe(a: BoolExpIR | null, b: BoolExpIR | null): BoolExpIR | null {
  if (!a) return b;
  if (!b) return a;
  return and([a, b]);
}
