/**
 * The aggregate functions `<rel>_aggregate` filters take (`{articles_aggregate: {count:
 * {predicate: {_gt: 1}}}}`), as the reference engine's Postgres schema declares them: `count` over
 * any columns (or the rows), `bool_and`/`bool_or` over one boolean column, `avg`, `max`, `min`,
 * `sum`, `stddev_samp`, `var_samp` over one `float8` column, and `corr`/`covar_samp` over a pair
 * of `float8` columns (`arguments: {X, Y}`). A function is offered only when the target table has
 * columns of its argument type that the role may see.
 */
export type AggregatePredicateFn =
  | 'count' | 'bool_and' | 'bool_or'
  | 'avg' | 'max' | 'min' | 'sum' | 'stddev_samp' | 'var_samp'
  | 'corr' | 'covar_samp';

export interface AggregatePredicateSignature {
  fn: AggregatePredicateFn;
  /** `star`: any columns, optional; `single`: one column of `argType`; `pair`: `{X, Y}` of `argType`. */
  args: 'star' | 'single' | 'pair';
  /** Canonical database type of the argument columns (`bool`, `float8`). */
  argType?: string;
  /** What the aggregate returns: the type of the `predicate` comparison. */
  returns: { dbType: string; graphqlType: string };
}

const FLOAT8 = { dbType: 'float8', graphqlType: 'float8' };
const single = (fn: AggregatePredicateFn): AggregatePredicateSignature => ({ fn, args: 'single', argType: 'float8', returns: FLOAT8 });
const pair = (fn: AggregatePredicateFn): AggregatePredicateSignature => ({ fn, args: 'pair', argType: 'float8', returns: FLOAT8 });

export const AGGREGATE_PREDICATES: readonly AggregatePredicateSignature[] = [
  single('avg'),
  { fn: 'bool_and', args: 'single', argType: 'bool', returns: { dbType: 'bool', graphqlType: 'Boolean' } },
  { fn: 'bool_or', args: 'single', argType: 'bool', returns: { dbType: 'bool', graphqlType: 'Boolean' } },
  { fn: 'count', args: 'star', returns: { dbType: 'int4', graphqlType: 'Int' } },
  single('max'),
  single('min'),
  single('sum'),
  pair('corr'),
  pair('covar_samp'),
  single('stddev_samp'),
  single('var_samp'),
];

/** The two argument fields of a `pair` function, in the order the SQL function takes them. */
export const PAIR_ARGUMENTS = ['Y', 'X'] as const;
