/**
 * `run_sql`: arbitrary SQL by an admin against a source, on `/v2/query` (also spelled `pg_run_sql`,
 * and `dist_run_sql` for the other PostgreSQL-family kind, as the reference engine accepts
 * `citus_run_sql`) and in legacy `/v1/query` requests. Not on `/v1/metadata`, like the reference.
 * Taps `onMetadataOperation`. Safe to disable: the metadata API keeps working, but schema changes
 * must then be made outside the engine and followed by reload_metadata.
 */
import { definePlugin } from '../../../core/plugin.js';
import type { MetadataEndpoint } from '../../../core/metadata/operation.js';
import { runSqlHandler } from './handler.js';

const PLUGIN_ID = 'metadata/run-sql';

/** Operation name → database-kind prefix, and the endpoints it answers on. */
const OPERATIONS: ReadonlyArray<readonly [string, string, readonly MetadataEndpoint[]]> = [
  ['run_sql', 'pg', ['schema', 'query']],
  ['pg_run_sql', 'pg', ['schema']],
  ['dist_run_sql', 'dist', ['schema']],
];

export default definePlugin({
  name: 'run-sql',
  kind: 'metadata',
  register(_container, hooks) {
    for (const [type, prefix, endpoints] of OPERATIONS) {
      const handler = runSqlHandler(prefix);
      hooks.onMetadataOperation
        .for(type)
        .tapPromise(PLUGIN_ID, async (op, ctx) => (endpoints.includes(ctx.endpoint) ? handler(op, ctx) : undefined));
    }
  },
});
