/**
 * A role's restricted remote schema (add_remote_schema_permissions): the SDL must describe a
 * subset of the upstream schema (Document 1 §2.9 rules 4-9). Every problem is collected and
 * reported at once, in the reference engine's words, as one `validation-failed` error.
 */
import {
  buildASTSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isRequiredArgument,
  isRequiredInputField,
  isScalarType,
  isUnionType,
  parse,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { EngineError } from '../../../core/sdk/index.js';
import { presetOf } from './presets.js';

const q = (s: string): string => `"${s}"`;
const list = (items: readonly string[]): string =>
  items.length <= 1 ? items.map(q).join('') : `${items.slice(0, -1).map(q).join(', ')} and ${q(items[items.length - 1]!)}`;

const KIND_NAME = (t: GraphQLNamedType): string =>
  isObjectType(t) ? 'Object' : isInterfaceType(t) ? 'Interface' : isUnionType(t) ? 'Union' : isEnumType(t) ? 'Enum' : isInputObjectType(t) ? 'Input object' : 'Scalar';

const PRESET_DIRECTIVE = 'directive @preset(value: String, static: Boolean) on INPUT_FIELD_DEFINITION | ARGUMENT_DEFINITION';

/** Parses and checks a role's SDL against the upstream schema; returns the role's view schema. */
export function restrictedSchema(sdl: string, upstream: GraphQLSchema, path: string): GraphQLSchema {
  let doc: DocumentNode;
  try {
    doc = parse(sdl);
  } catch (e) {
    throw new EngineError('parse-failed', `invalid GraphQL SDL: ${(e as Error).message}`, { path });
  }
  const reasons: string[] = [];
  for (const def of doc.definitions) {
    if ('directives' in def && def.kind !== 'DirectiveDefinition') {
      if (def.directives?.some((d) => d.name.value === 'preset')) reasons.push('Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION');
    }
  }
  const hasPresetDirective = doc.definitions.some((d) => d.kind === 'DirectiveDefinition' && d.name.value === 'preset');
  let schema: GraphQLSchema;
  try {
    const full = hasPresetDirective ? doc : { ...doc, definitions: [...doc.definitions, ...parse(PRESET_DIRECTIVE).definitions] };
    schema = buildASTSchema(full, { assumeValidSDL: true });
  } catch (e) {
    throw new EngineError('validation-failed', `validation for the given role-based schema failed for the following reasons:\n • ${(e as Error).message}\n`, { path });
  }
  if (!schema.getQueryType()) reasons.push('query root does not exist in the schema definition');
  for (const t of Object.values(schema.getTypeMap())) {
    if (t.name.startsWith('__') || (isScalarType(t) && ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name))) continue;
    checkType(t, upstream, schema, reasons);
  }
  if (reasons.length > 0) {
    throw new EngineError(
      'validation-failed',
      `validation for the given role-based schema failed for the following reasons:\n${reasons.map((r) => ` • ${r}\n`).join('')}`,
      { path },
    );
  }
  return schema;
}

function rootName(schema: GraphQLSchema, t: GraphQLNamedType): string | null {
  if (schema.getQueryType() === t) return 'query';
  if (schema.getMutationType() === t) return 'mutation';
  if (schema.getSubscriptionType() === t) return 'subscription';
  return null;
}

function checkType(t: GraphQLNamedType, upstream: GraphQLSchema, own: GraphQLSchema, reasons: string[]): void {
  const root = rootName(own, t);
  const up =
    root === 'query' ? upstream.getQueryType() : root === 'mutation' ? upstream.getMutationType() : root === 'subscription' ? upstream.getSubscriptionType() : upstream.getType(t.name);
  if (!up || KIND_NAME(up) !== KIND_NAME(t)) {
    reasons.push(isScalarType(t) ? `scalar ${q(t.name)} does not exist in the upstream remote schema` : `${KIND_NAME(t)} ${q(t.name)} does not exist in the upstream remote schema`);
    return;
  }
  if ((isObjectType(t) || isInterfaceType(t)) && (isObjectType(up) || isInterfaceType(up))) {
    const upInterfaces = new Set(up.getInterfaces().map((i) => i.name));
    const missing = t.getInterfaces().map((i) => i.name).filter((n) => !upInterfaces.has(n));
    if (missing.length > 0) {
      reasons.push(`${isObjectType(t) ? 'object' : 'interface'} ${q(t.name)} is trying to implement the following interfaces that do not exist in the corresponding upstream remote object: ${list(missing)}`);
    }
    const upFields = up.getFields();
    for (const f of Object.values(t.getFields())) {
      const uf = upFields[f.name];
      if (!uf) {
        reasons.push(`field ${q(f.name)} does not exist in the ${q(KIND_NAME(t))}: ${q(t.name)}`);
        continue;
      }
      if (String(f.type) !== String(uf.type)) reasons.push(`expected type of ${q(f.name)}(${q(KIND_NAME(t))}) to be ${String(uf.type)} but received ${String(f.type)}`);
      checkArguments(f, uf, reasons, own);
    }
  } else if (isUnionType(t) && isUnionType(up)) {
    const members = new Set(up.getTypes().map((m) => m.name));
    const missing = t.getTypes().map((m) => m.name).filter((n) => !members.has(n));
    if (missing.length > 0) reasons.push(`union ${q(t.name)} contains members which do not exist in the members of the remote schema union :${list(missing)}`);
  } else if (isEnumType(t) && isEnumType(up)) {
    const values = new Set(up.getValues().map((v) => v.name));
    const missing = t.getValues().map((v) => v.name).filter((n) => !values.has(n));
    if (missing.length > 0) reasons.push(`enum ${q(t.name)} contains the following enum values that do not exist in the corresponding upstream remote enum: ${list(missing)}`);
  } else if (isInputObjectType(t) && isInputObjectType(up)) {
    const upFields = up.getFields();
    const given = t.getFields();
    for (const f of Object.values(given)) {
      const uf = upFields[f.name];
      if (!uf) {
        reasons.push(`input argument ${q(f.name)} does not exist in the input object:${q(t.name)}`);
        continue;
      }
      if (String(f.type) !== String(uf.type)) reasons.push(`expected type of ${q(f.name)}(${q('Input object')}) to be ${String(uf.type)} but received ${String(f.type)}`);
      checkPreset(f, f.type, `${t.name}.${f.name}`, reasons);
    }
    const missing = Object.values(upFields).filter((f) => isRequiredInputField(f) && !given[f.name]).map((f) => f.name);
    if (missing.length > 0) reasons.push(`field: ${q(t.name)} expects the following non nullable arguments to be present: ${list(missing)}`);
  }
}

function checkArguments(f: GraphQLField<unknown, unknown>, uf: GraphQLField<unknown, unknown>, reasons: string[], own: GraphQLSchema): void {
  const upArgs = new Map(uf.args.map((a) => [a.name, a] as const));
  for (const a of f.args) {
    const ua = upArgs.get(a.name);
    if (!ua) {
      reasons.push(`input argument ${q(a.name)} does not exist in the input object:${q(f.name)}`);
      continue;
    }
    if (String(a.type) !== String(ua.type)) reasons.push(`expected type of ${q(a.name)}(${q('Argument')}) to be ${String(ua.type)} but received ${String(a.type)}`);
    checkPreset(a, a.type, `${f.name}.${a.name}`, reasons, own);
  }
  const given = new Set(f.args.map((a) => a.name));
  const missing = uf.args.filter((a) => isRequiredArgument(a) && !given.has(a.name)).map((a) => a.name);
  if (missing.length > 0) reasons.push(`field: ${q(f.name)} expects the following non nullable arguments to be present: ${list(missing)}`);
}

function checkPreset(
  node: Pick<GraphQLArgument, 'astNode'>,
  type: GraphQLInputType,
  at: string,
  reasons: string[],
  _own?: GraphQLSchema,
): void {
  const preset = presetOf(node.astNode?.directives);
  if (!preset) return;
  const bare = isNonNullType(type) ? type.ofType : type;
  if (preset.kind === 'session' && isListType(bare)) {
    reasons.push(`illegal preset value at ${q(at)}. Session arguments can only be set for singular values`);
    return;
  }
  const named = getNamedType(type);
  if (preset.kind === 'session' && isInputObjectType(named)) {
    reasons.push(`expected ${q(named.name)} to be a scalar or an enum to take a session variable preset`);
    return;
  }
  if (preset.kind !== 'static') return;
  const v = preset.value;
  if (isEnumType(named) && (typeof v !== 'string' || !named.getValue(v))) reasons.push(`${q(String(v))} not found in the enum: ${q(named.name)}`);
  if (isInputObjectType(named) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const fields = named.getFields();
    for (const k of Object.keys(v)) if (!fields[k]) reasons.push(`${q(k)} does not exist in the input object ${q(named.name)}`);
  }
}
