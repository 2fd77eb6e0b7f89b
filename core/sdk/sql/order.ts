/**
 * Ordering of a selection level, for SQL compilers built on these blocks: sort key expressions
 * (columns, and through object relationships and aggregates of array relationships, as
 * correlated sub-selects), NULL placement where the key can be NULL, and the keys of a level
 * paged in a derived table. A dialect says how NULLs are placed (servers that sort NULLs first
 * ascending need a term before the key), how one row is taken, and its aggregate calls.
 */
import { errors } from '../../errors.js';
import type { AggregateFn, OrderByIR, OrderExprIR, SelectFromIR, TableRef } from '../../graphql/ir.js';
import type { AnySqlContext, BoolExpDialect, BoolExpSql } from './bool-exp.js';

/** What ordering adds to the dialect of the kind's conditions (BoolExpSql), which it quotes and refuses with. */
export interface OrderDialect<C extends AnySqlContext> {
  conditions: BoolExpSql<C>;
  /** `key <direction>`, preceded by the term placing NULLs as `o` asks when the key is `nullable`. */
  sortKey(key: string, o: Pick<OrderByIR, 'direction' | 'nulls'>, nullable: boolean): string;
  /** A correlated sub-select of `value` from the first row of `from` (`<table> AS <alias>`) where `where` holds. */
  firstRow(value: string, from: string, where: string): string;
  /** `fn(column)` of a column of catalog type `type`, answered as PostgreSQL would. */
  aggregateCall(fn: AggregateFn, column: string, type: string): string;
  /**
   * How a derived table sorts a key that is not a column, which it hands out by name: by that
   * name (MariaDB), or by the expression again where ORDER BY takes a select-list alias only
   * bare and not inside the NULL placement term (SQL Server).
   */
  derivedSortsBy: 'name' | 'expression';
}

/** The sort keys of a level whose rows come from a derived table. */
export interface DerivedOrder {
  /** `<expr> AS <name>` for the keys that are not columns, added to the derived table's select list. */
  extra: string[];
  /** ORDER BY terms inside the derived table. */
  inner: string[];
  /** ORDER BY terms over its rows outside. */
  outer: string[];
}

const ORDER_KEY = '__svc_order_';

export class OrderSql<C extends AnySqlContext> {
  private readonly d: OrderDialect<C> & Pick<BoolExpDialect<C>, 'quoteIdent' | 'quoteTable' | 'notSupported'>;

  constructor(d: OrderDialect<C>) {
    const { quoteIdent, quoteTable, notSupported } = d.conditions.dialect;
    this.d = { ...d, quoteIdent, quoteTable, notSupported };
  }

  /** Refuses what the kinds built on these blocks do not declare: functions as sources, distinct_on. */
  readonly checkSelect = (sel: SelectFromIR): void => {
    if (sel.function) this.d.notSupported('functions');
    if (sel.distinctOn.length > 0) this.d.notSupported('distinct_on');
  };

  readonly expr = (ctx: C, e: OrderExprIR, table: string): string => {
    const d = this.d;
    switch (e.kind) {
      case 'column':
        return e.visibleWhen ? d.notSupported('inherited roles with hidden cells') : table + '.' + d.quoteIdent(e.name);
      case 'computed':
      case 'computedAggregate':
        return d.notSupported('computed fields');
      case 'objectRelationship': {
        const a = ctx.alias();
        const inner = this.expr(ctx, e.expr, a);
        const where = d.conditions.and([d.conditions.join(e.mapping, table, a), d.conditions.over(ctx, e.filter, a)]);
        return d.firstRow(inner, `${d.quoteTable(e.target)} AS ${a}`, where);
      }
      case 'arrayAggregate': {
        const a = ctx.alias();
        const where = d.conditions.and([d.conditions.join(e.mapping, table, a), d.conditions.over(ctx, e.filter, a)]);
        let call: string;
        if (e.fn === 'count') call = 'COUNT(*)';
        else if (e.column === undefined) throw errors.unexpected(`order by ${e.fn} needs a column`);
        else call = d.aggregateCall(e.fn, `${a}.${d.quoteIdent(e.column.name)}`, e.column.type);
        return `(SELECT ${call} FROM ${d.quoteTable(e.target)} AS ${a} WHERE ${where})`;
      }
    }
  };

  /** Whether a key can be NULL: anything but a column NOT NULL in the last introspection. */
  readonly nullable = (ctx: C, o: OrderByIR, from: TableRef): boolean => o.expr.kind !== 'column' || !ctx.notNull(from, o.expr.name);

  /** The ORDER BY terms of a level over `table` ('' when unordered). */
  readonly terms = (ctx: C, orderBy: OrderByIR[], table: string, from: TableRef): string =>
    orderBy.map((o) => this.d.sortKey(this.expr(ctx, o.expr, table), o, this.nullable(ctx, o, from))).join(', ');

  /** The keys of a level paged in a derived table aliased `a`: keys that are not columns are computed once inside and read by name outside. */
  readonly derived = (ctx: C, sel: SelectFromIR, a: string): DerivedOrder => {
    const out: DerivedOrder = { extra: [], inner: [], outer: [] };
    sel.orderBy.forEach((o, i) => {
      const key = this.expr(ctx, o.expr, a);
      const nullable = this.nullable(ctx, o, sel.from);
      if (o.expr.kind === 'column') {
        out.inner.push(this.d.sortKey(key, o, nullable));
        out.outer.push(this.d.sortKey(key, o, nullable));
      } else {
        const name = this.d.quoteIdent(ORDER_KEY + i);
        out.extra.push(`${key} AS ${name}`);
        out.inner.push(this.d.sortKey(this.d.derivedSortsBy === 'name' ? name : key, o, nullable));
        out.outer.push(this.d.sortKey(`${a}.${name}`, o, nullable));
      }
    });
    return out;
  };
}
