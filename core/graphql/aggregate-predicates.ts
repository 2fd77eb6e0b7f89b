/**
 * The aggregate functions `<rel>_aggregate` filters take (`{articles_aggregate: {count:
 * {predicate: {_gt: 1}}}}`), as the reference engine's Postgres schema declares them: `count` over
 * any columns (or the rows), `bool_and`/`bool_or` over one boolean column, `avg`, `max`, `min`,
 * `sum`, `stddev_samp`, `var_samp` over one floating-point column, and `corr`/`covar_samp` over a
 * pair of them (`arguments: {X, Y}`). A function is offered only when the target table has
 * columns of its argument type that the role may see.
 *
 * The types are the kind's (its scalar facts' `aggregatePredicates`): PostgreSQL's `float8`,
 * `int4` and `bool` give the reference's signatures; MariaDB's `double precision`, `integer`
 * and `boolean` give the same functions over DOUBLE and BOOLEAN columns, without the ones it
 * cannot run.
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

/** What the signatures are made from: a kind's compiled scalar facts (core/db/scalar-types.ts). */
export interface AggregatePredicateFacts {
  readonly aggregatePredicateTypes: { float: string; count: string; boolean: string | null; unsupported: readonly string[] } | null;
  nameOf(dbType: string): string | null;
}

/** The two argument fields of a `pair` function, in the order the SQL function takes them. */
export const PAIR_ARGUMENTS = ['Y', 'X'] as const;

const ORDER: ReadonlyArray<[AggregatePredicateFn, 'star' | 'single' | 'pair', 'float' | 'boolean' | null]> = [
  ['avg', 'single', 'float'],
  ['bool_and', 'single', 'boolean'],
  ['bool_or', 'single', 'boolean'],
  ['count', 'star', null],
  ['max', 'single', 'float'],
  ['min', 'single', 'float'],
  ['sum', 'single', 'float'],
  ['corr', 'pair', 'float'],
  ['covar_samp', 'pair', 'float'],
  ['stddev_samp', 'single', 'float'],
  ['var_samp', 'single', 'float'],
];

const cache = new WeakMap<AggregatePredicateFacts, readonly AggregatePredicateSignature[]>();

/** The aggregate predicates a kind offers, in the reference's order; none without its facts. */
export function aggregatePredicatesOf(facts: AggregatePredicateFacts): readonly AggregatePredicateSignature[] {
  const known = cache.get(facts);
  if (known) return known;
  const types = facts.aggregatePredicateTypes;
  const out: AggregatePredicateSignature[] = [];
  if (types) {
    const typed = (dbType: string) => ({ dbType, graphqlType: facts.nameOf(dbType) ?? dbType });
    for (const [fn, args, argKind] of ORDER) {
      if (types.unsupported.includes(fn)) continue;
      if (fn === 'count') {
        out.push({ fn, args, returns: typed(types.count) });
        continue;
      }
      const argType = argKind === 'boolean' ? types.boolean : types.float;
      if (argType === null) continue;
      out.push({ fn, args, argType, returns: typed(argType) });
    }
  }
  cache.set(facts, out);
  return out;
}
