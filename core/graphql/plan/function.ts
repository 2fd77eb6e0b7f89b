/**
 * Function calls → IR: the `args` object of a tracked function or computed field turned into
 * the call's arguments, the reference engine's way (`functionArgs` in its schema): every
 * argument in SQL order that has a value (given by the client, or the session/row ones) is passed
 * by position until the first one without; after that, arguments are passed by name, an
 * unnamed one cannot follow a gap ("Only last set of positional arguments can be omitted"), and
 * a missing one must have a default ("Non default arguments cannot be omitted"). An explicit
 * null is a value (SQL NULL).
 */
import type { FieldNode } from 'graphql';
import type { FunctionArgIR, FunctionArgValueIR, FunctionCallIR, RootFieldIR } from '../ir.js';
import type { MutationIR } from '../ir-mutation.js';
import type { ResolvedFunctionArg } from '../../schema-cache/model.js';
import type { DbRootFieldPlanner, PlanContext } from '../schema-draft.js';
import { EngineError } from '../../errors.js';
import { leafValue, objectEntries, present, validationError, type Input } from './input.js';
import { argumentsOf } from './selection.js';
import { buildAggregateSelect, buildSelect } from './select.js';
import type { FunctionArgView, FunctionView } from './view.js';

export const ARGS_FIELD = 'args';

/** The call of `fn` with the client's `args` (absent: none given). */
export function buildCall(
  fn: { schema: string; name: string },
  all: readonly ResolvedFunctionArg[],
  views: readonly FunctionArgView[],
  input: Input | undefined,
  argsType: string,
  ctx: PlanContext,
  path: string,
): FunctionCallIR {
  const given = new Map<string, FunctionArgValueIR>();
  const object = input ? present(input, ctx) : null;
  if (object) {
    const byField = new Map(views.map((v) => [v.arg.field, v] as const));
    for (const [key, value] of objectEntries(object, ctx, path, argsType)) {
      const v = byField.get(key);
      if (!v) throw validationError(`field '${key}' not found in type: '${argsType}'`, `${path}.${key}`);
      // A type from another schema is named `schema.type`; only built-in types keep literals as text.
      const spec = { dbType: v.dbType, graphqlType: v.graphqlType, nullable: true, keepsNumericText: v.dbType === v.arg.type && v.info.keepsNumericText };
      given.set(key, { kind: 'value', value: leafValue(value, ctx, spec, `${path}.${key}`) });
    }
  }
  const valueOf = (a: ResolvedFunctionArg): FunctionArgValueIR | undefined =>
    a.role === 'row' ? { kind: 'row' } : a.role === 'column' ? { kind: 'column', name: a.column! } : a.role === 'session' ? { kind: 'session', dbType: a.type } : given.get(a.field);

  const args: FunctionArgIR[] = [];
  let positional = true;
  for (const a of all) {
    const value = valueOf(a);
    if (value && positional) {
      args.push({ name: null, value });
      continue;
    }
    positional = false;
    if (!value) {
      if (!a.hasDefault) throw new EngineError('not-supported', 'Non default arguments cannot be omitted', { path });
      continue;
    }
    if (a.name === null) throw new EngineError('not-supported', 'Only last set of positional arguments can be omitted', { path });
    args.push({ name: a.name, value });
  }
  return { function: fn, args };
}

const rootPath = (field: FieldNode): string => `$.selectionSet.${field.alias?.value ?? field.name.value}`;

function callOf(fv: FunctionView, field: FieldNode, ctx: PlanContext, path: string): FunctionCallIR {
  const fn = fv.fn;
  const input = argumentsOf(field).get(ARGS_FIELD);
  return buildCall(fn.function, fn.args, fv.args, input, fn.argsTypeName, ctx, `${path}.args.${ARGS_FIELD}`);
}

export function planFunctionSelect(fv: FunctionView, field: FieldNode, ctx: PlanContext): RootFieldIR {
  const path = rootPath(field);
  const select = { ...buildSelect(fv.target, field, ctx, path), function: callOf(fv, field, ctx, path) };
  return { kind: 'select', source: fv.target.source, select, single: !fv.fn.returnsSet };
}

export function planFunctionAggregate(fv: FunctionView, field: FieldNode, ctx: PlanContext): RootFieldIR {
  const path = rootPath(field);
  const aggregate = { ...buildAggregateSelect(fv.target, field, ctx, path), function: callOf(fv, field, ctx, path) };
  return { kind: 'aggregate', source: fv.target.source, aggregate };
}

/** A VOLATILE function exposed as a mutation: the same select, run in the mutation transaction. */
export function planFunctionMutation(fv: FunctionView, field: FieldNode, ctx: PlanContext): MutationIR {
  const ir = planFunctionSelect(fv, field, ctx);
  if (ir.kind !== 'select') throw new EngineError('unexpected', 'a function mutation planned as an aggregate');
  return { kind: 'function', source: ir.source, select: ir.select, single: ir.single, errorPath: '$' };
}

export function functionPlanner(fv: FunctionView, kind: 'query' | 'aggregate' | 'mutation'): DbRootFieldPlanner {
  const source = fv.target.source;
  if (kind === 'mutation') {
    return {
      kind: 'db',
      source,
      buildIR: () => {
        throw new EngineError('unexpected', 'a mutation root field was planned as a query');
      },
      buildMutationIR: (field, _parentType, ctx) => planFunctionMutation(fv, field, ctx),
    };
  }
  const plan = kind === 'query' ? planFunctionSelect : planFunctionAggregate;
  return { kind: 'db', source, buildIR: (field, _parentType, ctx) => plan(fv, field, ctx) };
}
