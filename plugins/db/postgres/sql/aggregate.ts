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
import type { AggregateOpIR, AggregateSelectIR, BoolExpIR } from '../../../../core/sdk/index.js';
import { columnsRead, visibleWhenSql } from './bool-exp.js';
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
        pairs.push({
          key: f.alias,
          expr: jsonObjectSql(
            f.ops.map((op) => {
              const pair = aggregateOp(ctx, op, alias, needed);
              wholeRow ||= pair.wholeRow;
              return pair;
            }),
          ),
        });
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

function aggregateOp(ctx: CompileContext, op: AggregateOpIR, table: string, needed: Set<string>): JsonPair & { wholeRow: boolean } {
  let wholeRow = false;
  // A cell an inherited role does not see is aggregated as the null it reads as.
  const cell = (name: string, visibleWhen: BoolExpIR | undefined): string => {
    needed.add(name);
    const col = `${table}.${quoteIdent(name)}`;
    if (!visibleWhen) return col;
    if (columnsRead(visibleWhen, needed)) wholeRow = true;
    return visibleWhenSql(ctx, visibleWhen, table, col);
  };
  switch (op.kind) {
    case 'typename':
      return { key: op.alias, expr: textLiteral(op.typeName), wholeRow };
    case 'count': {
      const cols = op.columns.map((c) => cell(c, op.visibleWhen?.[c]));
      return { key: op.alias, expr: countSql(cols, op.distinct), wholeRow };
    }
    case 'fn': {
      const fields = op.fields.map((f): JsonPair => {
        if (f.kind === 'typename') return { key: f.alias, expr: textLiteral(f.typeName) };
        const call = `${op.fn}(${cell(f.name, f.visibleWhen)})`;
        // The reference engine decides by the column's type, not the aggregate's result type.
        const big = ctx.options.stringifyNumericTypes && isBigNumberType(f.type);
        return { key: f.alias, expr: big ? `(${call})::text` : call };
      });
      return { key: op.alias, expr: jsonObjectSql(fields), wholeRow };
    }
  }
}

/** `count(*)`, `count(c)`, `count(DISTINCT c)`; several columns (SQL given) count row values `(a, b)`. */
function countSql(cols: string[], distinct: boolean): string {
  if (cols.length === 0) return 'count(*)';
  const arg = cols.length === 1 ? cols[0]! : `(${cols.join(', ')})`;
  return `count(${distinct ? 'DISTINCT ' : ''}${arg})`;
}

