/**
 * Remote relationship operations (Document 1 §4.5): `<prefix>_create/update/delete_remote_relationship`
 * for every kind with the `remoteRelationships` capability (and the legacy unprefixed names on
 * /v1/query, acting on `pg`), new and legacy argument shapes; and
 * `create/update/delete_remote_schema_remote_relationship` for relationships on remote types.
 * A relationship that does not resolve is refused with its reason (`invalid-configuration`).
 */
import {
  ARGS_PATH,
  assertConsistent,
  catalogIfAvailable,
  EngineError,
  isPlainObject,
  requireKey,
  requireString,
  SUCCESS,
  trackedTable,
  type ArgsObject,
  type OperationContext,
  type OperationResult,
  type PrefixedHandler,
} from '../../../core/sdk/index.js';
import { fieldNames } from '../relationships/fields.js';
import { requireRemote } from '../remote-schemas/operations.js';
import { parseTarget } from './definition.js';
import { remoteRelationshipName, tableRelationshipName } from './resolve.js';

const A = ARGS_PATH;

/** `definition`, or the legacy top-level `svc_fields`/`remote_schema`/`remote_field`. */
function definitionOf(args: ArgsObject): Record<string, unknown> {
  if (args['definition'] !== undefined) {
    if (!isPlainObject(args['definition'])) throw new EngineError('parse-failed', 'expected Object for "definition"', { path: `${A}.definition` });
    return args['definition'];
  }
  if (args['remote_schema'] === undefined) throw new EngineError('parse-failed', 'key "definition" not found', { path: A });
  const legacy: Record<string, unknown> = {};
  for (const k of ['svc_fields', 'remote_schema', 'remote_field']) if (args[k] !== undefined) legacy[k] = args[k];
  return legacy;
}

function upsert(mode: 'create' | 'update'): PrefixedHandler {
  return async (ctx, args, prefix) => {
    const name = requireString(args, 'name', A);
    const { source, table, meta } = trackedTable(ctx, args, prefix);
    const definition = definitionOf(args);
    parseTarget(definition, `${A}.definition`);
    const list = (meta.remote_relationships ??= []);
    const at = list.findIndex((r) => r['name'] === name);
    if (mode === 'create') {
      if (at >= 0 || fieldNames(meta, await catalogIfAvailable(ctx, source.name)).has(name)) {
        throw new EngineError('already-exists', `field with name "${name}" already exists in table "${table.name}"`, { path: A });
      }
      list.push({ name, definition });
    } else {
      if (at < 0) throw new EngineError('not-exists', `remote relationship with name "${name}" does not exist`, { path: A });
      list[at] = { name, definition };
    }
    ctx.markChanged();
    await assertConsistent(ctx, [tableRelationshipName(source.name, table, name)]);
    return SUCCESS;
  };
}

const remove: PrefixedHandler = async (ctx, args, prefix) => {
  const name = requireString(args, 'name', A);
  const { meta } = trackedTable(ctx, args, prefix);
  const kept = (meta.remote_relationships ?? []).filter((r) => r['name'] !== name);
  if (kept.length === (meta.remote_relationships ?? []).length) {
    throw new EngineError('not-exists', `remote relationship with name "${name}" does not exist`, { path: A });
  }
  if (kept.length > 0) meta.remote_relationships = kept;
  else delete meta.remote_relationships;
  ctx.markChanged();
  return SUCCESS;
};

export const TABLE_OPERATIONS: Readonly<Record<string, PrefixedHandler>> = {
  create_remote_relationship: upsert('create'),
  update_remote_relationship: upsert('update'),
  delete_remote_relationship: remove,
};

type Handler = (ctx: OperationContext, args: ArgsObject) => Promise<OperationResult>;

function remoteUpsert(mode: 'create' | 'update'): Handler {
  return async (ctx, args) => {
    const remoteName = requireString(args, 'remote_schema', A);
    const typeName = requireString(args, 'type_name', A);
    const name = requireString(args, 'name', A);
    const definition = requireKey(args, 'definition', A);
    parseTarget(definition, `${A}.definition`);
    const remote = requireRemote(ctx.draft, remoteName);
    const groups = (remote.remote_relationships ??= []);
    let group = groups.find((g) => g.type_name === typeName);
    const existing = group?.relationships.findIndex((r) => r['name'] === name) ?? -1;
    if (mode === 'create' && existing >= 0) {
      throw new EngineError('already-exists', `remote relationship with name "${name}" already exists on type "${typeName}"`, { path: A });
    }
    if (mode === 'update' && existing < 0) {
      throw new EngineError('not-exists', `remote relationship with name "${name}" does not exist on type "${typeName}"`, { path: A });
    }
    if (!group) groups.push((group = { type_name: typeName, relationships: [] }));
    const entry = { name, definition: definition as Record<string, unknown> };
    if (existing >= 0) group.relationships[existing] = entry;
    else group.relationships.push(entry);
    ctx.markChanged();
    await assertConsistent(ctx, [remoteRelationshipName(remoteName, typeName, name)]);
    return SUCCESS;
  };
}

const remoteDelete: Handler = async (ctx, args) => {
  const remoteName = requireString(args, 'remote_schema', A);
  const typeName = requireString(args, 'type_name', A);
  const name = requireString(args, 'name', A);
  const remote = requireRemote(ctx.draft, remoteName);
  const group = remote.remote_relationships?.find((g) => g.type_name === typeName);
  const kept = group?.relationships.filter((r) => r['name'] !== name) ?? [];
  if (!group || kept.length === group.relationships.length) {
    throw new EngineError('not-exists', `remote relationship with name "${name}" does not exist on type "${typeName}"`, { path: A });
  }
  group.relationships = kept;
  remote.remote_relationships = remote.remote_relationships!.filter((g) => g.relationships.length > 0);
  if (remote.remote_relationships.length === 0) delete remote.remote_relationships;
  ctx.markChanged();
  return SUCCESS;
};

export const REMOTE_OPERATIONS: Readonly<Record<string, Handler>> = {
  create_remote_schema_remote_relationship: remoteUpsert('create'),
  update_remote_schema_remote_relationship: remoteUpsert('update'),
  delete_remote_schema_remote_relationship: remoteDelete,
};
