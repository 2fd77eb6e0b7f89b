/**
 * The `postgres` database kind (`pg_` operations): connection pools per source, introspection,
 * compilation of the query IR into one SQL statement per root field, and the source's root fields
 * in every role's GraphQL schema (taps `onSchemaBuild` at DEFAULT). Registers `db.postgres`.
 */
import { asValue } from 'awilix';
import { definePlugin } from '../../../core/plugin.js';
import { Stage } from '../../../core/hooks.js';
import type { DatabaseKind } from '../../../core/db/contract.js';
import type { Logger } from '../../../core/logger.js';
import { addSourceToDraft } from '../../../core/graphql/schema/index.js';
import { parsePgSourceConfiguration, resolvePgSourceConfiguration } from './connection-info.js';
import { PgSourceConnection } from './source-connection.js';

const PLUGIN_ID = 'db/postgres';

export default definePlugin({
  name: 'postgres',
  kind: 'db',
  register(container, hooks) {
    const env = container.resolve<NodeJS.ProcessEnv>('env');
    const logger = container.resolve<Logger>('logger');
    const kind: DatabaseKind = {
      kind: 'postgres',
      prefix: 'pg',
      validateConfiguration: (configuration, path) => {
        parsePgSourceConfiguration(configuration, path);
      },
      connect: (sourceName, configuration) =>
        new PgSourceConnection(resolvePgSourceConfiguration(configuration, env), (message) =>
          logger.warn('source-health', { source: sourceName, message }),
        ),
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
