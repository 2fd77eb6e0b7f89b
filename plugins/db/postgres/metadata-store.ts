/**
 * The PostgreSQL metadata store: the whole metadata as one JSON document in
 * `svc_catalog.svc_metadata`, with a `resource_version` for optimistic concurrency. Start-up
 * creates or migrates the catalog under an advisory lock, so two engines starting on one database
 * at once don't race. The connection string is asked for on `init`, so that the embedded database
 * starts only then (plugin registration does no I/O).
 */
import pg from 'pg';
import {
  BootError,
  EngineError,
  isBootError,
  metadataDocumentJson,
  type MetadataDocument,
  type MetadataStore,
  type PendingMetadataWrite,
  type StoredMetadata,
} from '../../../core/sdk/index.js';
import { CATALOG_MIGRATIONS, LATEST_CATALOG_VERSION } from './catalog-migrations.js';
import { isConnectionError } from './pg-errors.js';
import { createMetadataPool, metadataDatabaseError } from './metadata-pool.js';
import { StatementStalledError } from './stall-guard.js';

/** Arbitrary constant naming the catalog's advisory lock. */
const CATALOG_LOCK_KEY = 720_011_531;

const WRITE = `UPDATE svc_catalog.svc_metadata SET metadata = $1, resource_version = resource_version + 1
  WHERE id = 1 AND resource_version = $2 RETURNING resource_version`;

// The text of unchanged (frozen, shared) table entries is reused: one change at 1,000 tables does
// not serialise all of them again.
const writeValues = (metadata: MetadataDocument, expected: number): unknown[] => [metadataDocumentJson(metadata), expected];

/** The new version of a WRITE, or 409 `conflict` when the stored one was no longer `expected`. */
function writtenVersion(rows: ReadonlyArray<{ resource_version: number }>, expected: number): number {
  const row = rows[0];
  if (!row) {
    throw new EngineError('conflict', `metadata resource version referenced (${expected}) did not match current version`, {
      status: 409,
    });
  }
  return row.resource_version;
}

export interface PgMetadataDatabase {
  connectionString: string;
  maxConnections: number;
  /** --pg-statement-timeout: the metadata database's pools get the sources' stall guard. */
  statementTimeoutSeconds?: number | undefined;
}

export class PgMetadataStore implements MetadataStore {
  private poolOrNull: pg.Pool | null = null;
  private exclusive = false;
  connectionString: string | undefined;

  /**
   * The store's own pool when no second connection to its database is safe (the embedded
   * database: one session behind every socket), for PostgreSQL plugins that keep state beside the
   * metadata (scheduled events, async actions); undefined otherwise, and they open their own.
   */
  sharedPool(): pg.Pool | undefined {
    return this.exclusive ? (this.poolOrNull ?? undefined) : undefined;
  }

  constructor(private readonly database: () => Promise<PgMetadataDatabase>) {}

  private get pool(): pg.Pool {
    if (!this.poolOrNull) throw new EngineError('unexpected', 'the metadata store is used before init()');
    return this.poolOrNull;
  }

  /**
   * Whether the metadata database answers `SELECT 1` within `timeoutMs` (for /healthz). A pool
   * that cannot connect fails fast; a stalled one is cut off by the deadline.
   */
  async reachable(timeoutMs: number): Promise<boolean> {
    if (!this.poolOrNull) return false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const probe = this.poolOrNull.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([probe, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Creates or migrates the catalog. `initial` gives the metadata of a brand-new catalog.
   * Returns the catalog version in force afterwards.
   */
  async init(initial: () => MetadataDocument): Promise<number> {
    if (!this.poolOrNull) {
      const { connectionString, maxConnections, statementTimeoutSeconds } = await this.database();
      this.connectionString = connectionString;
      this.exclusive = maxConnections === 1;
      this.poolOrNull = createMetadataPool({
        connectionString,
        max: maxConnections,
        applicationName: 'svc-graphql-engine-metadata',
        statementTimeoutSeconds,
        lz4Toast: true,
      });
    }
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw new BootError('E_DATABASE_UNAVAILABLE', `cannot connect to the metadata database: ${(e as Error).message}`, { cause: e });
    }
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_LOCK_KEY]);
      await client.query('CREATE SCHEMA IF NOT EXISTS svc_catalog');
      await client.query(`CREATE TABLE IF NOT EXISTS svc_catalog.svc_version (
        id integer PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        version integer NOT NULL,
        upgraded_on timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM svc_catalog.svc_version');
      const current = rows[0]?.version ?? 0;
      if (current > LATEST_CATALOG_VERSION) {
        throw new BootError(
          'E_CATALOG_MIGRATION',
          `the metadata catalog is at version ${current}, newer than this engine supports (${LATEST_CATALOG_VERSION}); upgrade the engine`,
        );
      }
      for (const m of CATALOG_MIGRATIONS) {
        if (m.version > current) await client.query(m.sql);
      }
      if (current === 0) {
        await client.query('INSERT INTO svc_catalog.svc_metadata (id, metadata, resource_version) VALUES (1, $1, 1)', [
          JSON.stringify(initial()),
        ]);
      }
      await client.query(
        `INSERT INTO svc_catalog.svc_version (id, version) VALUES (1, $1)
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, upgraded_on = now()`,
        [LATEST_CATALOG_VERSION],
      );
      await client.query('COMMIT');
      return LATEST_CATALOG_VERSION;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      if (isBootError(e)) throw e;
      throw new BootError('E_CATALOG_MIGRATION', `cannot prepare the metadata catalog: ${(e as Error).message}`, { cause: e });
    } finally {
      client.release();
    }
  }

  /**
   * Reads are retried once on a connection error: after the database restarts, the pool may hand
   * out an idle connection whose end it has not noticed yet, and a read is safe to repeat.
   */
  private async readQuery<R extends pg.QueryResultRow>(text: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text);
    } catch (e) {
      // A stalled path stays stalled: trying again would only double the wait.
      if (!isConnectionError(e) || e instanceof StatementStalledError) throw metadataDatabaseError(e);
      return this.pool.query<R>(text).catch((again: unknown) => {
        throw metadataDatabaseError(again);
      });
    }
  }

  async read(): Promise<StoredMetadata> {
    const { rows } = await this.readQuery<{ metadata: string; resource_version: number }>(
      'SELECT metadata::text AS metadata, resource_version FROM svc_catalog.svc_metadata WHERE id = 1',
    );
    const row = rows[0];
    if (!row) throw new EngineError('unexpected', 'the metadata catalog has no metadata row');
    return { metadata: JSON.parse(row.metadata) as MetadataDocument, resourceVersion: row.resource_version };
  }

  async resourceVersion(): Promise<number> {
    const { rows } = await this.readQuery<{ resource_version: number }>(
      'SELECT resource_version FROM svc_catalog.svc_metadata WHERE id = 1',
    );
    return rows[0]?.resource_version ?? 0;
  }

  /** Writes the metadata if the stored version is still `expected`; else 409 `conflict`. */
  async write(metadata: MetadataDocument, expected: number): Promise<number> {
    const { rows } = await this.pool.query<{ resource_version: number }>(WRITE, writeValues(metadata, expected)).catch((e: unknown) => {
      throw metadataDatabaseError(e);
    });
    return writtenVersion(rows, expected);
  }

  /**
   * The UPDATE of `write`, in a transaction left open until `commit` or `abort`. Its row lock holds
   * off other engines' writes meanwhile (they then fail their version check, as they would after a
   * plain write). Not with one connection in all (the embedded database), which the build may need.
   */
  beginWrite(metadata: MetadataDocument, expected: number): Promise<PendingMetadataWrite> | undefined {
    if (this.exclusive) return undefined;
    return this.sendAhead(writeValues(metadata, expected), expected);
  }

  private async sendAhead(values: unknown[], expected: number): Promise<PendingMetadataWrite> {
    const client = await this.pool.connect().catch((e: unknown) => {
      throw metadataDatabaseError(e);
    });
    try {
      await client.query('BEGIN');
    } catch (e) {
      client.release(e as Error);
      throw metadataDatabaseError(e);
    }
    // Sent now; its outcome is read by commit() (abort() only rolls back).
    const updated = client.query<{ resource_version: number }>(WRITE, values).then(
      (r) => ({ rows: r.rows, error: undefined }),
      (e: unknown) => ({ rows: [], error: e }),
    );
    // The caller builds next, synchronously for tens of ms: one turn of the event loop first lets the
    // socket take what it did not take at once of the 5 MB, so the database works meanwhile.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let done = false;
    return {
      commit: async () => {
        done = true;
        const { rows, error } = await updated;
        let broken: Error | undefined;
        try {
          if (error !== undefined) throw error;
          const version = writtenVersion(rows, expected);
          await client.query('COMMIT');
          return version;
        } catch (e) {
          if (isConnectionError(e)) broken = e as Error;
          await client.query('ROLLBACK').catch(() => {});
          throw e instanceof EngineError ? e : metadataDatabaseError(e);
        } finally {
          client.release(broken);
        }
      },
      abort: async () => {
        if (done) return;
        done = true;
        await updated;
        const failed = await client.query('ROLLBACK').then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        client.release(failed);
      },
    };
  }

  async close(): Promise<void> {
    await this.poolOrNull?.end();
    this.poolOrNull = null;
  }
}
