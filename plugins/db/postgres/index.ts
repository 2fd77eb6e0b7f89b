/**
 * The `postgres` database kind (`pg_` operations): connection pools per source, introspection,
 * compilation of the query IR into one SQL statement per root field, the source's root fields
 * in every role's GraphQL schema (taps `onSchemaBuild` at DEFAULT), and the event-trigger
 * capability (capture triggers and the event log in the source's svc_catalog schema). Registers
 * `db.postgres`, and the engine's own database: `metadataStore` (the svc_catalog schema) on
 * `--database-url` or, without one, on the embedded PostgreSQL it starts. Not safe to disable
 * unless another plugin provides `metadataStore`.
 */
import { POSTGRES_SCALAR_TYPES } from './scalar-types.js';
import {
  addSourceToDraft,
  asFunction,
  asValue,
  definePlugin,
  EngineError,
  METADATA_STORE_KEY,
  Stage,
  type DatabaseKind,
  type Logger,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { EngineDatabase } from './engine-database.js';
import { PgMetadataStore } from './metadata-store.js';
import { parsePgSourceConfiguration, resolvePgSourceConfiguration } from './connection-info.js';
import { PgSourceConnection } from './source-connection.js';
import { PgEventLog } from './event-triggers/event-log.js';

const PLUGIN_ID = 'db/postgres';

export default definePlugin({
  name: 'postgres',
  kind: 'db',
  register(container, hooks) {
    const env = container.resolve<NodeJS.ProcessEnv>('env');
    const logger = container.resolve<Logger>('logger');
    const config = container.resolve<ServerConfig>('config');
    const engineDatabase = new EngineDatabase(config, env, logger);
    const engineSourceDefaults = { statementTimeoutSeconds: config.pgStatementTimeout || null, jit: config.pgJit };
    container.register({
      [METADATA_STORE_KEY]: asFunction(() => new PgMetadataStore(() => engineDatabase.metadataDatabase()))
        .singleton()
        // The embedded database stops after the store's pool has ended.
        .disposer(async (store) => {
          await store.close();
          await engineDatabase.stop();
        }),
    });
    const kind: DatabaseKind = {
      kind: 'postgres',
      prefix: 'pg',
      capabilities: { functions: true, computedFields: true, enumTables: true, runSql: true, mutations: true, eventTriggers: true, remoteRelationships: true, distinctOn: true, subscriptions: true, relay: true },
      scalarTypes: POSTGRES_SCALAR_TYPES,
      validateConfiguration: (configuration, path) => {
        parsePgSourceConfiguration(configuration, path);
      },
      connect: (sourceName, configuration) =>
        new PgSourceConnection(resolvePgSourceConfiguration(configuration, env, { defaults: engineSourceDefaults }), (message) =>
          logger.warn('source-health', { source: sourceName, message }),
        ),
      defaultSource: () => engineDatabase.defaultSource(),
      eventTriggers: {
        defaultTriggerOnReplication: false,
        eventLog: (connection) => {
          if (!(connection instanceof PgSourceConnection)) throw new EngineError('unexpected', 'event log asked of a connection of another kind');
          return (connection.eventLog ??= new PgEventLog(connection.pool));
        },
      },
    };
    container.register({ 'db.postgres': asValue(kind) });

    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (draft, ctx) => {
      for (const source of ctx.cache.sources.values()) {
        if (source.kind === 'postgres') addSourceToDraft(draft, source, ctx);
      }
      return draft;
    });
  },
});
