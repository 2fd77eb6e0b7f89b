/**
 * Source operations for every database kind prefix (`pg_`, `sqlb_`, `dist_`, `wh_`) plus
 * `rename_source`. A prefix whose kind plugin is not loaded fails with `not-supported` (from
 * `ctx.dbKind`). These are `/v1/metadata` operations: on other endpoints they pass, so the service
 * reports an unknown type.
 */
import { definePlugin } from '../../../core/plugin.js';
import type { MetadataOperation, OperationContext, OperationResult } from '../../../core/metadata/operation.js';
import { addSource, dropSource, renameSource, updateSource } from './handlers.js';

const PLUGIN_ID = 'metadata/sources';

export const SOURCE_PREFIXES = ['pg', 'sqlb', 'dist', 'wh'] as const;

type Handler = (op: MetadataOperation, ctx: OperationContext) => Promise<OperationResult>;

export default definePlugin({
  name: 'sources',
  kind: 'metadata',
  register(_container, hooks) {
    const tap = (type: string, handler: Handler) =>
      hooks.onMetadataOperation.for(type).tapPromise(PLUGIN_ID, async (op, ctx) => (ctx.endpoint === 'metadata' ? handler(op, ctx) : undefined));
    for (const prefix of SOURCE_PREFIXES) {
      tap(`${prefix}_add_source`, (op, ctx) => addSource(prefix, op, ctx));
      tap(`${prefix}_update_source`, (op, ctx) => updateSource(prefix, op, ctx));
      tap(`${prefix}_drop_source`, (op, ctx) => dropSource(prefix, op, ctx));
    }
    tap('rename_source', renameSource);
  },
});
