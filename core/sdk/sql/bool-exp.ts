/**
 * Boolean expressions (`where`, permission filters, checks) into SQL conditions, for SQL
 * compilers built on these blocks. The walk over the IR is the same in every dialect; what a
 * dialect says is how an operator compares (collations, LIKE, `_in` lists, regular expressions
 * differ too much to share), its aggregates for aggregate predicates, its type operators, and
 * its constant conditions (`TRUE`, or `1=1` where there are no boolean values).
 */
import type { AggregatePredicateFn } from '../../graphql/aggregate-predicates.js';
import type { BoolExpIR, ComparisonOp, ScalarExprIR, SelectFromIR, TableRef, TypedValueIR } from '../../graphql/ir.js';
import type { SqlCompileContext } from './context.js';

/** The aliases a condition reads: the current row's table, and the outermost one (`_ceq: ['$', ..]`). */
export interface Scope {
  cur: string;
  root: string;
}

/** A correlated level: the parent's alias, and (parent column, child column) pairs. */
export interface JoinSpec {
  parent: string;
  mapping: Array<[string, string]>;
}

export type AnySqlContext = SqlCompileContext<unknown>;
export type KindOperatorIR = Extract<BoolExpIR, { kind: 'kindOperator' }>;

/** The operators that are one SQL operator between two values in every dialect. */
export const COMPARISON_OPERATORS: Readonly<Partial<Record<ComparisonOp, string>>> = {
  _eq: '=', _neq: '<>', _gt: '>', _lt: '<', _gte: '>=', _lte: '<=',
  _ceq: '=', _cneq: '<>', _cgt: '>', _clt: '<', _cgte: '>=', _clte: '<=',
};

export interface BoolExpDialect<C extends AnySqlContext> {
  /** The condition that always holds, and the one that never does. */
  readonly trueSql: string;
  readonly falseSql: string;
  quoteIdent(name: string): string;
  quoteTable(t: TableRef): string;
  /** Throws the kind's not-supported error for `what`. */
  notSupported(what: string): never;
  /** A value's placeholder (a marked slot). */
  value(ctx: C, v: TypedValueIR): string;
  /**
   * `lhs <op> rhs` where the dialect gives `op` a meaning of its own (a constant `_is_null` is
   * answered before); null for the plain SQL operator COMPARISON_OPERATORS names.
   */
  comparison(ctx: C, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string | null;
  /** An aggregate predicate's aggregate over `cols` (qualified, quoted): `COUNT(*)`, ... */
  predicateAggregate(fn: AggregatePredicateFn, cols: string[], distinct: boolean): string;
  /** A type operator of the kind (SourceConnection.typeOperators); refuse those it has none of. */
  kindOperator(ctx: C, e: KindOperatorIR, scope: Scope): string;
}

/** The compiler of conditions over one dialect; its members are functions, to be handed around unbound. */
export class BoolExpSql<C extends AnySqlContext> {
  /** `dialect`: also what OrderSql and planMutation read quoting and refusals from. */
  constructor(readonly dialect: BoolExpDialect<C>) {}

  readonly and = (items: string[]): string => {
    const kept = items.filter((s) => s !== this.dialect.trueSql);
    if (kept.length === 0) return this.dialect.trueSql;
    if (kept.length === 1) return kept[0]!;
    return kept.map((s) => `(${s})`).join(' AND ');
  };

  readonly or = (items: string[]): string => {
    const kept = items.filter((s) => s !== this.dialect.falseSql);
    if (kept.length === 0) return this.dialect.falseSql;
    if (kept.length === 1) return kept[0]!;
    return kept.map((s) => `(${s})`).join(' OR ');
  };

  /** The join condition of a correlated level: `from.a = to.b` for each pair. */
  readonly join = (mapping: Array<[string, string]>, from: string, to: string): string => {
    if (mapping.length === 0) return this.dialect.trueSql;
    return mapping.map(([a, b]) => `(${from}.${this.dialect.quoteIdent(a)} = ${to}.${this.dialect.quoteIdent(b)})`).join(' AND ');
  };

  readonly scalar = (e: ScalarExprIR, table: string): string => {
    // Inherited roles' hidden cells are not compiled by these kinds: refused rather than shown.
    if (e.kind === 'column') return e.visibleWhen ? this.dialect.notSupported('inherited roles with hidden cells') : table + '.' + this.dialect.quoteIdent(e.name);
    return this.dialect.notSupported(e.kind === 'cast' ? '_cast' : 'computed fields');
  };

  readonly comparison = (ctx: C, lhs: string, op: ComparisonOp, rhs: TypedValueIR): string => {
    if (op === '_is_null' && rhs.value.kind === 'const') {
      if (rhs.value.value === null || rhs.value.value === undefined) return this.dialect.trueSql;
      return rhs.value.value === false ? `(${lhs} IS NOT NULL)` : `(${lhs} IS NULL)`;
    }
    const own = this.dialect.comparison(ctx, lhs, op, rhs);
    if (own !== null) return own;
    const sqlOp = COMPARISON_OPERATORS[op];
    if (sqlOp === undefined) return this.dialect.notSupported(`the ${op} operator`);
    return `(${lhs} ${sqlOp} ${this.dialect.value(ctx, rhs)})`;
  };

  readonly expr = (ctx: C, e: BoolExpIR, scope: Scope): string => {
    switch (e.kind) {
      case 'true':
        return this.dialect.trueSql;
      case 'false':
        return this.dialect.falseSql;
      case 'and':
        return this.and(e.items.map((i) => this.expr(ctx, i, scope)));
      case 'or':
        return this.or(e.items.map((i) => this.expr(ctx, i, scope)));
      case 'not':
        return `NOT (${this.expr(ctx, e.item, scope)})`;
      case 'compare':
        return this.comparison(ctx, this.scalar(e.lhs, scope.cur), e.op, e.rhs);
      case 'compareColumn': {
        const sqlOp = COMPARISON_OPERATORS[e.op];
        if (sqlOp === undefined) return this.dialect.notSupported(`the ${e.op} operator`);
        return `(${this.scalar(e.lhs, scope.cur)} ${sqlOp} ${(e.rhs.root ? scope.root : scope.cur) + '.' + this.dialect.quoteIdent(e.rhs.column)})`;
      }
      case 'relationship':
        return this.exists(ctx, e.target, (a) => this.and([this.join(e.mapping, scope.cur, a), this.expr(ctx, e.where, { cur: a, root: scope.root })]));
      case 'exists':
        return this.exists(ctx, e.target, (a) => this.expr(ctx, e.where, { cur: a, root: scope.root }));
      case 'computedTable':
        return this.dialect.notSupported('computed fields');
      case 'kindOperator':
        return this.dialect.kindOperator(ctx, e, scope);
      case 'aggregatePredicate': {
        const a = ctx.alias();
        const where = this.and([this.join(e.mapping, scope.cur, a), e.filter === null ? this.dialect.trueSql : this.expr(ctx, e.filter, { cur: a, root: scope.root })]);
        const cols = e.args.map((c) => a + '.' + this.dialect.quoteIdent(c));
        const lhs = `(SELECT ${this.dialect.predicateAggregate(e.fn, cols, e.distinct)} FROM ${this.dialect.quoteTable(e.target)} AS ${a} WHERE ${where})`;
        return this.comparison(ctx, lhs, e.predicate.op, e.predicate.rhs);
      }
    }
  };

  /** `e` over the rows of `alias`, or the true condition for none. */
  readonly over = (ctx: C, e: BoolExpIR | null, alias: string): string => (e === null ? this.dialect.trueSql : this.expr(ctx, e, { cur: alias, root: alias }));

  /** The rows of a level: joined to its parent, within the role's filter, matching `where` (and `extra`). */
  readonly rowsFilter = (ctx: C, sel: SelectFromIR, alias: string, join: JoinSpec | null, extra: BoolExpIR | null = null): string =>
    this.and([
      join === null ? this.dialect.trueSql : this.join(join.mapping, join.parent, alias),
      this.over(ctx, sel.permissionFilter, alias),
      this.over(ctx, sel.where, alias),
      this.over(ctx, extra, alias),
    ]);

  private exists(ctx: C, target: TableRef, cond: (alias: string) => string): string {
    const a = ctx.alias();
    return `EXISTS (SELECT 1 FROM ${this.dialect.quoteTable(target)} AS ${a} WHERE ${cond(a)})`;
  }
}
