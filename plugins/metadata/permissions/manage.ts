/**
 * `<prefix>_drop_*_permission` and `<prefix>_set_permission_comment`. Nothing in the metadata
 * depends on a permission, so a drop only removes it. Both fail for a permission that is not
 * defined, with the reference's differing wordings and codes.
 */
import {
  ARGS_PATH,
  type ArgsObject,
  EngineError,
  jsonTypeName,
  type OperationContext,
  type OperationResult,
  parsePermissionType,
  type PermissionType,
  quotedTable,
  requireKey,
  requireTable,
  SUCCESS,
  trackedTable,
} from '../../../core/sdk/index.js';
import { roleArg } from './create.js';
import { findPermission, permissionList, setPermissionList } from './lists.js';

export async function dropPermission(ctx: OperationContext, args: ArgsObject, prefix: string, type: PermissionType): Promise<OperationResult> {
  requireTable(args, 'table', ARGS_PATH);
  const role = roleArg(args);
  const t = trackedTable(ctx, args, prefix);
  if (!findPermission(t.meta, type, role)) {
    throw new EngineError('bad-request', `${type} permission on ${quotedTable(t.table)} for role "${role}" does not exist`, { path: ARGS_PATH });
  }
  setPermissionList(t.meta, type, permissionList(t.meta, type).filter((p) => p.role !== role));
  ctx.markChanged();
  return SUCCESS;
}

export async function setPermissionComment(ctx: OperationContext, args: ArgsObject, prefix: string): Promise<OperationResult> {
  requireTable(args, 'table', ARGS_PATH);
  const role = roleArg(args);
  const type = parsePermissionType(requireKey(args, 'type', ARGS_PATH), `${ARGS_PATH}.type`);
  const comment = args.comment;
  if (comment !== undefined && comment !== null && typeof comment !== 'string') {
    throw new EngineError('parse-failed', `expected String, but encountered ${jsonTypeName(comment)}`, { path: `${ARGS_PATH}.comment` });
  }
  const t = trackedTable(ctx, args, prefix);
  const entry = findPermission(t.meta, type, role);
  if (!entry) {
    throw new EngineError('permission-denied', `'${type}' permission on ${quotedTable(t.table)} for role "${role}" does not exist`, {
      path: ARGS_PATH,
    });
  }
  if (typeof comment === 'string') entry.comment = comment;
  else delete entry.comment;
  ctx.markChanged();
  return SUCCESS;
}
