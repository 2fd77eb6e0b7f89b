/**
 * Source operations for every loaded kind's prefix (`<prefix>_add_source`, `_update_source`,
 * `_drop_source`) plus `rename_source`. These are `/v1/metadata` operations: on other endpoints
 * they pass, so the service reports an unknown type. Taps `onMetadataOperation` only; disabling
 * it leaves no way to add a source.
 */
import { definePlugin, type PrefixedHandler, registerMetadataOperations } from '../../../core/sdk/index.js';
import { addSource, dropSource, renameSource, updateSource } from './handlers.js';

const PLUGIN_ID = 'metadata/sources';

const OPERATIONS: Record<string, PrefixedHandler> = {
  add_source: (ctx, _args, prefix, op) => addSource(prefix, op, ctx),
  update_source: (ctx, _args, prefix, op) => updateSource(prefix, op, ctx),
  drop_source: (ctx, _args, prefix, op) => dropSource(prefix, op, ctx),
};

export default definePlugin({
  name: 'sources',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: OPERATIONS, legacy: false, unprefixed: { rename_source: renameSource } });
  },
});
