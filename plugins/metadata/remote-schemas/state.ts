/**
 * Remote schemas of one schema-cache snapshot: each definition checked, introspected (reusing an
 * earlier introspection of the same definition unless a reload asked otherwise), customized,
 * checked for clashes with the database root fields, types and other remote schemas, and its
 * role permissions validated. Whatever fails is an inconsistent object; the rest serves.
 */
import { GraphQLObjectType, GraphQLSchema, GraphQLString, assertValidSchema, printType, isInterfaceType, isObjectType, isScalarType, type GraphQLNamedType } from 'graphql';
import {
  addSourceToDraft,
  emptySchemaDraft,
  isEngineError,
  type InconsistentObject,
  type OutgoingHttp,
  type SchemaCache,
  type SchemaCacheBuildContext,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { introspect, type Introspected } from './client.js';
import { Customizer } from './customize.js';
import { parseDefinition, type RemoteSchemaMetadata } from './definition.js';
import { restrictedSchema } from './permissions.js';
import { indexPresets, type PresetIndex } from './presets.js';
import { remoteCall, type RemoteRuntime } from './runtime.js';
import { buildRoleTypes } from './types.js';

export interface RemotePermission {
  view: GraphQLSchema;
  presets: PresetIndex | null;
}

export interface ResolvedRemote {
  meta: RemoteSchemaMetadata;
  runtime: RemoteRuntime;
  raw: Introspected['raw'];
  /** Roles with a permission (only when permissions are enabled). */
  permissions: Map<string, RemotePermission>;
}

export interface RemoteState {
  remotes: Map<string, ResolvedRemote>;
}

const EMPTY: RemoteState = { remotes: new Map() };

const states = new WeakMap<SchemaCache, RemoteState>();

export const remoteStateOf = (cache: SchemaCache): RemoteState => states.get(cache) ?? EMPTY;

export const remoteSchemasOf = (cache: SchemaCache): RemoteSchemaMetadata[] =>
  ((cache.metadata.remote_schemas ?? []) as unknown as RemoteSchemaMetadata[]);

/** The names the consistent remotes take at the top of query_root and mutation_root. */
export function* remoteRootFieldNames(state: RemoteState): Iterable<string> {
  for (const { runtime } of state.remotes.values()) {
    const { customizer, upstream } = runtime;
    if (customizer.namespace) {
      yield customizer.namespace;
      continue;
    }
    for (const root of [upstream.getQueryType(), upstream.getMutationType()]) {
      if (root) for (const f of Object.keys(root.getFields())) yield customizer.fieldName(root.name, f);
    }
  }
}

export const remoteObjectName = (name: string): string => `remote_schema ${name}`;
export const permissionObjectName = (remote: string, role: string): string => `remote_schema_permission ${remote}.${role}`;

/** Introspections kept across snapshots, by remote name; reused while the definition is unchanged. */
export class IntrospectionCache {
  private readonly entries = new Map<string, { key: string; result: Introspected }>();

  async get(http: OutgoingHttp, runtime: Omit<RemoteRuntime, 'upstream' | 'customizer'>, fresh: boolean): Promise<Introspected> {
    const key = JSON.stringify(runtime.definition);
    const known = this.entries.get(runtime.name);
    if (known && known.key === key && !fresh) return known.result;
    const result = await introspect(http, remoteCall(runtime, null));
    this.entries.set(runtime.name, { key, result });
    return result;
  }

  forget(keep: ReadonlySet<string>): void {
    for (const name of this.entries.keys()) if (!keep.has(name)) this.entries.delete(name);
  }
}

export interface BuildDeps {
  http: OutgoingHttp;
  env: NodeJS.ProcessEnv;
  config: ServerConfig;
  introspections: IntrospectionCache;
}

function wantsReload(build: SchemaCacheBuildContext, name: string): boolean {
  const r = build.reload?.remoteSchemas;
  return r === true || (Array.isArray(r) && r.includes(name));
}

export async function buildRemoteState(build: SchemaCacheBuildContext, deps: BuildDeps): Promise<void> {
  const metas = remoteSchemasOf(build.cache);
  if (metas.length === 0) return;
  const state: RemoteState = { remotes: new Map() };
  states.set(build.cache, state);
  const fail = (meta: RemoteSchemaMetadata, reason: string): void =>
    build.addInconsistency({ type: 'remote_schema', name: remoteObjectName(meta.name), definition: meta, reason: `Inconsistent object: ${reason}` });

  // Introspect concurrently; judge in metadata order, so clashes blame the later schema.
  const fetched = await Promise.all(
    metas.map(async (meta) => {
      try {
        const definition = parseDefinition(meta.definition, '$.definition');
        const base = { name: meta.name, definition, http: deps.http, env: deps.env };
        const result = await deps.introspections.get(deps.http, base, wantsReload(build, meta.name));
        return { meta, base, result };
      } catch (e) {
        return { meta, error: isEngineError(e) || e instanceof Error ? (e as Error).message : String(e) };
      }
    }),
  );
  deps.introspections.forget(new Set(metas.map((m) => m.name)));

  const taken = await databaseNames(build.cache, deps.config);
  const rootOwners = new Map<string, string>();
  const typeOwners = new Map<string, { owner: string; printed: string }>();
  for (const f of fetched) {
    if ('error' in f) {
      fail(f.meta, f.error!);
      continue;
    }
    const { meta, base, result } = f;
    const upstream = result.schema;
    const customizer = customizerFor(upstream, base.definition.customization);
    const runtime: RemoteRuntime = { ...base, upstream, customizer };
    const types = buildRoleTypes(upstream, customizer);
    const problem = invalidStitching(types) ?? clash(meta.name, customizer, types, upstream, taken, rootOwners, typeOwners);
    if (problem) {
      fail(meta, problem);
      continue;
    }
    const resolved: ResolvedRemote = { meta, runtime, raw: result.raw, permissions: new Map() };
    if (deps.config.enableRemoteSchemaPermissions) {
      for (const p of meta.permissions ?? []) {
        try {
          const view = restrictedSchema(p.definition.schema, upstream, '$.definition.schema');
          resolved.permissions.set(p.role, { view, presets: indexPresets(view) });
          build.addRole(p.role);
        } catch (e) {
          build.addInconsistency({
            type: 'remote_schema_permission',
            name: permissionObjectName(meta.name, p.role),
            definition: { remote_schema: meta.name, ...p },
            reason: `Inconsistent object: ${(e as Error).message}`,
          });
        }
      }
    }
    state.remotes.set(meta.name, resolved);
  }
}

function customizerFor(upstream: GraphQLSchema, customization: RemoteSchemaMetadata['definition']['customization']): Customizer {
  const typeNames = Object.keys(upstream.getTypeMap());
  const fields = new Map<string, string[]>();
  for (const t of Object.values(upstream.getTypeMap())) {
    if (isObjectType(t) || isInterfaceType(t)) fields.set(t.name, Object.keys(t.getFields()));
  }
  const roots = new Set([upstream.getQueryType()?.name, upstream.getMutationType()?.name, upstream.getSubscriptionType()?.name].filter((n): n is string => !!n));
  return new Customizer(customization, typeNames, fields, roots);
}

/** A customization can make the remote's own types disagree (an interface field renamed on one side). */
function invalidStitching(types: ReturnType<typeof buildRoleTypes>): string | null {
  const fields = (list: typeof types.query) => Object.fromEntries(list.map((f) => [f.name, f.config]));
  try {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'query_root', fields: { ...fields(types.query), svc_placeholder: { type: GraphQLString } } }),
      mutation: types.mutation.length > 0 ? new GraphQLObjectType({ name: 'mutation_root', fields: fields(types.mutation) }) : undefined,
      types: [...types.types.values()],
    });
    assertValidSchema(schema);
    return null;
  } catch (e) {
    return `the remote schema is invalid after customization: ${(e as Error).message}`;
  }
}

interface Taken {
  rootFields: Set<string>;
  types: Map<string, GraphQLNamedType>;
}

/** The database root fields and types of the admin schema (what a remote must not clash with). */
async function databaseNames(cache: SchemaCache, config: ServerConfig): Promise<Taken> {
  const draft = emptySchemaDraft();
  const ctx = { role: 'admin', cache, config };
  for (const source of cache.sources.values()) addSourceToDraft(draft, source, ctx);
  const rootFields = new Set([...draft.query.keys(), ...draft.mutation.keys()]);
  const fields = (m: typeof draft.query) => Object.fromEntries([...m].map(([k, e]) => [k, e.config]));
  const schema = new GraphQLSchema({
    query: draft.query.size > 0 ? new GraphQLObjectType({ name: 'query_root', fields: fields(draft.query) }) : undefined,
    mutation: draft.mutation.size > 0 ? new GraphQLObjectType({ name: 'mutation_root', fields: fields(draft.mutation) }) : undefined,
  });
  return { rootFields, types: new Map(Object.entries(schema.getTypeMap())) };
}

function clash(
  name: string,
  customizer: Customizer,
  types: ReturnType<typeof buildRoleTypes>,
  upstream: GraphQLSchema,
  taken: Taken,
  rootOwners: Map<string, string>,
  typeOwners: Map<string, { owner: string; printed: string }>,
): string | null {
  const roots = customizer.namespace ? [customizer.namespace] : [...types.query, ...types.mutation].map((f) => f.name);
  for (const r of roots) {
    if (taken.rootFields.has(r)) return `Field cannot be overwritten by remote field ${JSON.stringify(r)}`;
    if (rootOwners.has(r)) return `Duplicate remote field ${JSON.stringify(r)}`;
  }
  const printed = new Map<string, string>();
  for (const original of Object.keys(upstream.getTypeMap())) {
    if (original.startsWith('__')) continue;
    const t = types.typeOf(original);
    if (!t || isScalarType(t)) continue;
    const root = [upstream.getQueryType(), upstream.getMutationType(), upstream.getSubscriptionType()].some((r) => r?.name === original);
    if (root && !customizer.namespace) continue;
    const text = printType(t);
    const db = taken.types.get(t.name);
    if (db && !isScalarType(db) && printType(db) !== text) return conflictingType(t.name, name, 'the database schema', text, printType(db));
    const other = typeOwners.get(t.name);
    // Identical definitions merge (the role schemas share one type object, see schema.ts).
    if (other && other.printed !== text) return conflictingType(t.name, name, `remote schema ${other.owner}`, text, other.printed);
    printed.set(t.name, text);
  }
  for (const r of roots) rootOwners.set(r, name);
  for (const [t, text] of printed) if (!typeOwners.has(t)) typeOwners.set(t, { owner: name, printed: text });
  return null;
}

/** The reference's message for two definitions of one type name (its origins are field paths; ours name the owners). */
function conflictingType(type: string, me: string, owner: string, mine: string, theirs: string): string {
  return (
    `Found conflicting definitions for GraphQL type '${type}'.  The definition at remote schema ${me} differs from the definitions at [${owner}].` +
    `\nFormer has definition:\n${mine}\nLatter has definition:\n${theirs}`
  );
}

export type { InconsistentObject };
