/**
 * The metadata a new catalog starts with (and clear_metadata returns to): a `default` source on the
 * engine's own database when one is configured, connected through the SVC_GRAPHQL_DATABASE_URL
 * environment reference so that the stored metadata never holds a password.
 */
import type { ServerConfig } from '../config/types.js';
import type { MetadataDocument, SourceMetadata } from './types.js';

export const DATABASE_URL_ENV = 'SVC_GRAPHQL_DATABASE_URL';

/**
 * `embedded`: the embedded database serves one session to every socket, so its source gets one
 * connection and no named prepared statements (another socket's reconnect would collide with them).
 */
export function defaultSource(config: ServerConfig, database: 'url' | 'embedded' | 'none'): SourceMetadata | null {
  if (database === 'none') return null;
  const embedded = database === 'embedded';
  return {
    name: 'default',
    kind: 'postgres',
    tables: [],
    configuration: {
      connection_info: {
        database_url: { from_env: DATABASE_URL_ENV },
        isolation_level: config.txIsolation,
        pool_settings: {
          connection_lifetime: config.pgConnLifetime,
          idle_timeout: config.pgTimeout,
          max_connections: embedded ? 1 : config.pgConnections,
          retries: config.noOfRetries,
          ...(config.poolTimeout !== undefined ? { pool_timeout: config.poolTimeout } : {}),
        },
        use_prepared_statements: embedded ? false : config.usePreparedStatements,
      },
    },
  };
}

export function initialMetadata(source: SourceMetadata | null): MetadataDocument {
  return { version: 3, sources: source ? [structuredClone(source)] : [] };
}
