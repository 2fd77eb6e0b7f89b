/**
 * Table operations: `<prefix>_track_table`, `_untrack_table`, `_set_table_customization`,
 * `_set_gateway_federation_config` for every loaded kind's prefix, `<prefix>_set_table_is_enum`
 * for kinds with enum tables, and the legacy `/v1/query` forms (`track_table`, `untrack_table`,
 * `set_table_custom_fields`, `set_table_customization`, `set_table_is_enum`), which only answer
 * on that endpoint. Taps `onMetadataOperation` only.
 */
import { definePlugin, type PrefixedHandler, registerMetadataOperations } from '../../../core/sdk/index.js';
import { legacy, prefixed, type TableHandler } from './operations.js';

const PLUGIN_ID = 'metadata/tables';

const byPrefix =
  (make: (prefix: string) => TableHandler): PrefixedHandler =>
  (ctx, _args, prefix, op) =>
    make(prefix)(op, ctx);

export default definePlugin({
  name: 'tables',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, {
      prefixed: {
        track_table: byPrefix(prefixed.track_table),
        untrack_table: byPrefix(prefixed.untrack_table),
        set_table_customization: byPrefix(prefixed.set_table_customization),
        set_gateway_federation_config: byPrefix(prefixed.set_gateway_federation_config),
      },
      legacy: false,
      // The legacy forms take the table name itself as args, so they read `op.args` themselves.
      unprefixed: legacy,
      endpoints: { unprefixed: ['query'] },
    });
    registerMetadataOperations(hooks, PLUGIN_ID, {
      prefixed: { set_table_is_enum: byPrefix(prefixed.set_table_is_enum) },
      legacy: false,
      requires: 'enumTables',
    });
  },
});
