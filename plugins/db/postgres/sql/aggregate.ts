/**
 * An aggregate level (`<table>_aggregate` root fields and `<rel>_aggregate` relationships):
 *
 *   json_build_object('aggregate', json_build_object('count', count(*), 'sum', json_build_object(..)),
 *                     'nodes', coalesce(json_agg(<row> ORDER BY ..), '[]'))
 *
 * over the filtered, ordered and limited base rows, like the reference engine (a limit caps the
 * rows aggregated). The nodes' relationship laterals are one row per base row, so they leave
 * the aggregates untouched.
 */
import type { AggregateOpIR, AggregateSelectIR } from '../../../../core/sdk/index.js';
import { type JoinSpec, baseSelect } from './base.js';
import type { CompileContext } from './context.js';
import { fieldsRow } from './fields.js';
import { type JsonPair, jsonObjectSql, textLiteral } from './json-object.js';
import { quoteIdent } from './quote.js';
import type { LevelSql } from './select.js';
import { isBigNumberType } from './types.js';

export function aggregateLevel(ctx: CompileContext, agg: AggregateSelectIR, join: JoinSpec | null): LevelSql {
  const alias = ctx.alias();
  const needed = new Set<string>();
  let laterals = '';
  let wholeRow = false;
  // Node arrays need the level's sort keys, known only once the base select is built.
  const pairs: Array<{ key: string; expr: string | ((aggOrder: string) => string) }> = [];
  for (const f of agg.fields) {
    switch (f.kind) {
      case 'typename':
        pairs.push({ key: f.alias, expr: textLiteral(f.typeName) });
        break;
      case 'aggregate':
        pairs.push({ key: f.alias, expr: jsonObjectSql(f.ops.map((op) => aggregateOp(ctx, op, alias, needed))) });
        break;
      case 'nodes': {
        const row = fieldsRow(ctx, f.fields, alias, needed);
        laterals += row.laterals;
        wholeRow ||= row.wholeRow;
        pairs.push({ key: f.alias, expr: (order) => `coalesce(json_agg(${row.expr}${order}), '[]')` });
        break;
      }
    }
  }
  const exposeOrder = agg.fields.some((f) => f.kind === 'nodes');
  const base = baseSelect(ctx, agg, alias, needed, join, { exposeOrder, wholeRow });
  const resolved: JsonPair[] = pairs.map((p) => ({
    key: p.key,
    expr: typeof p.expr === 'string' ? p.expr : p.expr(base.aggOrder),
  }));
  return { expr: jsonObjectSql(resolved), from: base.from + laterals };
}

function aggregateOp(ctx: CompileContext, op: AggregateOpIR, table: string, needed: Set<string>): JsonPair {
  switch (op.kind) {
    case 'typename':
      return { key: op.alias, expr: textLiteral(op.typeName) };
    case 'count':
      for (const c of op.columns) needed.add(c);
      return { key: op.alias, expr: countSql(op.columns, op.distinct, table) };
    case 'fn': {
      const fields = op.fields.map((f): JsonPair => {
        if (f.kind === 'typename') return { key: f.alias, expr: textLiteral(f.typeName) };
        needed.add(f.name);
        const call = `${op.fn}(${table}.${quoteIdent(f.name)})`;
        // The reference engine decides by the column's type, not the aggregate's result type.
        const big = ctx.options.stringifyNumericTypes && isBigNumberType(f.type);
        return { key: f.alias, expr: big ? `(${call})::text` : call };
      });
      return { key: op.alias, expr: jsonObjectSql(fields) };
    }
  }
}

/** `count(*)`, `count(c)`, `count(DISTINCT c)`; several columns count row values `(a, b)`. */
function countSql(columns: string[], distinct: boolean, table: string): string {
  if (columns.length === 0) return 'count(*)';
  const cols = columns.map((c) => table + '.' + quoteIdent(c));
  const arg = cols.length === 1 ? cols[0]! : `(${cols.join(', ')})`;
  return `count(${distinct ? 'DISTINCT ' : ''}${arg})`;
}

