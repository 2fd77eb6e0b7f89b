/**
 * Mutations, as a short program run in the request's transaction (the SDK's planMutation): write the rows, learning their
 * keys from `OUTPUT INSERTED.<key> INTO` a table variable (an insert's identity values included;
 * an update finds, locks and writes its rows in that one statement), or, for a delete, find and
 * lock (UPDLOCK) them first; check the role's `check` over the written rows; and read the answer
 * back through the role's select filter (before a delete, after an insert or update).
 * Statements are compiled once (conditions and values marked as slots); the written rows' keys
 * join them per run as an `affected` condition: ONE parameter, a JSON array of key tuples read
 * with OPENJSON, so a mutation of many rows stays within SQL Server's 2,100 parameters.
 *
 * SQL Server has no ON CONFLICT: `on_conflict` inserts the row and, on a duplicate-key error
 * (2627/2601) naming the constraint asked for, updates the existing row (or does nothing); a
 * duplicate on another key stays an error, as PostgreSQL's ON CONFLICT ON CONSTRAINT would have
 * it. A failed statement does not end SQL Server's transaction (XACT_ABORT is off), so the
 * program carries on.
 */
import { type CompileOptions, CompiledMutationProgram, type MutationIR, type MutationPlanDialect, type NotNullColumn, planMutation } from '../../../../core/sdk/index.js';
import { conditions } from './bool-exp.js';
import { CompileContext } from './context.js';
import { quoteTable } from './quote.js';
import { affectedRowsSql } from './select.js';
import type { Slot } from './template.js';

export class MssqlCompiledMutation extends CompiledMutationProgram<Slot> {}

const dialect: MutationPlanDialect<CompileContext> = {
  conditions,
  affectedRows: affectedRowsSql,
  checkFailed: (table, a, affected, condition) => `SELECT TOP 1 1 AS [failed] FROM ${quoteTable(table)} AS ${a} WHERE ${affected} AND NOT (${condition})`,
};

export function compileMutation(ir: MutationIR, options: CompileOptions, notNull?: NotNullColumn): MssqlCompiledMutation {
  const ctx = new CompileContext(options, notNull);
  const program = planMutation(ctx, ir, dialect);
  return new MssqlCompiledMutation(ctx.slots.params, ctx.slots.slots, program, ir.errorPath);
}
