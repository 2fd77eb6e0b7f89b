/** The comparison operators the data filters and the permission builder offer, with their labels. */
export const COMPARISON_OPS: readonly [string, string][] = [
  ['_eq', '='],
  ['_neq', '≠'],
  ['_gt', '>'],
  ['_lt', '<'],
  ['_gte', '≥'],
  ['_lte', '≤'],
  ['_in', 'in (comma list)'],
  ['_nin', 'not in (comma list)'],
  ['_like', 'like'],
  ['_ilike', 'ilike'],
  ['_is_null', 'is null (true/false)'],
];

/** Operators whose value is a list. */
export const LIST_OPS = new Set(['_in', '_nin']);
