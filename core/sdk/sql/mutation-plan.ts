/**
 * Mutations as short programs, for SQL kinds that cannot write and answer in one statement (no
 * UPDATE .. RETURNING, no ON CONFLICT): find the rows a mutation writes by their key, write them,
 * check the role's `check` over the written rows, and read the answer back through the role's
 * select filter. This module compiles the program once per plan: every condition, SET item and
 * answer is marked text (slots not yet rendered), and the written rows' keys join them per run
 * as an `affected` slot (mutation-run.ts). The statements a program runs are the dialect's.
 */
import type { CompiledMutation } from '../../db/contract.js';
import type { BoolExpIR, FieldIR, SelectIR, TableRef, TypedValueIR } from '../../graphql/ir.js';
import { returningSelect, type InsertIR, type MutationIR, type MutationReturnIR, type UpdateIR } from '../../graphql/ir-mutation.js';
import type { BoolExpSql } from './bool-exp.js';
import type { SqlCompileContext } from './context.js';
import { excludedMarker } from './slots.js';

/** SQL with slot markers, rendered per run when the affected rows are known. */
export type Marked = string;

/** The slot standing for "the rows this statement wrote", expanded per run. */
export interface AffectedSlot {
  kind: 'affected';
  alias: string;
}

/** What planning needs of a kind's slot list. */
export interface MutationSlots {
  mark(slot: AffectedSlot): string;
  readonly slots: readonly unknown[];
}

export type MutationContext = SqlCompileContext<MutationSlots>;

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
export type UpdatePlan = Extract<TablePlan, { kind: 'update' }>;

export interface OnConflictPlan {
  constraint: string | null;
  /** `SET` items over alias `a` (marked); empty: DO NOTHING. */
  set: Marked[];
  /** The update filter over alias `a`, or the dialect's true condition. */
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

/** A compiled mutation: its program, and the slots its marked text refers to. Kinds subclass it, to know their own plans. */
export class CompiledMutationProgram<S> implements CompiledMutation {
  constructor(
    readonly params: TypedValueIR[],
    readonly slots: readonly S[],
    readonly program: MutationProgram,
    readonly errorPath: string,
  ) {}
}

/** What planning adds to the dialect of the kind's conditions (BoolExpSql), which it quotes and refuses with. */
export interface MutationPlanDialect<C extends MutationContext> {
  conditions: BoolExpSql<C>;
  /** The JSON array of the rows a statement wrote (`affected`, a marker over the select's alias), through `sel`'s filter. */
  affectedRows(ctx: C, sel: SelectIR): Marked;
  /** A statement giving a row when one of the `affected` rows of `table` (alias `a`) fails `condition`. */
  checkFailed(table: TableRef, a: string, affected: string, condition: string): Marked;
}

/** The program of `ir`, its slots collected in `ctx`. */
export function planMutation<C extends MutationContext>(ctx: C, ir: MutationIR, dialect: MutationPlanDialect<C>): MutationProgram {
  const { quoteIdent, notSupported, value: valueSql } = dialect.conditions.dialect;
  const d = { ...dialect, quoteIdent, notSupported, valueSql };
  const cond = (e: BoolExpIR | null, alias: string): Marked => d.conditions.over(ctx, e, alias);

  const returnPlan = (table: TableRef, ret: MutationReturnIR): ReturnPlan => {
    const selects = new Map<string, Marked>();
    const add = (key: string, fields: FieldIR[]): void => {
      selects.set(key, d.affectedRows(ctx, returningSelect(table, ret, fields)));
    };
    if (ret.output.kind === 'single') add('', ret.output.fields);
    else for (const f of ret.output.fields) if (f.kind === 'returning') add(f.alias, f.fields);
    return { output: ret.output, selects };
  };

  const checkSql = (table: TableRef, check: BoolExpIR, a: string): Marked => d.checkFailed(table, a, ctx.slots.mark({ kind: 'affected', alias: a }), cond(check, a));

  const insertPlan = (ins: InsertIR): InsertPlan => {
    const rows = ins.rows.map((r): InsertRowPlan => {
      const valueSlots: number[] = [];
      for (const c of r.columns) {
        d.valueSql(ctx, c.value);
        valueSlots.push(ctx.slots.slots.length - 1);
      }
      const rel = (order: 'before_parent' | 'after_parent'): RelationshipInsertPlan[] =>
        r.relationships.filter((x) => x.insertionOrder === order).map((x) => ({ mapping: x.mapping, insert: insertPlan(x.insert) }));
      return { columns: r.columns.map((c) => c.column), valueSlots, before: rel('before_parent'), after: rel('after_parent') };
    });
    const a = ctx.alias();
    let onConflict: OnConflictPlan | null = null;
    if (ins.onConflict) {
      const oc = ins.onConflict;
      const set = oc.updateColumns.map((c) => `${a}.${d.quoteIdent(c)} = ${excludedMarker(c)}`);
      for (const p of oc.presets) set.push(`${a}.${d.quoteIdent(p.column)} = ${d.valueSql(ctx, p.value)}`);
      onConflict = { constraint: oc.constraint, set, where: cond(oc.where, a), alias: a };
    }
    const checkAlias = ctx.alias();
    return {
      kind: 'insert',
      table: ins.table,
      rows,
      check: ins.check === null ? null : checkSql(ins.table, ins.check, checkAlias),
      updateCheck: ins.updateCheck === null ? null : checkSql(ins.table, ins.updateCheck, checkAlias),
      onConflict,
    };
  };

  const updatePlan = (u: UpdateIR): TablePlan => {
    const a = ctx.alias();
    const set: Marked[] = [];
    for (const op of u.ops) {
      const col = `${a}.${d.quoteIdent(op.column)}`;
      switch (op.op) {
        case '_set':
          set.push(`${col} = ${d.valueSql(ctx, op.value)}`);
          break;
        case '_inc':
          set.push(`${col} = ${col} + ${d.valueSql(ctx, op.value)}`);
          break;
        case '_mul':
          set.push(`${col} = ${col} * ${d.valueSql(ctx, op.value)}`);
          break;
        case '_default':
          set.push(`${col} = DEFAULT`);
          break;
        default:
          d.notSupported(`the ${op.op} update operator`);
      }
    }
    return {
      kind: 'update',
      table: u.table,
      alias: a,
      target: d.conditions.and([cond(u.permissionFilter, a), cond(u.where, a)]),
      set,
      setColumns: u.ops.map((o) => o.column),
      check: u.check === null ? null : checkSql(u.table, u.check, ctx.alias()),
    };
  };

  switch (ir.kind) {
    case 'insert':
      return { kind: 'one', write: insertPlan(ir.insert), ret: returnPlan(ir.insert.table, ir.returning) };
    case 'update':
      return { kind: 'one', write: updatePlan(ir.update), ret: returnPlan(ir.update.table, ir.returning) };
    case 'updateMany': {
      const table = ir.updates[0]?.table;
      return { kind: 'many', writes: ir.updates.map(updatePlan), ret: table ? returnPlan(table, ir.returning) : { output: ir.returning.output, selects: new Map() } };
    }
    case 'delete': {
      const a = ctx.alias();
      return {
        kind: 'one',
        write: { kind: 'delete', table: ir.delete.table, alias: a, target: d.conditions.and([cond(ir.delete.permissionFilter, a), cond(ir.delete.where, a)]) },
        ret: returnPlan(ir.delete.table, ir.returning),
      };
    }
    case 'function':
      return d.notSupported('functions');
  }
}
