/**
 * Actions resolved once per schema-cache snapshot: the stored definition parsed, argument and
 * output types looked up in the custom types (with the reference's messages), the handler URL and
 * headers resolved from the environment, transforms compiled, and the roles allowed. An action
 * that fails is the inconsistent object `action <name>` and is left out of every schema.
 */
import {
  isEngineError,
  MissingEnvVarError,
  parseRequestTransform,
  parseResponseTransform,
  resolveEnvTemplate,
  resolveHeaders,
  type EnvLookup,
  type InconsistentObject,
  type SchemaCache,
  type WebhookSpec,
} from '../../../core/sdk/index.js';
import { parseType, type TypeNode } from 'graphql';
import { BUILT_IN_SCALARS, DATABASE_SCALARS, customTypesOf, type ResolvedCustomTypes, type ResolvedObjectType } from '../custom-types/resolve.js';
import { getNamedTypeName } from '../custom-types/type-node.js';
import { parseStoredAction, type ActionMetadata } from './definition.js';

export interface ResolvedAction {
  name: string;
  meta: ActionMetadata;
  outputType: TypeNode;
  output: ResolvedObjectType;
  arguments: Array<{ name: string; type: TypeNode; description?: string }>;
  webhook: WebhookSpec;
  /** Roles with a permission (admin always may). */
  roles: ReadonlySet<string>;
}

export interface ResolvedActions {
  actions: Map<string, ResolvedAction>;
  types: ResolvedCustomTypes;
  problems: InconsistentObject[];
}

export const actionObjectName = (name: string): string => `action ${name}`;

class ActionProblem extends Error {}

function resolveOne(raw: unknown, types: ResolvedCustomTypes, env: EnvLookup, rootFields: ReadonlySet<string>): ResolvedAction {
  const meta = parseStoredAction(raw, '$');
  const def = meta.definition;
  const arguments_ = def.arguments.map((a) => {
    const type = parseType(a.type);
    const base = getNamedTypeName(type);
    const known = BUILT_IN_SCALARS.has(base) || DATABASE_SCALARS.has(base) || types.scalars.has(base) || types.enums.has(base) || types.inputObjects.has(base);
    if (!known) throw new ActionProblem(`the type: "${base}" is not defined in custom types or it is not a scalar/enum/input_object`);
    return { name: a.name, type, ...(a.description !== undefined ? { description: a.description } : {}) };
  });
  const outputType = parseType(def.output_type);
  const output = types.objects.get(getNamedTypeName(outputType));
  if (!output) throw new ActionProblem(`the type: "${getNamedTypeName(outputType)}" is not an object type defined in custom types`);
  if (rootFields.has(`${def.type}:${meta.name}`)) throw new ActionProblem(`the ${def.type} root field "${meta.name}" already exists`);
  const webhook: WebhookSpec = {
    url: resolveEnvTemplate(def.handler, env),
    headers: resolveHeaders(def.headers, env),
    timeoutMs: def.timeout * 1000,
    ...(def.request_transform ? { requestTransform: parseRequestTransform(def.request_transform, '$.request_transform') } : {}),
    ...(def.response_transform ? { responseTransform: parseResponseTransform(def.response_transform, '$.response_transform') } : {}),
  };
  return { name: meta.name, meta, outputType, output, arguments: arguments_, webhook, roles: new Set((meta.permissions ?? []).map((p) => p.role)) };
}

/** Root fields the sources already use, as `query:<name>` / `mutation:<name>`. */
function tableRootFields(cache: SchemaCache): Set<string> {
  const out = new Set<string>();
  for (const s of cache.sources.values()) {
    for (const t of s.tables.values()) {
      const r = t.rootFields;
      for (const n of [r.select, r.select_by_pk, r.select_aggregate]) out.add(`query:${n}`);
      for (const n of [r.insert, r.insert_one, r.update, r.update_by_pk, r.delete, r.delete_by_pk]) out.add(`mutation:${n}`);
    }
  }
  return out;
}

export function resolveActions(cache: SchemaCache, env: EnvLookup): ResolvedActions {
  const types = customTypesOf(cache);
  const actions = new Map<string, ResolvedAction>();
  const problems: InconsistentObject[] = [];
  // Every table's root fields, only when there are actions to check against them.
  const raws = cache.metadata.actions ?? [];
  const roots = raws.length > 0 ? tableRootFields(cache) : new Set<string>();
  for (const raw of raws) {
    const name = typeof raw['name'] === 'string' ? raw['name'] : '';
    try {
      if (actions.has(name)) throw new ActionProblem(`action with name "${name}" already exists`);
      const resolved = resolveOne(raw, types, env, roots);
      actions.set(resolved.name, resolved);
    } catch (e) {
      if (!(e instanceof ActionProblem || e instanceof MissingEnvVarError || isEngineError(e))) throw e;
      problems.push({ type: 'action', name: actionObjectName(name), definition: raw, reason: `Inconsistent object: ${e.message}` });
    }
  }
  return { actions, types, problems };
}
