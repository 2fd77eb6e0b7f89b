/**
 * Table permission operations: `<prefix>_create_{insert,select,update,delete}_permission`,
 * `<prefix>_drop_*_permission` and `<prefix>_set_permission_comment` for every kind prefix on
 * `/v1/metadata`, and the same operations without a prefix on the legacy `/v1/query` (acting on
 * `pg_` sources). Taps `onMetadataOperation` only. Safe to disable: permissions already in the
 * metadata keep being enforced (the schema cache resolves them), they just cannot be changed.
 */
import { tapOperations } from '../../../core/metadata/register.js';
import { definePlugin } from '../../../core/plugin.js';
import type { ArgsObject } from '../../../core/metadata/args.js';
import { PERMISSION_TYPES } from '../../../core/metadata/dependencies.js';
import type { OperationContext, OperationResult } from '../../../core/metadata/operation.js';
import { createPermission } from './create.js';
import { dropPermission, setPermissionComment } from './manage.js';

const PLUGIN_ID = 'metadata/permissions';

export const PERMISSION_PREFIXES = ['pg', 'sqlb', 'dist', 'wh'] as const;

type Handler = (ctx: OperationContext, args: ArgsObject, prefix: string) => Promise<OperationResult>;

const OPERATIONS: Record<string, Handler> = { set_permission_comment: setPermissionComment };
for (const type of PERMISSION_TYPES) {
  OPERATIONS[`create_${type}_permission`] = (ctx, args, prefix) => createPermission(ctx, args, prefix, type);
  OPERATIONS[`drop_${type}_permission`] = (ctx, args, prefix) => dropPermission(ctx, args, prefix, type);
}

export default definePlugin({
  name: 'permissions',
  kind: 'metadata',
  register(_container, hooks) {
    tapOperations(hooks, PLUGIN_ID, { prefixed: OPERATIONS, prefixes: PERMISSION_PREFIXES });
  },
});
