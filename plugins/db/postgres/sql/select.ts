/**
 * A list, single-row or object-relationship level:
 *
 *   list:   coalesce(json_agg(<row> ORDER BY <keys>), '[]')
 *   single: coalesce((json_agg(<row> ORDER BY <keys>) -> 0), 'null')
 *   object: <row>, from a base limited to one row (no aggregate: measured ~20% cheaper than
 *           json_agg(...) -> 0 at 2000 parent rows, and a missing row is NULL via the LEFT JOIN)
 */
import type { SelectIR } from '../../../../core/sdk/index.js';
import { type JoinSpec, baseSelect } from './base.js';
import type { CompileContext } from './context.js';
import { fieldsRow } from './fields.js';

export type SelectShape = 'list' | 'single' | 'object';

/** One level as `SELECT <expr> FROM <from>`, for the caller to wrap. */
export interface LevelSql {
  expr: string;
  from: string;
}

/** `fromSql` reads the level's rows from another FROM source (a mutation's result CTE). */
export function selectLevel(ctx: CompileContext, sel: SelectIR, join: JoinSpec | null, shape: SelectShape, fromSql?: string): LevelSql {
  const alias = ctx.alias();
  const needed = new Set<string>();
  const row = fieldsRow(ctx, sel.fields, alias, needed);
  const options = {
    singleRow: shape === 'object',
    exposeOrder: shape !== 'object',
    wholeRow: row.wholeRow,
    ...(fromSql !== undefined ? { fromSql } : {}),
  };
  const base = baseSelect(ctx, sel, alias, needed, join, options);
  const from = base.from + row.laterals;
  switch (shape) {
    case 'list':
      return { expr: `coalesce(json_agg(${row.expr}${base.aggOrder}), '[]')`, from };
    case 'single':
      return { expr: `coalesce((json_agg(${row.expr}${base.aggOrder}) -> 0), 'null')`, from };
    case 'object':
      return { expr: row.expr, from };
  }
}
