/**
 * Argument values as the IR builders see them: either GraphQL AST (a literal that may hold
 * variables) or plain JSON (a variable's value, or a permission filter from metadata).
 *
 * The one rule that keeps plans shareable: a variable standing at a scalar leaf stays a
 * `{kind: 'variable'}` reference; a variable standing where its value decides the statement's
 * shape (an object, a list of objects, an enum that picks an operator) is read through
 * `ctx.readVariable`, which the executor records as part of the plan-cache key.
 */
import { Kind, type ValueNode } from 'graphql';
import type { PlanContext } from '../schema-draft.js';
import type { TypedValueIR, ValueIR } from '../ir.js';
import { EngineError } from '../../errors.js';

export type Input = { kind: 'ast'; node: ValueNode } | { kind: 'json'; value: unknown };

export const astInput = (node: ValueNode): Input => ({ kind: 'ast', node });
export const jsonInput = (value: unknown): Input => ({ kind: 'json', value });

/** Null when plain JSON is read (permission filters): reading a variable is then a bug. */
export type MaybeCtx = PlanContext | null;

export const validationError = (message: string, path: string): EngineError =>
  new EngineError('validation-failed', message, { path });

function readVariable(ctx: MaybeCtx, name: string): unknown {
  if (!ctx) throw new EngineError('unexpected', `variable "$${name}" used outside a GraphQL request`);
  const v = ctx.readVariable(name);
  // An omitted variable without a default reads as null, which is what the reference engine does.
  return v === undefined ? null : v;
}

/** Replace a top-level variable by its (recorded) value; the value's shape is about to be used. */
export function deref(input: Input, ctx: MaybeCtx): Input {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    return jsonInput(readVariable(ctx, input.node.name.value));
  }
  return input;
}

/**
 * The value with a top-level variable read (once), or null when it is null. Callers go on with
 * the returned input, so a variable is never read twice.
 */
export function present(input: Input, ctx: MaybeCtx): Input | null {
  const d = deref(input, ctx);
  return isNull(d, ctx) ? null : d;
}

export function isNull(input: Input, ctx: MaybeCtx): boolean {
  const d = deref(input, ctx);
  return d.kind === 'ast' ? d.node.kind === Kind.NULL : d.value === null || d.value === undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of an input object, in the order written (order matters for `order_by`). */
export function objectEntries(input: Input, ctx: MaybeCtx, path: string, typeName: string): Array<[string, Input]> {
  const d = deref(input, ctx);
  if (d.kind === 'ast') {
    if (d.node.kind === Kind.OBJECT) return d.node.fields.map((f) => [f.name.value, astInput(f.value)]);
    if (d.node.kind === Kind.NULL) throw validationError(`unexpected null value for type '${typeName}'`, path);
    throw validationError(`expected an object for type '${typeName}'`, path);
  }
  if (isPlainObject(d.value)) return Object.entries(d.value).map(([k, v]) => [k, jsonInput(v)]);
  if (d.value === null || d.value === undefined) {
    throw validationError(`unexpected null value for type '${typeName}'`, path);
  }
  throw validationError(`expected an object for type '${typeName}'`, path);
}

/** The items of a list; a single value stands for a list of one, as GraphQL input coercion says. */
export function listItems(input: Input, ctx: MaybeCtx): Input[] {
  const d = deref(input, ctx);
  if (d.kind === 'ast') return d.node.kind === Kind.LIST ? d.node.values.map(astInput) : [d];
  return Array.isArray(d.value) ? d.value.map(jsonInput) : [d];
}

/** The whole value as JSON, reading every variable inside it (for values that shape the plan). */
export function toJson(input: Input, ctx: MaybeCtx): unknown {
  if (input.kind === 'json') return input.value;
  return astToJson(input.node, ctx);
}

function astToJson(node: ValueNode, ctx: MaybeCtx): unknown {
  switch (node.kind) {
    case Kind.NULL:
      return null;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.LIST:
      return node.values.map((v) => astToJson(v, ctx));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, astToJson(f.value, ctx)]));
    case Kind.VARIABLE:
      return readVariable(ctx, node.name.value);
  }
}

/** How to read one leaf value. */
export interface LeafSpec {
  dbType: string;
  array?: boolean;
  /** GraphQL type as written in messages, e.g. `Int`. */
  graphqlType: string;
  /** For enum-table columns: GraphQL enum value name → database value. */
  enumValues?: ReadonlyMap<string, string>;
  /** Permission filters: strings naming a session variable become session values. */
  sessionVariables?: boolean;
  /** Accept an explicit null (permission filters; `_has_key`). */
  nullable?: boolean;
  /** Numeric literals stay text (`ScalarInfo.keepsNumericText`: the type is wider than a JS number). */
  keepsNumericText?: boolean;
}

/** `X-Svc-*` (any case), or the legacy `REQ_USER_ID`, which the reference reads as `x-svc-user-id`. */
const isSessionVariable = (v: unknown): v is string =>
  typeof v === 'string' && (v.toLowerCase().startsWith('x-svc-') || v.toLowerCase() === 'req_user_id');
const sessionName = (v: string): string => (v.toLowerCase() === 'req_user_id' ? 'x-svc-user-id' : v.toLowerCase());

/** Turn a scalar (or scalar-list) leaf into a typed IR value. */
export function leafValue(input: Input, ctx: MaybeCtx, spec: LeafSpec, path: string): TypedValueIR {
  const typed = (value: ValueIR): TypedValueIR =>
    spec.array ? { value, dbType: spec.dbType, array: true } : { value, dbType: spec.dbType };

  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    const name = input.node.name.value;
    // Enum names that differ from the stored values need mapping, which only a read value allows.
    if (!spec.enumValues || enumNamesAreValues(spec.enumValues)) return typed({ kind: 'variable', name, path: [] });
  }
  const value = present(input, ctx);
  if (!value) {
    if (!spec.nullable) throw validationError(`unexpected null value for type '${spec.graphqlType}'`, path);
    return typed({ kind: 'const', value: null });
  }
  if (spec.sessionVariables && value.kind === 'json' && isSessionVariable(value.value)) {
    return typed({ kind: 'session', name: sessionName(value.value) });
  }
  if (spec.array) {
    const items = listItems(value, ctx).map((item, i) => leafScalar(item, ctx, spec, `${path}[${i}]`));
    return typed({ kind: 'const', value: items });
  }
  return typed({ kind: 'const', value: leafScalar(value, ctx, spec, path) });
}

function leafScalar(input: Input, ctx: MaybeCtx, spec: LeafSpec, path: string): unknown {
  const d = deref(input, ctx);
  if (d.kind === 'json') {
    if (d.value === null && !spec.nullable) {
      throw validationError(`unexpected null value for type '${spec.graphqlType}'`, path);
    }
    return mapEnum(d.value, spec);
  }
  const node = d.node;
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return spec.keepsNumericText ? node.value : Number(node.value);
    case Kind.ENUM:
      return mapEnum(node.value, spec);
    case Kind.NULL:
      if (!spec.nullable) throw validationError(`unexpected null value for type '${spec.graphqlType}'`, path);
      return null;
    default:
      return mapEnum(astToJson(node, ctx), spec);
  }
}

function mapEnum(value: unknown, spec: LeafSpec): unknown {
  if (!spec.enumValues || typeof value !== 'string') return value;
  return spec.enumValues.get(value) ?? value;
}

function enumNamesAreValues(values: ReadonlyMap<string, string>): boolean {
  for (const [k, v] of values) if (k !== v) return false;
  return true;
}
