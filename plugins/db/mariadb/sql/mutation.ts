/**
 * Mutations. MariaDB has INSERT/DELETE ... RETURNING but no UPDATE ... RETURNING and no
 * ON CONFLICT ON CONSTRAINT, so a mutation is a short program run in the request's transaction
 * (the SDK's planMutation): find (and lock) the rows it writes by their key, write them, check
 * the role's `check` over the written rows, and read the answer back through the role's select
 * filter. Statements are compiled once (conditions and values marked as slots); the written
 * rows' keys join them per run as an `affected` condition, values still parameters.
 *
 * `on_conflict` inserts the row and, on a duplicate-key error naming the constraint asked for,
 * updates the existing row (or does nothing); a duplicate on another key stays an error, as
 * PostgreSQL's ON CONFLICT ON CONSTRAINT would have it.
 */
import { type CompileOptions, CompiledMutationProgram, type MutationIR, type MutationPlanDialect, planMutation } from '../../../../core/sdk/index.js';
import { conditions } from './bool-exp.js';
import { CompileContext } from './context.js';
import { quoteTable } from './quote.js';
import { affectedRowsSql } from './select.js';
import type { Slot } from './template.js';

export class MariaCompiledMutation extends CompiledMutationProgram<Slot> {}

const dialect: MutationPlanDialect<CompileContext> = {
  conditions,
  affectedRows: affectedRowsSql,
  checkFailed: (table, a, affected, condition) => `SELECT 1 AS failed FROM ${quoteTable(table)} AS ${a} WHERE ${affected} AND NOT (${condition}) LIMIT 1`,
};

export function compileMutation(ir: MutationIR, options: CompileOptions): MariaCompiledMutation {
  const ctx = new CompileContext(options);
  const program = planMutation(ctx, ir, dialect);
  return new MariaCompiledMutation(ctx.slots.params, ctx.slots.slots, program, ir.errorPath);
}
