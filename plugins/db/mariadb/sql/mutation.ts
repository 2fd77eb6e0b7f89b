/**
 * Mutations. MariaDB has INSERT/DELETE ... RETURNING but no UPDATE ... RETURNING and no
 * ON CONFLICT ON CONSTRAINT, so a mutation is a short program run in the request's transaction:
 * find (and lock) the rows it writes by their key, write them, check the role's `check` over the
 * written rows, and read the answer back through the role's select filter. Statements are
 * compiled once (conditions and values marked as slots); the written rows' keys join them per
 * run as an `affected` condition, values still parameters.
 *
 * `on_conflict` inserts the row and, on a duplicate-key error naming the constraint asked for,
 * updates the existing row (or does nothing); a duplicate on another key stays an error, as
 * PostgreSQL's ON CONFLICT ON CONSTRAINT would have it.
 */
import {
  type BoolExpIR,
  type CompiledMutation,
  type CompileOptions,
  EngineError,
  type FieldIR,
  type InsertIR,
  type MutationIR,
  type MutationReturnIR,
  type TableRef,
  type UpdateIR,
  returningSelect,
} from '../../../../core/sdk/index.js';
import { andSql, conditionSql } from './bool-exp.js';
import { CompileContext } from './context.js';
import { checkName, quoteIdent, quoteTable } from './quote.js';
import { affectedRowsSql } from './select.js';
import type { Slot } from './template.js';
import { valueSql } from './values.js';

/** Marked SQL (slots not yet rendered): rendered per run, when the affected rows are known. */
export type Marked = string;

export interface InsertRowPlan {
  columns: string[];
  /** Slot index of each column's value, in `columns` order. */
  valueSlots: number[];
  /** Object relationships whose row is inserted first; the parent's mapped columns take its values. */
  before: RelationshipInsertPlan[];
  /** Rows inserted after the parent, their mapped columns taking the parent's values. */
  after: RelationshipInsertPlan[];
}

export interface RelationshipInsertPlan {
  /** (parent column, target column) pairs. */
  mapping: Array<[string, string]>;
  insert: InsertPlan;
}

export type InsertPlan = Extract<TablePlan, { kind: 'insert' }>;

export interface OnConflictPlan {
  constraint: string | null;
  /** `SET` items over alias `a` (marked); empty: DO NOTHING. */
  set: Marked[];
  /** The update filter over alias `a`, or 'TRUE'. */
  where: Marked;
  alias: string;
}

export interface ReturnPlan {
  output: MutationReturnIR['output'];
  /** The affected rows' JSON array, per `returning` field (by alias) or for the single row. */
  selects: Map<string, Marked>;
}

export type TablePlan =
  | { kind: 'insert'; table: TableRef; rows: InsertRowPlan[]; check: Marked | null; updateCheck: Marked | null; onConflict: OnConflictPlan | null }
  | { kind: 'update'; table: TableRef; alias: string; target: Marked; set: Marked[]; setColumns: string[]; check: Marked | null }
  | { kind: 'delete'; table: TableRef; alias: string; target: Marked };

export type MutationProgram =
  | { kind: 'one'; write: TablePlan; ret: ReturnPlan }
  | { kind: 'many'; writes: TablePlan[]; ret: ReturnPlan };

export class MariaCompiledMutation implements CompiledMutation {
  constructor(
    readonly params: CompiledMutation['params'],
    readonly slots: readonly Slot[],
    readonly program: MutationProgram,
    readonly errorPath: string,
  ) {}
}

const notSupported = (what: string): never => {
  throw new EngineError('not-supported', `the MariaDB kind does not support ${what}`);
};

function returnPlan(ctx: CompileContext, table: TableRef, ret: MutationReturnIR): ReturnPlan {
  const selects = new Map<string, Marked>();
  const add = (key: string, fields: FieldIR[]): void => {
    selects.set(key, affectedRowsSql(ctx, returningSelect(table, ret, fields)));
  };
  if (ret.output.kind === 'single') add('', ret.output.fields);
  else for (const f of ret.output.fields) if (f.kind === 'returning') add(f.alias, f.fields);
  return { output: ret.output, selects };
}

function insertPlan(ctx: CompileContext, ins: InsertIR): InsertPlan {
  const rows = ins.rows.map((r): InsertRowPlan => {
    const valueSlots: number[] = [];
    for (const c of r.columns) {
      valueSql(ctx, c.value);
      valueSlots.push(ctx.slots.slots.length - 1);
    }
    const rel = (order: 'before_parent' | 'after_parent'): RelationshipInsertPlan[] =>
      r.relationships.filter((x) => x.insertionOrder === order).map((x) => ({ mapping: x.mapping, insert: insertPlan(ctx, x.insert) }));
    return { columns: r.columns.map((c) => c.column), valueSlots, before: rel('before_parent'), after: rel('after_parent') };
  });
  const a = ctx.alias();
  let onConflict: OnConflictPlan | null = null;
  if (ins.onConflict) {
    const oc = ins.onConflict;
    // EXCLUDED.<column>: the proposed row's value, bound per row at run time (`{excluded:c}`).
    const set = oc.updateColumns.map((c) => `${a}.${quoteIdent(c)} = \u0002${checkName(c)}\u0002`);
    for (const p of oc.presets) set.push(`${a}.${quoteIdent(p.column)} = ${valueSql(ctx, p.value)}`);
    onConflict = { constraint: oc.constraint, set, where: conditionSql(ctx, oc.where, a), alias: a };
  }
  const checkAlias = ctx.alias();
  return {
    kind: 'insert',
    table: ins.table,
    rows,
    check: ins.check === null ? null : checkSql(ctx, ins.table, ins.check, checkAlias),
    updateCheck: ins.updateCheck === null ? null : checkSql(ctx, ins.table, ins.updateCheck, checkAlias),
    onConflict,
  };
}

function checkSql(ctx: CompileContext, table: TableRef, check: BoolExpIR, a: string): Marked {
  return `SELECT 1 AS failed FROM ${quoteTable(table)} AS ${a} WHERE ${ctx.slots.mark({ kind: 'affected', alias: a })} AND NOT (${conditionSql(ctx, check, a)}) LIMIT 1`;
}

function updatePlan(ctx: CompileContext, u: UpdateIR): TablePlan {
  const a = ctx.alias();
  const set: Marked[] = [];
  for (const op of u.ops) {
    const col = `${a}.${quoteIdent(op.column)}`;
    switch (op.op) {
      case '_set':
        set.push(`${col} = ${valueSql(ctx, op.value)}`);
        break;
      case '_inc':
        set.push(`${col} = ${col} + ${valueSql(ctx, op.value)}`);
        break;
      case '_mul':
        set.push(`${col} = ${col} * ${valueSql(ctx, op.value)}`);
        break;
      case '_default':
        set.push(`${col} = DEFAULT`);
        break;
      default:
        notSupported(`the ${op.op} update operator`);
    }
  }
  return {
    kind: 'update',
    table: u.table,
    alias: a,
    target: andSql([conditionSql(ctx, u.permissionFilter, a), conditionSql(ctx, u.where, a)]),
    set,
    setColumns: u.ops.map((o) => o.column),
    check: u.check === null ? null : checkSql(ctx, u.table, u.check, ctx.alias()),
  };
}

export function compileMutation(ir: MutationIR, options: CompileOptions): MariaCompiledMutation {
  const ctx = new CompileContext(options);
  let program: MutationProgram;
  switch (ir.kind) {
    case 'insert':
      program = { kind: 'one', write: insertPlan(ctx, ir.insert), ret: returnPlan(ctx, ir.insert.table, ir.returning) };
      break;
    case 'update':
      program = { kind: 'one', write: updatePlan(ctx, ir.update), ret: returnPlan(ctx, ir.update.table, ir.returning) };
      break;
    case 'updateMany': {
      const table = ir.updates[0]?.table;
      program = { kind: 'many', writes: ir.updates.map((u) => updatePlan(ctx, u)), ret: table ? returnPlan(ctx, table, ir.returning) : { output: ir.returning.output, selects: new Map() } };
      break;
    }
    case 'delete': {
      const a = ctx.alias();
      program = {
        kind: 'one',
        write: { kind: 'delete', table: ir.delete.table, alias: a, target: andSql([conditionSql(ctx, ir.delete.permissionFilter, a), conditionSql(ctx, ir.delete.where, a)]) },
        ret: returnPlan(ctx, ir.delete.table, ir.returning),
      };
      break;
    }
    case 'function':
      return notSupported('functions');
  }
  return new MariaCompiledMutation(ctx.slots.params, ctx.slots.slots, program, ir.errorPath);
}
