/**
 * Running the mutation root fields of one operation: grouped by source, each group handed to
 * its connection's `runMutations` as one batch (one transaction per source, fields in request
 * order), sources one after another in the order their first field appears. The JSON texts come
 * back keyed by step, for the executor to splice in root-field order.
 */
import type { BoolExpIR, FieldIR, TypedValueIR } from '../ir.js';
import { returningSelect, type MutationIR, type MutationReturnIR } from '../ir-mutation.js';
import type { Session } from '../../auth/session.js';
import { requireSessionVariables, sessionVariablesOfQuery } from '../plan/session-variables.js';
import type { RootStep } from './plan.js';
import type { RunOptions } from '../../db/contract.js';

type MutationStep = Extract<RootStep, { kind: 'mutation' }>;
export type BindParams = (params: readonly TypedValueIR[], variables: Record<string, unknown>, session: Session) => unknown[];

function collect(steps: readonly RootStep[], out: MutationStep[]): void {
  for (const s of steps) {
    if (s.kind === 'mutation') out.push(s);
    else if (s.kind === 'namespace') collect(s.steps, out);
  }
}

export async function runMutationSteps(
  steps: readonly RootStep[],
  variables: Record<string, unknown>,
  session: Session,
  sessionJson: string,
  bind: BindParams,
  run?: RunOptions,
): Promise<Map<RootStep, string>> {
  const all: MutationStep[] = [];
  collect(steps, all);
  const groups = new Map<string, MutationStep[]>();
  for (const s of all) {
    // Checked before anything runs: a missing variable would otherwise silently read as NULL.
    requireSessionVariables(s.sessionVariables, session);
    const group = groups.get(s.source);
    if (group) group.push(s);
    else groups.set(s.source, [s]);
  }
  const results = new Map<RootStep, string>();
  for (const group of groups.values()) {
    const conn = group[0]!.connection;
    const batch = group.map((s) => ({ mutation: s.mutation, values: bind(s.mutation.params, variables, session) }));
    const out = await conn.runMutations!(batch, sessionJson, run);
    group.forEach((s, i) => results.set(s, out[i] ?? 'null'));
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Session variables a mutation reads (presets, filters, checks)

function fromValue(v: TypedValueIR, out: Set<string>): void {
  if (v.value.kind === 'session') out.add(v.value.name.toLowerCase());
}

function fromBoolExp(e: BoolExpIR | null, out: Set<string>): void {
  if (!e) return;
  switch (e.kind) {
    case 'and':
    case 'or':
      for (const i of e.items) fromBoolExp(i, out);
      return;
    case 'not':
      fromBoolExp(e.item, out);
      return;
    case 'compare':
    case 'kindOperator':
      // An inherited role's hidden cell compared in `where` reads its condition's variables.
      if (e.lhs.kind !== 'cast' && e.lhs.visibleWhen) fromBoolExp(e.lhs.visibleWhen, out);
      if (e.kind === 'compare') fromValue(e.rhs, out);
      else for (const v of Object.values(e.args)) fromValue(v, out);
      return;
    case 'relationship':
    case 'exists':
    case 'computedTable':
      fromBoolExp(e.where, out);
      return;
    case 'aggregatePredicate':
      fromBoolExp(e.filter, out);
      fromValue(e.predicate.rhs, out);
      return;
    default:
      return;
  }
}

function fromInsert(ins: Extract<MutationIR, { kind: 'insert' }>['insert'], out: Set<string>): void {
  fromBoolExp(ins.check, out);
  fromBoolExp(ins.updateCheck, out);
  if (ins.onConflict) {
    fromBoolExp(ins.onConflict.where, out);
    for (const p of ins.onConflict.presets) fromValue(p.value, out);
  }
  for (const row of ins.rows) {
    for (const c of row.columns) fromValue(c.value, out);
    for (const r of row.relationships) fromInsert(r.insert, out);
  }
}

/** Every session variable the mutation's permission parts read, lower-cased. */
export function sessionVariablesOf(ir: MutationIR): string[] {
  const out = new Set<string>();
  switch (ir.kind) {
    case 'insert':
      fromInsert(ir.insert, out);
      break;
    case 'update':
    case 'updateMany':
      for (const u of ir.kind === 'update' ? [ir.update] : ir.updates) {
        fromBoolExp(u.permissionFilter, out);
        fromBoolExp(u.check, out);
        for (const o of u.ops) fromValue(o.value, out);
      }
      break;
    case 'delete':
      fromBoolExp(ir.delete.permissionFilter, out);
      break;
    case 'function':
      // A function's answer is a plain select over its rows.
      return sessionVariablesOfQuery({ kind: 'select', source: ir.source, select: ir.select, single: ir.single });
  }
  for (const name of returningSessionVariables(ir.source, ir.returning)) out.add(name);
  return [...out].sort();
}

/** What the answer reads: the select filter and, in nested relationships, their tables' filters. */
function returningSessionVariables(source: string, ret: MutationReturnIR): string[] {
  const out = ret.output;
  const fields: FieldIR[] =
    out.kind === 'single' ? out.fields : out.fields.flatMap((f) => (f.kind === 'returning' ? f.fields : []));
  const select = returningSelect({ schema: '', name: '' }, ret, fields);
  return sessionVariablesOfQuery({ kind: 'select', source, select, single: false });
}
