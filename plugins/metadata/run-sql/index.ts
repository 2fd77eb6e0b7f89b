/**
 * `run_sql`: arbitrary SQL by an admin against a source, as `<prefix>_run_sql` on `/v2/query` for
 * every kind with the `runSql` capability (`pg_run_sql`; the reference also accepts
 * `citus_run_sql` for its other PostgreSQL-family kind), and as `run_sql` on `/v2/query` and in
 * legacy `/v1/query` requests. Not on `/v1/metadata`, like the reference.
 * Taps `onMetadataOperation`. Safe to disable: the metadata API keeps working, but schema changes
 * must then be made outside the engine and followed by reload_metadata.
 */
import { definePlugin, type PrefixedHandler, registerMetadataOperations } from '../../../core/sdk/index.js';
import { runSqlHandler } from './handler.js';

const PLUGIN_ID = 'metadata/run-sql';

const runSql: PrefixedHandler = (ctx, _args, prefix, op) => runSqlHandler(prefix)(op, ctx);

export default definePlugin({
  name: 'run-sql',
  kind: 'metadata',
  register(_container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, {
      prefixed: { run_sql: runSql },
      requires: 'runSql',
      endpoints: { prefixed: ['schema'], legacy: ['schema', 'query'] },
    });
  },
});
