/**
 * Table operations: `<prefix>_track_table`, `_untrack_table`, `_set_table_customization`,
 * `_set_gateway_federation_config` for every kind prefix, `pg_set_table_is_enum`, and the legacy
 * `/v1/query` forms (`track_table`, `untrack_table`, `set_table_custom_fields`,
 * `set_table_customization`, `set_table_is_enum`), which only answer on that endpoint.
 */
import { definePlugin } from '../../../core/plugin.js';
import type { MetadataEndpoint } from '../../../core/metadata/operation.js';
import { legacy, prefixed, type TableHandler } from './operations.js';

const PLUGIN_ID = 'metadata/tables';

export const TABLE_PREFIXES = ['pg', 'sqlb', 'dist', 'wh'] as const;

/** Kinds with enum tables (the spec shows the operation for `pg_` only). */
const ENUM_PREFIXES = ['pg'] as const;

export default definePlugin({
  name: 'tables',
  kind: 'metadata',
  register(_container, hooks) {
    const tap = (type: string, endpoint: MetadataEndpoint, handler: TableHandler) =>
      hooks.onMetadataOperation.for(type).tapPromise(PLUGIN_ID, async (op, ctx) => (ctx.endpoint === endpoint ? handler(op, ctx) : undefined));
    for (const prefix of TABLE_PREFIXES) {
      tap(`${prefix}_track_table`, 'metadata', prefixed.track_table(prefix));
      tap(`${prefix}_untrack_table`, 'metadata', prefixed.untrack_table(prefix));
      tap(`${prefix}_set_table_customization`, 'metadata', prefixed.set_table_customization(prefix));
      tap(`${prefix}_set_gateway_federation_config`, 'metadata', prefixed.set_gateway_federation_config(prefix));
    }
    for (const prefix of ENUM_PREFIXES) tap(`${prefix}_set_table_is_enum`, 'metadata', prefixed.set_table_is_enum(prefix));
    for (const [type, handler] of Object.entries(legacy)) tap(type, 'query', handler);
  },
});
