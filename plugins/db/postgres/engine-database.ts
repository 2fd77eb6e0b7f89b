/**
 * The engine's own PostgreSQL database: the one `--database-url` names, or, when neither it nor
 * `--metadata-database-url` is given, the embedded PostgreSQL (PGlite), started on first use and
 * stopped when the container is disposed. It holds the metadata catalog, and the `default` source
 * a new catalog starts with points at it.
 */
import {
  DATABASE_URL_ENV,
  type Logger,
  type ServerConfig,
  type SourceMetadata,
} from '../../../core/sdk/index.js';
import { EMBEDDED_MAX_CONNECTIONS, startEmbeddedPostgres, type EmbeddedPostgres } from './embedded/pglite.js';
import type { PgMetadataDatabase } from './metadata-store.js';

export type EngineDatabaseMode = 'url' | 'embedded' | 'none';

/** `none`: only a metadata database is configured, so there is no default source. */
export function engineDatabaseMode(config: ServerConfig): EngineDatabaseMode {
  if (config.databaseUrl) return 'url';
  return config.metadataDatabaseUrl ? 'none' : 'embedded';
}

export class EngineDatabase {
  private embedded: Promise<EmbeddedPostgres> | undefined;

  constructor(
    private readonly config: ServerConfig,
    /** The environment `{from_env}` references resolve against: the embedded URL is set there. */
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {}

  get mode(): EngineDatabaseMode {
    return engineDatabaseMode(this.config);
  }

  /** Where the metadata catalog lives; starts the embedded database when it is the one. */
  async metadataDatabase(): Promise<PgMetadataDatabase> {
    const url = this.config.metadataDatabaseUrl ?? this.config.databaseUrl;
    const statementTimeoutSeconds = this.config.pgStatementTimeout;
    if (url) return { connectionString: url, maxConnections: 2, statementTimeoutSeconds };
    const embedded = await this.startEmbedded();
    return { connectionString: embedded.url, maxConnections: EMBEDDED_MAX_CONNECTIONS, statementTimeoutSeconds };
  }

  private startEmbedded(): Promise<EmbeddedPostgres> {
    this.embedded ??= startEmbeddedPostgres({
      dataDir: this.config.dataDir,
      log: (level, message, detail) => this.logger.log('startup', level, { message, ...detail }),
    }).then((embedded) => {
      this.env[DATABASE_URL_ENV] = embedded.url;
      this.logger.info('startup', {
        kind: 'database',
        message:
          `no database URL given: using the embedded PostgreSQL (PGlite) with data in ${embedded.dataDir}. ` +
          'It is meant for trying the engine and for development; for production set SVC_GRAPHQL_DATABASE_URL ' +
          '(or --database-url) to postgres://<user>:<password>@<host>:<port>/<db-name>.',
      });
      return embedded;
    });
    return this.embedded;
  }

  async stop(): Promise<void> {
    const embedded = await this.embedded?.catch(() => undefined);
    this.embedded = undefined;
    await embedded?.stop();
  }

  /**
   * The `default` source of a new catalog. The embedded database serves one session to every
   * socket, so its source gets one connection and no named prepared statements (another socket's
   * reconnect would collide with them).
   */
  defaultSource(): SourceMetadata | null {
    const mode = this.mode;
    if (mode === 'none') return null;
    const embedded = mode === 'embedded';
    const config = this.config;
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
}
