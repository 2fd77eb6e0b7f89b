/**
 * The `mariadb` database kind (`maria_` operations), written against the SDK alone: mysql2 pools
 * per source (opened on first use, so loading this plugin costs nothing until a source is
 * added), introspection from information_schema, the query IR compiled to one MariaDB statement
 * per root field (JSON_OBJECT / JSON_ARRAYAGG), insert/update/delete mutations, and
 * subscriptions (live queries and streams, polled). It declares `mutations` and `subscriptions`:
 * no distinct_on, functions, computed fields, enum tables, run_sql, event triggers or remote
 * relationships, so the engine offers none of those for its sources. Taps `onSchemaBuild` at DEFAULT; safe to disable (its sources become inconsistent).
 */
import { addSourceToDraft, asValue, definePlugin, Stage, type DatabaseKind } from '../../../core/sdk/index.js';
import { parseMariaConfiguration, resolveMariaConfiguration } from './config.js';
import { MariaSourceConnection } from './source-connection.js';
import { MARIADB_SCALAR_TYPES } from './scalar-types.js';

const PLUGIN_ID = 'db/mariadb';

export default definePlugin({
  name: 'mariadb',
  kind: 'db',
  register(container, hooks) {
    const env = container.hasRegistration('env') ? container.resolve<NodeJS.ProcessEnv>('env') : process.env;
    const kind: DatabaseKind = {
      kind: 'mariadb',
      prefix: 'maria',
      capabilities: { mutations: true, subscriptions: true },
      scalarTypes: MARIADB_SCALAR_TYPES,
      validateConfiguration: (configuration, path) => {
        parseMariaConfiguration(configuration, path);
      },
      // Environment variables are read when the pool opens, so a missing one fails requests, not the start.
      connect: (_sourceName, configuration) => new MariaSourceConnection(() => resolveMariaConfiguration(configuration, env)),
    };
    container.register({ 'db.mariadb': asValue(kind) });
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (draft, ctx) => {
      for (const source of ctx.cache.sources.values()) {
        if (source.kind === 'mariadb') addSourceToDraft(draft, source, ctx);
      }
      return draft;
    });
  },
});
