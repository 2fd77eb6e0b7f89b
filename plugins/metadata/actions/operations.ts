/**
 * Action operations (Document 1 §4.9), on /v1/metadata and the legacy /v1/query: create_action,
 * update_action (the kind may change), drop_action (`clear_data`, default true, deletes an
 * asynchronous action's stored results), create_action_permission, drop_action_permission. Each
 * checks the rebuilt snapshot as the reference's buildSchemaCacheFor does: an action that would be
 * inconsistent (unknown types, an unset environment variable) is refused with the reason.
 */
import {
  ARGS_PATH,
  EngineError,
  SUCCESS,
  argsObject,
  assertConsistent,
  jsonTypeName,
  parseFailed,
  requireKey,
  type ArgsObject,
  type OperationContext,
  type OperationHandler,
} from '../../../core/sdk/index.js';
import { actionsOf, parseActionDefinition, requireName, type ActionMetadata } from './definition.js';
import { actionObjectName } from './resolve.js';
import { actionLogStore } from './action-log.js';

const notExists = (name: string, path = ARGS_PATH) => new EngineError('not-exists', `action with name "${name}" does not exist`, { path });

function optionalComment(o: ArgsObject): { comment?: string } {
  const c = o['comment'];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(c)}`, `${ARGS_PATH}.comment`);
  return { comment: c };
}

function findAction(ctx: OperationContext, name: string): { list: Record<string, unknown>[]; index: number } {
  const list = actionsOf(ctx.draft);
  return { list, index: list.findIndex((a) => a['name'] === name) };
}

function dropEmpty(ctx: OperationContext): void {
  if (ctx.draft.actions?.length === 0) delete ctx.draft.actions;
}

const createAction: OperationHandler = async (op, ctx) => {
  const args = argsObject(op.args);
  const name = requireName(args, 'name', ARGS_PATH);
  const definition = parseActionDefinition(requireKey(args, 'definition', ARGS_PATH), `${ARGS_PATH}.definition`);
  const { list, index } = findAction(ctx, name);
  if (index !== -1) throw new EngineError('already-exists', `action with name "${name}" already exists`, { path: ARGS_PATH });
  const action: ActionMetadata = { name, definition, ...optionalComment(args), permissions: [] };
  list.push(action as unknown as Record<string, unknown>);
  ctx.markChanged();
  await assertConsistent(ctx, [actionObjectName(name)]);
  return SUCCESS;
};

const updateAction: OperationHandler = async (op, ctx) => {
  const args = argsObject(op.args);
  const name = requireName(args, 'name', ARGS_PATH);
  const definition = parseActionDefinition(requireKey(args, 'definition', ARGS_PATH), `${ARGS_PATH}.definition`);
  const { list, index } = findAction(ctx, name);
  if (index === -1) throw notExists(name);
  const current = list[index] as unknown as ActionMetadata;
  const comment = optionalComment(args);
  const updated: ActionMetadata = { name, definition, ...comment, permissions: current.permissions ?? [] };
  list[index] = updated as unknown as Record<string, unknown>;
  ctx.markChanged();
  await assertConsistent(ctx, [actionObjectName(name)]);
  return SUCCESS;
};

const dropAction: OperationHandler = async (op, ctx) => {
  const args = argsObject(op.args);
  const name = requireName(args, 'name', ARGS_PATH);
  const clear = args['clear_data'] ?? true;
  if (typeof clear !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(clear)}`, `${ARGS_PATH}.clear_data`);
  const { list, index } = findAction(ctx, name);
  if (index === -1) throw notExists(name);
  const wasAsync = (list[index] as unknown as ActionMetadata).definition?.kind === 'asynchronous';
  list.splice(index, 1);
  dropEmpty(ctx);
  ctx.markChanged();
  // Only once the drop is committed: a refused change keeps the results it would have lost.
  if (clear && wasAsync) ctx.afterCommit(() => actionLogStore(ctx.container).clear(name));
  return SUCCESS;
};

function permissionArgs(args: ArgsObject, actionKey: string): { action: string; role: string } {
  const action = requireName(args, actionKey, ARGS_PATH);
  const role = requireKey(args, 'role', ARGS_PATH);
  if (typeof role !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(role)}`, `${ARGS_PATH}.role`);
  return { action, role };
}

const createPermission: OperationHandler = async (op, ctx) => {
  const args = argsObject(op.args);
  const { action, role } = permissionArgs(args, 'action');
  const { list, index } = findAction(ctx, action);
  if (index === -1) throw notExists(action);
  const meta = list[index] as unknown as ActionMetadata;
  const perms = (meta.permissions ??= []);
  if (perms.some((p) => p.role === role)) {
    throw new EngineError('already-exists', `permission for role "${role}" is already defined on "${action}"`, { path: ARGS_PATH });
  }
  perms.push({ role, ...optionalComment(args) });
  ctx.markChanged();
  return SUCCESS;
};

const dropPermission: OperationHandler = async (op, ctx) => {
  const args = argsObject(op.args);
  // The spec's args table names the action `name`; the reference reads `action`.
  const { action, role } = permissionArgs(args, args['action'] === undefined && args['name'] !== undefined ? 'name' : 'action');
  const { list, index } = findAction(ctx, action);
  if (index === -1) throw notExists(action);
  const meta = list[index] as unknown as ActionMetadata;
  const at = (meta.permissions ?? []).findIndex((p) => p.role === role);
  if (at === -1) throw new EngineError('not-exists', `permission for role: "${role}" is not defined on "${action}"`, { path: ARGS_PATH });
  meta.permissions!.splice(at, 1);
  ctx.markChanged();
  return SUCCESS;
};

export const ACTION_OPERATIONS: Readonly<Record<string, OperationHandler>> = {
  create_action: createAction,
  update_action: updateAction,
  drop_action: dropAction,
  create_action_permission: createPermission,
  drop_action_permission: dropPermission,
};
