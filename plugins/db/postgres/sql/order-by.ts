/**
 * Sort keys. A column of the table is ordered on directly; a key reached through a relationship
 * is a correlated scalar sub-select (at most one related row, or an aggregate over the related
 * rows) computed beside the base row so that both the base select (for LIMIT) and the outer
 * `json_agg(... ORDER BY ...)` can use it.
 */
import { type BoolExpIR, errors, type OrderByIR, type OrderExprIR } from '../../../../core/sdk/index.js';
import { andSql, boolExpSql, joinSql, visibleWhenSql } from './bool-exp.js';
import type { CompileContext } from './context.js';
import { quoteIdent, quoteTable } from './quote.js';
import { callSql } from './function-call.js';

export function directionSql(o: Pick<OrderByIR, 'direction' | 'nulls'>): string {
  return (o.direction === 'desc' ? ' DESC' : ' ASC') + (o.nulls === 'first' ? ' NULLS FIRST' : ' NULLS LAST');
}

/** The sort key expression over `table` (an alias). */
export function orderExprSql(ctx: CompileContext, e: OrderExprIR, table: string): string {
  switch (e.kind) {
    case 'column': {
      const col = table + '.' + quoteIdent(e.name);
      return e.visibleWhen ? visibleWhenSql(ctx, e.visibleWhen, table, col) : col;
    }
    case 'computed': {
      const call = callSql(ctx, e.call, table);
      return e.visibleWhen ? visibleWhenSql(ctx, e.visibleWhen, table, call) : call;
    }
    case 'objectRelationship': {
      const a = ctx.alias();
      const inner = orderExprSql(ctx, e.expr, a);
      const where = relatedWhere(ctx, e.mapping, e.filter, table, a);
      return `(SELECT ${inner} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where} LIMIT 1)`;
    }
    case 'arrayAggregate': {
      const a = ctx.alias();
      const where = relatedWhere(ctx, e.mapping, e.filter, table, a);
      return `(SELECT ${aggregateSql(e, a)} FROM ${quoteTable(e.target)} AS ${a} WHERE ${where})`;
    }
    case 'computedAggregate': {
      const a = ctx.alias();
      const where = relatedWhere(ctx, [], e.filter, table, a);
      return `(SELECT ${aggregateSql(e, a)} FROM ${callSql(ctx, e.call, table)} AS ${a} WHERE ${where})`;
    }
  }
}

function aggregateSql(e: Extract<OrderExprIR, { kind: 'arrayAggregate' | 'computedAggregate' }>, alias: string): string {
  if (e.fn === 'count') return 'count(*)';
  if (e.column === undefined) throw errors.unexpected(`order by ${e.fn} needs a column`);
  return `${e.fn}(${alias}.${quoteIdent(e.column.name)})`;
}

function relatedWhere(
  ctx: CompileContext,
  mapping: Array<[string, string]>,
  filter: BoolExpIR | null,
  from: string,
  to: string,
): string {
  // The filter is the related table's own permission filter: its root is that table.
  return andSql([joinSql(mapping, from, to), filter === null ? 'true' : boolExpSql(ctx, filter, { cur: to, root: to })]);
}
