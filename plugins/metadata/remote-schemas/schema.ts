/**
 * Remote schemas in a role's GraphQL schema: each consistent remote the role may see (every
 * role when permissions are off; admin and roles with a permission when on) adds its query and
 * mutation root fields, or its namespace field, planned as remote root fields. Remote
 * subscriptions are not exposed, as in the reference engine.
 */
import { GraphQLObjectType, type GraphQLFieldConfig, type GraphQLNamedType } from 'graphql';
import {
  ADMIN_ROLE,
  type RemoteRootFieldPlanner,
  type RootFieldEntry,
  type SchemaBuildContext,
  type SchemaDraft,
} from '../../../core/sdk/index.js';
import { RemoteRootGroup, type RoleRemote, type TypeJoin } from './runtime.js';
import { remoteStateOf, type ResolvedRemote } from './state.js';
import { buildRoleTypes } from './types.js';

/** A remote relationship on a type of a remote schema, as the role's schema shows it. */
export interface RemoteTypeField {
  /** Original name of the remote type the field is on. */
  type: string;
  field: string;
  config(): GraphQLFieldConfig<unknown, unknown>;
  lhs: string[];
  plan: TypeJoin['plan'];
}

/** Supplies remote relationships on remote types for one role schema build (the relationships plugin). */
export type RemoteTypeFieldProvider = (remote: ResolvedRemote, draft: SchemaDraft, ctx: SchemaBuildContext, role: RoleRemote) => RemoteTypeField[];

const roleRemotes = new WeakMap<SchemaDraft, Map<string, RoleRemote>>();

/** The role's RoleRemote of a remote in this draft (made when the remote's root fields were added). */
export function roleRemoteIn(draft: SchemaDraft, remote: string): RoleRemote | undefined {
  return roleRemotes.get(draft)?.get(remote);
}

export function addRemotesToDraft(
  draft: SchemaDraft,
  ctx: SchemaBuildContext,
  permissionsEnabled: boolean,
  providers: readonly RemoteTypeFieldProvider[],
): SchemaDraft {
  const state = remoteStateOf(ctx.cache);
  if (state.remotes.size === 0) return draft;
  const mine = new Map<string, RoleRemote>();
  roleRemotes.set(draft, mine);
  // Two remotes may define the same type identically (checked when the cache is built, state.ts):
  // the role's schema then has ONE type object of that name, as graphql-js requires.
  const shared = new Map<string, GraphQLNamedType>();
  for (const remote of state.remotes.values()) {
    const restricted = permissionsEnabled && ctx.role !== ADMIN_ROLE;
    const permission = restricted ? remote.permissions.get(ctx.role) : undefined;
    if (restricted && !permission) continue;
    const view = permission?.view ?? remote.runtime.upstream;
    const extras = new Map<string, Map<string, RemoteTypeField>>();
    const role: RoleRemote = {
      runtime: remote.runtime,
      role: ctx.role,
      view,
      presets: permission?.presets ?? null,
      types: null as never,
      typeJoin: (type, field): TypeJoin | undefined => extras.get(type)?.get(field),
    };
    for (const provider of providers) {
      for (const f of provider(remote, draft, ctx, role)) {
        if (!view.getType(f.type)) continue;
        if (!extras.has(f.type)) extras.set(f.type, new Map());
        extras.get(f.type)!.set(f.field, f);
      }
    }
    role.types = buildRoleTypes(
      view,
      remote.runtime.customizer,
      (type) => {
        const fields = extras.get(type);
        return fields ? Object.fromEntries([...fields].map(([name, f]) => [name, f.config()])) : undefined;
      },
      shared,
    );
    mine.set(remote.meta.name, role);
    addRootFields(draft, remote, role);
  }
  return draft;
}

function addRootFields(draft: SchemaDraft, remote: ResolvedRemote, role: RoleRemote): void {
  const { types } = role;
  const namespace = remote.runtime.customizer.namespace;
  const add = (target: Map<string, RootFieldEntry>, operation: 'query' | 'mutation', rootType: GraphQLObjectType | null | undefined) => {
    const upstreamRoot = operation === 'query' ? role.view.getQueryType() : role.view.getMutationType();
    if (!upstreamRoot || !rootType) return;
    const group = new RemoteRootGroup(role, operation, upstreamRoot);
    if (namespace) {
      const planner: RemoteRootFieldPlanner = { kind: 'remote', group, plan: (field, _t, ctx) => group.plan(field, ctx, true) };
      if (!target.has(namespace)) target.set(namespace, { config: { type: rootType }, planner });
      return;
    }
    const fields = operation === 'query' ? types.query : types.mutation;
    for (const f of fields) {
      const planner: RemoteRootFieldPlanner = { kind: 'remote', group, plan: (field, _t, ctx) => group.plan(field, ctx, false) };
      if (!target.has(f.name)) target.set(f.name, { config: f.config, planner });
    }
  };
  add(draft.query, 'query', types.queryType);
  add(draft.mutation, 'mutation', types.mutationType);
}
