/**
 * The remote schema operations (Document 1 §4.8): add, update, remove, reload and introspect a
 * remote schema, and add/drop its role permissions. A remote that cannot be reached or clashes is
 * refused when added (`invalid-configuration` with its reason), and an update that breaks the
 * permissions or relationships depending on the schema is refused by the metadata service.
 */
import {
  assertConsistent,
  EngineError,
  expectObject,
  isPlainObject,
  optionalString,
  requireKey,
  requireString,
  SUCCESS,
  type ArgsObject,
  type MetadataDocument,
  type OperationContext,
  type OperationResult,
} from '../../../core/sdk/index.js';
import { parseDefinition, type RemoteSchemaMetadata } from './definition.js';
import { restrictedSchema } from './permissions.js';
import { remoteObjectName, remoteStateOf } from './state.js';

const A = '$.args';

export type Handler = (ctx: OperationContext, args: ArgsObject) => OperationResult | Promise<OperationResult>;

export const remotesOf = (draft: MetadataDocument): RemoteSchemaMetadata[] =>
  ((draft.remote_schemas ??= []) as unknown as RemoteSchemaMetadata[]);

export function findRemote(draft: MetadataDocument, name: string): RemoteSchemaMetadata | undefined {
  return ((draft.remote_schemas ?? []) as unknown as RemoteSchemaMetadata[]).find((r) => r.name === name);
}

export function requireRemote(draft: MetadataDocument, name: string, path = A): RemoteSchemaMetadata {
  const r = findRemote(draft, name);
  if (!r) throw new EngineError('not-exists', `remote schema with name "${name}" does not exist`, { path });
  return r;
}

function tidy(draft: MetadataDocument): void {
  if (draft.remote_schemas && draft.remote_schemas.length === 0) delete draft.remote_schemas;
}

const comment = (args: ArgsObject): { comment?: string } => {
  const c = optionalString(args, 'comment', A);
  return c === undefined ? {} : { comment: c };
};

const add: Handler = async (ctx, args) => {
  const name = requireString(args, 'name', A);
  const definition = parseDefinition(requireKey(args, 'definition', A), `${A}.definition`);
  if (findRemote(ctx.draft, name)) throw new EngineError('already-exists', `remote schema with name "${name}" already exists`, { path: A });
  remotesOf(ctx.draft).push({ name, definition, ...comment(args) });
  ctx.markChanged();
  await assertConsistent(ctx, [remoteObjectName(name)]);
  return SUCCESS;
};

const update: Handler = async (ctx, args) => {
  const name = requireString(args, 'name', A);
  const definition = parseDefinition(requireKey(args, 'definition', A), `${A}.definition`);
  const remote = requireRemote(ctx.draft, name);
  remote.definition = definition;
  if ('comment' in args) {
    const c = optionalString(args, 'comment', A);
    if (c === undefined) delete remote.comment;
    else remote.comment = c;
  }
  ctx.markChanged();
  // A new definition is introspected again; what depends on the old schema is checked by the rebuild.
  ctx.requestReload({ sources: false, remoteSchemas: [name], recreateEventTriggers: false });
  await assertConsistent(ctx, [remoteObjectName(name)]);
  return SUCCESS;
};

/** Remote relationships (on tables or other remote schemas) that call into `name`. */
export function remoteDependents(draft: MetadataDocument, name: string): string[] {
  const out: string[] = [];
  const targets = (def: unknown): boolean => {
    if (!isPlainObject(def)) return false;
    if (def['remote_schema'] === name) return true;
    const to = def['definition'];
    return isPlainObject(to) && isPlainObject(to['to_remote_schema']) && to['to_remote_schema']['remote_schema'] === name;
  };
  for (const s of draft.sources) {
    for (const t of s.tables) {
      for (const rr of t.remote_relationships ?? []) {
        if (targets(rr)) out.push(`remote_relationship ${String(rr['name'])} in table ${t.table.schema === 'public' ? t.table.name : `${t.table.schema}.${t.table.name}`} in source ${s.name}`);
      }
    }
  }
  for (const r of (draft.remote_schemas ?? []) as unknown as RemoteSchemaMetadata[]) {
    if (r.name === name) continue;
    for (const group of r.remote_relationships ?? []) {
      for (const rel of group.relationships) {
        if (targets(rel)) out.push(`remote_schema_remote_relationship ${String(rel['name'])} in remote schema ${r.name}`);
      }
    }
  }
  return out;
}

const remove: Handler = (ctx, args) => {
  const name = requireString(args, 'name', A);
  requireRemote(ctx.draft, name);
  const dependents = remoteDependents(ctx.draft, name);
  if (dependents.length > 0) {
    throw new EngineError('dependency-error', `cannot drop due to the following dependent objects : ${dependents.join(', ')}`, { path: A });
  }
  ctx.draft.remote_schemas = remotesOf(ctx.draft).filter((r) => r.name !== name) as never;
  tidy(ctx.draft);
  ctx.markChanged();
  return SUCCESS;
};

const reload: Handler = async (ctx, args) => {
  const name = requireString(args, 'name', A);
  requireRemote(ctx.draft, name);
  ctx.requestReload({ sources: false, remoteSchemas: [name], recreateEventTriggers: false });
  return SUCCESS;
};

const introspectOp: Handler = (ctx, args) => {
  const name = requireString(args, 'name', A);
  requireRemote(ctx.draft, name);
  const resolved = remoteStateOf(ctx.cache).remotes.get(name);
  if (!resolved) {
    const reason = ctx.cache.inconsistentObjects.find((o) => o.name === remoteObjectName(name))?.reason;
    throw new EngineError('remote-schema-error', reason ?? `remote schema "${name}" is not available`, { path: A });
  }
  return { body: resolved.raw };
};

const addPermission: Handler = async (ctx, args) => {
  if (!ctx.config.enableRemoteSchemaPermissions) {
    throw new EngineError(
      'constraint-violation',
      'remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine',
      { path: A },
    );
  }
  const remoteName = requireString(args, 'remote_schema', A);
  const role = requireString(args, 'role', A);
  const definition = expectObject(requireKey(args, 'definition', A), `${A}.definition`);
  const sdl = requireString(definition, 'schema', `${A}.definition`);
  const remote = requireRemote(ctx.draft, remoteName);
  if (role === 'admin') throw new EngineError('constraint-violation', 'cannot define permission for admin role', { path: A });
  if ((remote.permissions ?? []).some((p) => p.role === role)) {
    throw new EngineError('already-exists', `permissions for role: "${role}" for remote schema:"${remoteName}" already exist`, { path: A });
  }
  const resolved = remoteStateOf(await ctx.rebuildPreview()).remotes.get(remoteName);
  if (!resolved) throw new EngineError('remote-schema-error', `remote schema "${remoteName}" is inconsistent; reload it first`, { path: A });
  restrictedSchema(sdl, resolved.runtime.upstream, `${A}.definition.schema`);
  (remote.permissions ??= []).push({ role, definition: { schema: sdl }, ...comment(args) });
  ctx.markChanged();
  return SUCCESS;
};

const dropPermission: Handler = (ctx, args) => {
  const remoteName = requireString(args, 'remote_schema', A);
  const role = requireString(args, 'role', A);
  const remote = requireRemote(ctx.draft, remoteName);
  const kept = (remote.permissions ?? []).filter((p) => p.role !== role);
  if (kept.length === (remote.permissions ?? []).length) {
    throw new EngineError('not-exists', `permissions for role: "${role}" for remote schema:"${remoteName}" does not exist`, { path: A });
  }
  if (kept.length > 0) remote.permissions = kept;
  else delete remote.permissions;
  ctx.markChanged();
  return SUCCESS;
};

export const OPERATIONS: Readonly<Record<string, Handler>> = {
  add_remote_schema: add,
  update_remote_schema: update,
  remove_remote_schema: remove,
  reload_remote_schema: reload,
  introspect_remote_schema: introspectOp,
  add_remote_schema_permissions: addPermission,
  drop_remote_schema_permissions: dropPermission,
};
