/**
 * One root field → one statement returning one row with one column, `root`: the field's JSON as
 * text (so the driver hands over the database's bytes untouched).
 */
import type { CompiledStatement, RootFieldIR } from '../../../../core/sdk/index.js';
import { aggregateLevel } from './aggregate.js';
import { CompileContext, type PgCompileOptions } from './context.js';
import { selectLevel } from './select.js';
import { statementName } from './statement-name.js';

export function compileRootField(ir: RootFieldIR, options: PgCompileOptions): CompiledStatement {
  const ctx = new CompileContext(options);
  let text = rootFieldSql(ctx, ir);
  // $1 (the session) is always sent; a parameter the text never mentions has no type the
  // server could infer. The planner folds `x OR true` away, so this costs nothing per row.
  if (!ctx.usesSession) text += ' WHERE ($1::text IS NULL OR true)';
  return { text, params: ctx.params, name: statementName(text) };
}

/** The statement's text in `ctx` (also used inside a mutation program, for VOLATILE functions). */
export function rootFieldSql(ctx: CompileContext, ir: RootFieldIR): string {
  const level =
    ir.kind === 'aggregate' ? aggregateLevel(ctx, ir.aggregate, null) : selectLevel(ctx, ir.select, null, ir.single ? 'single' : 'list');
  return `SELECT (${level.expr})::text AS "root" FROM ${level.from}`;
}
