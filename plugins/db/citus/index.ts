/**
 * The `citus` database kind (`dist_` operations): Citus, the distributed PostgreSQL, served by the
 * PostgreSQL plugin's connection and compiler (source-connection.ts) with Citus's rules: each
 * table's distribution read from the Citus catalog, the joins Citus can run between local,
 * reference and distributed tables (join-rules.ts), and what the reference engine leaves out for
 * Citus (no computed fields, enum tables, event triggers or Relay). Registers `db.citus`; taps
 * `onSchemaBuild` at DEFAULT for its sources' root fields. Safe to disable (its sources then
 * become inconsistent). The `catalogSchema` option exists for tests that emulate the Citus
 * catalog on plain PostgreSQL (README.md).
 */
import { addSourceToDraft, asValue, definePlugin, Stage, type DatabaseKind, type Logger, type ServerConfig } from '../../../core/sdk/index.js';
import { parsePgSourceConfiguration, resolvePgSourceConfiguration } from '../postgres/connection-info.js';
import { POSTGRES_SCALAR_TYPES } from '../postgres/scalar-types.js';
import { checkCitusRelationship } from './join-rules.js';
import { CitusSourceConnection } from './source-connection.js';

const PLUGIN_ID = 'db/citus';

interface CitusOptions {
  /** Schema holding `pg_dist_partition`: Citus keeps it in `pg_catalog`. */
  catalogSchema: string;
}

export default definePlugin<CitusOptions>({
  name: 'citus',
  kind: 'db',
  dependsOn: ['db/postgres'],
  optionsSchema: {
    type: 'object',
    properties: { catalogSchema: { type: 'string', minLength: 1, default: 'pg_catalog' } },
    required: ['catalogSchema'],
    additionalProperties: false,
  },
  register(container, hooks, { catalogSchema }) {
    const env = container.resolve<NodeJS.ProcessEnv>('env');
    const logger = container.resolve<Logger>('logger');
    const config = container.resolve<ServerConfig>('config');
    const defaults = { statementTimeoutSeconds: config.pgStatementTimeout || null, jit: config.pgJit };
    const kind: DatabaseKind = {
      kind: 'citus',
      prefix: 'dist',
      // The reference's Citus commands: sources, tables, permissions, functions, relationships and
      // remote relationships, run_sql; live queries and streams. No computed fields, enum tables
      // or event triggers (Citus allows no triggers on reference tables).
      capabilities: { functions: true, runSql: true, mutations: true, remoteRelationships: true, distinctOn: true, subscriptions: true },
      scalarTypes: POSTGRES_SCALAR_TYPES,
      validateConfiguration: (configuration, path) => {
        parsePgSourceConfiguration(configuration, path);
      },
      connect: (sourceName, configuration) =>
        new CitusSourceConnection(resolvePgSourceConfiguration(configuration, env, { defaults }), catalogSchema, (message) =>
          logger.warn('source-health', { source: sourceName, message }),
        ),
      checkRelationship: checkCitusRelationship,
    };
    container.register({ 'db.citus': asValue(kind) });

    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (draft, ctx) => {
      for (const source of ctx.cache.sources.values()) {
        if (source.kind === 'citus') addSourceToDraft(draft, source, ctx);
      }
      return draft;
    });
  },
});
