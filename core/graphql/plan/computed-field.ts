/**
 * Computed fields → IR. Selected, a scalar one is its function called with the row (and the
 * field's own `args`); one returning rows is a select over its function's rows, with the target
 * table's permission applied and the usual `where`, `order_by`, `limit`, `offset`, `distinct_on`.
 * In `where` and `order_by` only ones without client arguments appear (the reference's rule), so
 * their call is fixed per field: a scalar one is compared or ordered on, one returning rows is
 * filtered through (`where`) or aggregated (`<field>_aggregate` in `order_by`).
 */
import type { FieldIR, FunctionCallIR } from '../ir.js';
import type { ResolvedComputedField } from '../../schema-cache/model.js';
import type { PlanContext } from '../schema-draft.js';
import { ARGS_FIELD, buildCall } from './function.js';
import type { Input } from './input.js';
import { argumentsOf, type CollectedField } from './selection.js';
// A cycle with ./select.js (which plans computed fields among a row's fields): only called, never run at load.
import { buildSelect } from './select.js';
import type { ComputedFieldView } from './view.js';
import { EngineError } from '../../errors.js';

function callOf(cfv: ComputedFieldView, input: Input | undefined, ctx: PlanContext, path: string): FunctionCallIR {
  const cf = cfv.cf;
  return buildCall(cf.function, cf.args, cfv.args, input, cf.argsTypeName, ctx, path);
}

/** The call of a computed field taking no client arguments (for `where` and `order_by`). */
export function implicitCall(cfv: ComputedFieldView, ctx: PlanContext, path: string): FunctionCallIR {
  return callOf(cfv, undefined, ctx, path);
}

/**
 * The call of a computed field whose function takes only the row (and the session), as permission
 * expressions use them: every argument positional, no client input.
 */
export function rowCall(cf: ResolvedComputedField): FunctionCallIR {
  return {
    function: cf.function,
    args: cf.args.map((a) => ({
      name: null,
      value: a.role === 'session' ? { kind: 'session', dbType: a.type } : a.role === 'column' ? { kind: 'column', name: a.column! } : { kind: 'row' },
    })),
  };
}

export function computedFieldIR(cfv: ComputedFieldView, f: CollectedField, ctx: PlanContext, path: string): FieldIR {
  const input = argumentsOf(f).get(ARGS_FIELD);
  const call = callOf(cfv, input, ctx, `${path}.args.${ARGS_FIELD}`);
  const returns = cfv.cf.returns;
  if (returns.kind === 'scalar') {
    const field: FieldIR = { kind: 'computedScalar', alias: f.key, call, type: returns.type };
    return cfv.visibleWhen ? { ...field, visibleWhen: cfv.visibleWhen() } : field;
  }
  if (!cfv.target) throw new EngineError('unexpected', `computed field "${cfv.field}" has no visible table`, { path });
  return { kind: 'computedTable', alias: f.key, select: { ...buildSelect(cfv.target, f, ctx, path), function: call } };
}
