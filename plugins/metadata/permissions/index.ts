/**
 * Table permission operations: `<prefix>_create_{insert,select,update,delete}_permission`,
 * `<prefix>_drop_*_permission` and `<prefix>_set_permission_comment` for every loaded kind's prefix on
 * `/v1/metadata` (the insert/update/delete ones for kinds with mutations only), and the same
 * operations without a prefix on the legacy `/v1/query` (acting on `pg_` sources). Taps `onMetadataOperation` only. Safe to disable: permissions already in the
 * metadata keep being enforced (the schema cache resolves them), they just cannot be changed.
 */
import {
  type ArgsObject,
  definePlugin,
  type OperationContext,
  type OperationResult,
  PERMISSION_TYPES,
  registerMetadataOperations,
} from '../../../core/sdk/index.js';
import { createPermission } from './create.js';
import { dropPermission, setPermissionComment } from './manage.js';

const PLUGIN_ID = 'metadata/permissions';

type Handler = (ctx: OperationContext, args: ArgsObject, prefix: string) => Promise<OperationResult>;

// Select permissions exist for every kind; insert, update and delete ones only for kinds with
// mutations (a read-only kind such as BigQuery has none to hold to them, so none can be set).
const READ: Record<string, Handler> = { set_permission_comment: setPermissionComment };
const WRITE: Record<string, Handler> = {};
for (const type of PERMISSION_TYPES) {
  const ops = type === 'select' ? READ : WRITE;
  ops[`create_${type}_permission`] = (ctx, args, prefix) => createPermission(ctx, args, prefix, type);
  ops[`drop_${type}_permission`] = (ctx, args, prefix) => dropPermission(ctx, args, prefix, type);
}

export default definePlugin({
  name: 'permissions',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: READ });
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: WRITE, requires: 'mutations' });
  },
});
