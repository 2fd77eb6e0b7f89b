/**
 * `<prefix>_create_{insert,select,update,delete}_permission`. The args are parsed first (wrong
 * shapes are `parse-failed` at their key); the table must be tracked; a role may hold one
 * permission of each kind per table, and `admin` holds them all implicitly, so both are
 * "already defined". Then the metadata is rebuilt and the new permission must resolve: names,
 * operators and values are checked against the database there, and a failure is reported as the
 * reference does, `invalid-configuration` with the inconsistent object in `internal`.
 */
import {
  ADMIN_ROLE,
  ARGS_PATH,
  type ArgsObject,
  assertConsistent,
  EngineError,
  type OperationContext,
  type OperationResult,
  optionalString,
  parseFailed,
  parsePermission,
  type PermissionEntry,
  permissionObjectName,
  type PermissionType,
  quotedTable,
  requireKey,
  requireString,
  requireTable,
  SUCCESS,
  trackedTable,
} from '../../../core/sdk/index.js';
import { findPermission, permissionList, setPermissionList } from './lists.js';

/** A role name: a non-empty string. */
export function roleArg(args: ArgsObject): string {
  const role = requireString(args, 'role', ARGS_PATH);
  if (role === '') throw parseFailed('empty string not allowed', `${ARGS_PATH}.role`);
  return role;
}

export async function createPermission(ctx: OperationContext, args: ArgsObject, prefix: string, type: PermissionType): Promise<OperationResult> {
  requireTable(args, 'table', ARGS_PATH);
  const role = roleArg(args);
  const permission = parsePermission(type, requireKey(args, 'permission', ARGS_PATH), `${ARGS_PATH}.permission`);
  const comment = optionalString(args, 'comment', ARGS_PATH);

  const t = trackedTable(ctx, args, prefix);
  if (role === ADMIN_ROLE || findPermission(t.meta, type, role)) {
    throw new EngineError('already-exists', `${type} permission already defined on table ${quotedTable(t.table)} with role "${role}"`, {
      path: ARGS_PATH,
    });
  }
  const entry: PermissionEntry<unknown> = { role, permission };
  if (comment !== undefined) entry.comment = comment;
  setPermissionList(t.meta, type, [...permissionList(t.meta, type), entry]);
  ctx.markChanged();
  await assertConsistent(ctx, [permissionObjectName(t.source.name, t.table, type, role)]);
  return SUCCESS;
}
