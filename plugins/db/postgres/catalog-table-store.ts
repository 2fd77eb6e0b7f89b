/**
 * What the plugins that keep tables of their own in the metadata database's `svc_catalog`
 * (scheduled events, async actions) share: how they reach that database, a pool with the same
 * stall deadline as the metadata store's, tables created on first use under an advisory lock (so
 * engines starting at once do not race), and closing only a pool they own.
 */
import pg from 'pg';
import { EngineError, METADATA_STORE_KEY, type AwilixContainer, type ServerConfig } from '../../../core/sdk/index.js';
import { createMetadataPool, metadataDatabaseError } from './metadata-pool.js';

/** The metadata database as a catalog table store reaches it: the store's shared pool, or a URL for a pool of its own. */
export type CatalogDatabase = { pool: pg.Pool } | { connectionString: string; statementTimeoutSeconds?: number | undefined };

/**
 * How to reach the PostgreSQL metadata database: the metadata store's own pool when it must be
 * shared (the embedded database: one session behind every socket), else its connection string.
 * Other metadata stores have neither: `feature` then needs what this engine does not have.
 */
export function catalogDatabase(container: AwilixContainer, feature: string): CatalogDatabase {
  const store = container.hasRegistration(METADATA_STORE_KEY)
    ? container.resolve<{ sharedPool?: () => pg.Pool | undefined }>(METADATA_STORE_KEY)
    : undefined;
  const shared = store?.sharedPool?.();
  if (shared) return { pool: shared };
  const url = container.hasRegistration('metadataDatabaseUrl') ? container.resolve<string | undefined>('metadataDatabaseUrl') : undefined;
  if (url === undefined) throw new EngineError('unexpected', `${feature} need a metadata store in a PostgreSQL database`);
  const config = container.hasRegistration('config') ? container.resolve<ServerConfig>('config') : undefined;
  return { connectionString: url, statementTimeoutSeconds: config?.pgStatementTimeout };
}

export interface CatalogTables {
  /** Idempotent DDL (`CREATE ... IF NOT EXISTS`) of the store's tables in svc_catalog. */
  ddl: string;
  /** Arbitrary constant naming the advisory lock that serialises creating them. */
  createLock: number;
  /** `application_name` of a pool of the store's own. */
  applicationName: string;
}

/** `work` inside one transaction on one connection of `pool`: committed when it returns, rolled back when it throws. */
export async function catalogTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((e: unknown) => {
    throw metadataDatabaseError(e);
  });
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    // A connection that cannot even roll back is not given back to the pool.
    await client.query('ROLLBACK').catch(() => {
      broken = e instanceof Error ? e : new Error(String(e));
    });
    throw metadataDatabaseError(e);
  } finally {
    client.release(broken);
  }
}

/**
 * Creates a store's tables under its advisory lock: without it, engines starting at once race on
 * the catalog (a concurrent `CREATE TABLE IF NOT EXISTS` can still fail on the relation, its row
 * type or a catalog key). Also used by stores with a pool of their own options (the rate limits').
 */
export function createCatalogTables(pool: pg.Pool, tables: Pick<CatalogTables, 'ddl' | 'createLock'>): Promise<void> {
  return catalogTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [tables.createLock]);
    await client.query('CREATE SCHEMA IF NOT EXISTS svc_catalog');
    await client.query(tables.ddl);
  });
}

export class CatalogTableStore {
  protected readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private ready: Promise<void> | undefined;

  constructor(
    database: CatalogDatabase,
    private readonly tables: CatalogTables,
  ) {
    this.ownsPool = !('pool' in database);
    this.pool =
      'pool' in database
        ? database.pool
        : createMetadataPool({
            connectionString: database.connectionString,
            max: 3,
            applicationName: tables.applicationName,
            statementTimeoutSeconds: database.statementTimeoutSeconds,
            allowExitOnIdle: true,
          });
  }

  /** Creates the tables once; a failed attempt is tried again by the next call. */
  init(): Promise<void> {
    this.ready ??= createCatalogTables(this.pool, this.tables).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  protected async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    await this.init();
    return this.pool.query<R>(text, values).catch((e: unknown) => {
      throw metadataDatabaseError(e);
    });
  }

  /** `work` inside one transaction on one connection: committed when it returns, rolled back when it throws. */
  protected transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return catalogTransaction(this.pool, work);
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
