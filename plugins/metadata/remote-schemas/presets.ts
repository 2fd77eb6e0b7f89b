/**
 * `@preset(value, static)` of a role's restricted remote schema (Document 1 §2.9 rules 6-9):
 * where presets sit (arguments, input-object fields), and their values for one request. A string
 * starting `x-svc-` is a session variable unless `static: true`; the session's text is coerced
 * to the argument's scalar type.
 */
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  valueFromASTUntyped,
  type GraphQLInputType,
  type GraphQLSchema,
  type ConstDirectiveNode,
} from 'graphql';
import { EngineError } from '../../../core/sdk/index.js';

export type Preset = { kind: 'static'; value: unknown } | { kind: 'session'; name: string };

export interface PresetIndex {
  /** `Type.field` (original names) → argument → preset. */
  args: Map<string, Map<string, Preset>>;
  /** Input type (original name) → field → preset. */
  inputFields: Map<string, Map<string, Preset>>;
}

export function presetOf(directives: readonly ConstDirectiveNode[] | undefined): Preset | null {
  const d = directives?.find((x) => x.name.value === 'preset');
  if (!d) return null;
  const valueArg = d.arguments?.find((a) => a.name.value === 'value');
  const staticArg = d.arguments?.find((a) => a.name.value === 'static');
  const value = valueArg ? valueFromASTUntyped(valueArg.value) : null;
  const isStatic = staticArg ? valueFromASTUntyped(staticArg.value) === true : false;
  if (!isStatic && typeof value === 'string' && value.toLowerCase().startsWith('x-svc-')) return { kind: 'session', name: value.toLowerCase() };
  return { kind: 'static', value };
}

export function indexPresets(schema: GraphQLSchema): PresetIndex | null {
  const index: PresetIndex = { args: new Map(), inputFields: new Map() };
  let any = false;
  for (const t of Object.values(schema.getTypeMap())) {
    if (t.name.startsWith('__')) continue;
    if (isInputObjectType(t)) {
      for (const f of Object.values(t.getFields())) {
        const p = presetOf(f.astNode?.directives);
        if (!p) continue;
        any = true;
        if (!index.inputFields.has(t.name)) index.inputFields.set(t.name, new Map());
        index.inputFields.get(t.name)!.set(f.name, p);
      }
    } else if ('getFields' in t) {
      for (const f of Object.values((t as { getFields(): Record<string, { name: string; args?: ReadonlyArray<{ name: string; astNode?: { directives?: readonly ConstDirectiveNode[] } | null }> }> }).getFields())) {
        for (const a of f.args ?? []) {
          const p = presetOf(a.astNode?.directives);
          if (!p) continue;
          any = true;
          const key = `${t.name}.${f.name}`;
          if (!index.args.has(key)) index.args.set(key, new Map());
          index.args.get(key)!.set(a.name, p);
        }
      }
    }
  }
  return any ? index : null;
}

/** A preset's value for this request, typed as the argument (session values are text). */
export function presetValue(preset: Preset, type: GraphQLInputType, session: Readonly<Record<string, string>>): unknown {
  if (preset.kind === 'static') return preset.value;
  const raw = session[preset.name];
  if (raw === undefined) {
    throw new EngineError('not-found', `"${preset.name}" session variable expected, but not found`, { path: '$' });
  }
  return coerceSessionValue(raw, type, preset.name);
}

function coerceSessionValue(raw: string, type: GraphQLInputType, name: string): unknown {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw coercion(name, raw, String(type));
    }
    if (!Array.isArray(parsed)) throw coercion(name, raw, String(type));
    return parsed;
  }
  const named = getNamedType(t);
  if (isScalarType(named)) {
    switch (named.name) {
      case 'Int': {
        const n = Number(raw);
        if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n)) throw coercion(name, raw, named.name);
        return n;
      }
      case 'Float': {
        const n = Number(raw);
        if (raw.trim() === '' || !Number.isFinite(n)) throw coercion(name, raw, named.name);
        return n;
      }
      case 'Boolean':
        if (raw === 'true' || raw === 'false') return raw === 'true';
        throw coercion(name, raw, named.name);
      default:
        return raw;
    }
  }
  if (isEnumType(named)) {
    if (!named.getValue(raw)) throw coercion(name, raw, named.name);
    return raw;
  }
  throw new EngineError('coercion-error', `session variable "${name}" cannot preset a value of input type ${named.name}`, { path: '$' });
}

const coercion = (name: string, raw: string, type: string): EngineError =>
  new EngineError('coercion-error', `session variable "${name}" with value ${JSON.stringify(raw)} is not a valid ${type}`, { path: '$' });
