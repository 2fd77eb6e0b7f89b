/**
 * Function operations, for kinds with the `functions` capability: `pg_track_function`, `pg_untrack_function`,
 * `pg_set_function_customization`, `pg_create_function_permission`,
 * `pg_drop_function_permission` on `/v1/metadata`, and the legacy `/v1/query` forms
 * (`track_function` v1 and v2, `untrack_function`, `create_function_permission`,
 * `drop_function_permission`) acting on the `default` source. Taps `onMetadataOperation` only.
 * Safe to disable: tracked functions keep being served, they just cannot be changed.
 */
import {
  type ArgsObject,
  definePlugin,
  type MetadataOperation,
  type OperationContext,
  type OperationResult,
  registerMetadataOperations,
} from '../../../core/sdk/index.js';
import { trackFunction, trackFunctionV2, functionTarget, setFunctionCustomization, untrackFunction } from './track.js';
import { createFunctionPermission, dropFunctionPermission } from './permissions.js';

const PLUGIN_ID = 'metadata/functions';

type Handler = (ctx: OperationContext, args: ArgsObject, prefix: string, op: MetadataOperation) => Promise<OperationResult>;

const PREFIXED: Record<string, Handler> = {
  track_function: (ctx, args, prefix) => trackFunctionV2(ctx, args, prefix, false),
  untrack_function: (ctx, args, prefix) => untrackFunction(ctx, args, prefix, false),
  set_function_customization: (ctx, args, prefix) => setFunctionCustomization(ctx, args, prefix),
  create_function_permission: (ctx, args, prefix) => createFunctionPermission(ctx, args, prefix, false),
  drop_function_permission: (ctx, args, prefix) => dropFunctionPermission(ctx, args, prefix, false),
};

const LEGACY: Record<string, Handler> = {
  // Version 1 names the function in the args themselves; version 2 has `function` and `configuration`.
  track_function: (ctx, args, prefix, op) =>
    op.version === 2 || 'function' in args
      ? trackFunctionV2(ctx, args, prefix, true)
      : trackFunction(ctx, functionTarget(ctx, args, prefix, true), undefined, undefined),
  untrack_function: (ctx, args, prefix) => untrackFunction(ctx, args, prefix, true),
  create_function_permission: (ctx, args, prefix) => createFunctionPermission(ctx, args, prefix, true),
  drop_function_permission: (ctx, args, prefix) => dropFunctionPermission(ctx, args, prefix, true),
};

export default definePlugin({
  name: 'functions',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: PREFIXED, legacy: LEGACY, requires: 'functions' });
  },
});
