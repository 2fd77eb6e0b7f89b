/**
 * Mutation IR → a `PgCompiledMutation` program (./program.ts).
 *
 * Fewest round trips that keep the reference engine's semantics:
 *   - an update, a delete, or an insert without relationship inserts is ONE statement that
 *     writes and answers, unless the answer reads relationships;
 *   - then (and for nested inserts) the answer is a second statement over the written rows
 *     (passed back as JSON), so it sees every write, as the reference's separate select does;
 *   - a nested insert runs like the reference's: per row, object relationships whose key is on
 *     the row first, then the row, then the rows referring to it, each level one statement
 *     (all rows of a relationship without further nesting in one multi-row INSERT). Putting the
 *     levels into one statement's CTEs would hide each level's rows from the next level's
 *     permission checks and from upserts of the same rows (one snapshot per statement).
 */
import {
  type InsertIR,
  type MutationIR,
  type MutationReturnIR,
  qualifiedTableName,
  type TableRef,
  type UpdateIR,
} from '../../../../../core/sdk/index.js';
import type { PgCompileOptions } from '../context.js';
import { quoteTable } from '../quote.js';
import { rootFieldSql } from '../compile.js';
import { emptyOutputJson, outputSql, readsRelationships } from './output.js';
import { PgCompiledMutation, type PgInsertNode, type PgInsertRow, type PgProgram, type PgWrite } from './program.js';
import { ProgramBuilder, type StatementContext } from './statement.js';
import { COUNT_SQL, RESULT, deleteDml, directWriteSql, dmlChecksRows, insertDml, slotColumnSql, updateDml, writeSql } from './write.js';

type Dml = (ctx: StatementContext) => string;

export function compileMutation(ir: MutationIR, options: PgCompileOptions): PgCompiledMutation {
  const b = new ProgramBuilder(options);
  const program = compileProgram(b, ir);
  return new PgCompiledMutation(b.params, program, b.slotCount);
}

function compileProgram(b: ProgramBuilder, ir: MutationIR): PgProgram {
  switch (ir.kind) {
    case 'insert':
      return insertProgram(b, ir.insert, ir.returning, ir.errorPath);
    case 'update':
      return updateProgram(b, ir.update, ir.returning, ir.errorPath);
    case 'updateMany':
      return { kind: 'many', items: ir.updates.map((u) => updateProgram(b, u, ir.returning, ir.errorPath)) };
    case 'delete':
      return writeProgram(b, ir.delete.table, ir.returning, ir.errorPath, (ctx) => deleteDml(ctx, ir.delete));
    case 'function': {
      // The read compiler's statement, run in the mutation's transaction like the writes.
      const ctx = b.context();
      const text = rootFieldSql(ctx, { kind: 'select', source: ir.source, select: ir.select, single: ir.single });
      return { kind: 'read', statement: b.finish(ctx, text), path: ir.errorPath };
    }
  }
}

function updateProgram(b: ProgramBuilder, u: UpdateIR, ret: MutationReturnIR, path: string): PgProgram {
  if (u.ops.length === 0) return { kind: 'constant', json: emptyOutputJson(ret.output) };
  return writeProgram(b, u.table, ret, path, (ctx) => updateDml(ctx, u));
}

function writeProgram(b: ProgramBuilder, table: TableRef, ret: MutationReturnIR, path: string, dml: Dml): PgProgram {
  if (!readsRelationships(ret.output)) {
    const ctx = b.context();
    const write = dml(ctx);
    const text = directWriteSql(write, outputSql(ctx, table, ret, RESULT, () => COUNT_SQL), dmlChecksRows(write));
    return { kind: 'direct', statement: b.finish(ctx, text), path };
  }
  const ctx = b.context();
  return staged(b, table, ret, { kind: 'statement', statement: b.finish(ctx, writeSql(dml(ctx))), path });
}

function staged(b: ProgramBuilder, table: TableRef, ret: MutationReturnIR, write: PgWrite): PgProgram {
  const rowsSlot = b.newSlot();
  const countSlot = b.newSlot();
  const ctx = b.context();
  const rows = `SELECT * FROM json_populate_recordset(NULL::${quoteTable(table)}, ${ctx.slot(rowsSlot, 'json')})`;
  const text = `WITH ${RESULT} AS (${rows}) SELECT (${outputSql(ctx, table, ret, RESULT, () => ctx.slot(countSlot, 'int8'))})::text`;
  return { kind: 'staged', write, output: b.finish(ctx, text), rowsSlot, countSlot };
}

function insertProgram(b: ProgramBuilder, ins: InsertIR, ret: MutationReturnIR, path: string): PgProgram {
  if (ins.rows.length === 0) return { kind: 'constant', json: emptyOutputJson(ret.output) };
  if (!ins.rows.some((r) => r.relationships.length > 0)) {
    return writeProgram(b, ins.table, ret, path, (ctx) => insertDml(ctx, ins, ins.rows.map((row) => ({ row, determined: new Map() }))));
  }
  return staged(b, ins.table, ret, { kind: 'insert', node: insertNode(b, ins, path, null) });
}

/** The row a slot holds, and which of its columns give which columns of the rows inserted next. */
interface ParentRef {
  slot: number;
  table: TableRef;
  /** (parent column, child column) pairs. */
  mapping: Array<[string, string]>;
}

const tableText = (t: TableRef): string => `"${qualifiedTableName(t)}"`;

function fromParent(ctx: StatementContext, parent: ParentRef | null): Map<string, string> {
  const m = new Map<string, string>();
  for (const [theirs, ours] of parent?.mapping ?? []) m.set(ours, slotColumnSql(ctx, parent!.slot, parent!.table, theirs));
  return m;
}

function insertNode(b: ProgramBuilder, ins: InsertIR, path: string, parent: ParentRef | null): PgInsertNode {
  const table = tableText(ins.table);
  if (!ins.rows.some((r) => r.relationships.length > 0)) {
    const ctx = b.context();
    const determined = fromParent(ctx, parent);
    const text = writeSql(insertDml(ctx, ins, ins.rows.map((row) => ({ row, determined }))));
    return { kind: 'flat', statement: b.finish(ctx, text), table, path };
  }
  const rows = ins.rows.map((row): PgInsertRow => {
    const before = row.relationships
      .filter((r) => r.insertionOrder === 'before_parent')
      .map((r) => ({ rel: r, node: insertNode(b, r.insert, `${path}.${r.name}.data`, null), slot: b.newSlot() }));
    const ctx = b.context();
    const determined = fromParent(ctx, parent);
    for (const { rel, slot } of before) {
      for (const [ours, theirs] of rel.mapping) determined.set(ours, slotColumnSql(ctx, slot, rel.insert.table, theirs));
    }
    const statement = b.finish(ctx, writeSql(insertDml(ctx, ins, [{ row, determined }])));
    const slot = b.newSlot();
    const after = row.relationships
      .filter((r) => r.insertionOrder === 'after_parent')
      .map((r) => insertNode(b, r.insert, `${path}.${r.name}.data`, { slot, table: ins.table, mapping: r.mapping }));
    return { before: before.map(({ rel, node, slot: s }) => ({ name: rel.name, node, slot: s })), statement, slot, after };
  });
  return { kind: 'perRow', rows, table, path };
}
