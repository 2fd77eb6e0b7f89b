/**
 * The metadata store: the whole metadata as one JSON document in `svc_catalog.svc_metadata`, with a
 * `resource_version` for optimistic concurrency. Start-up creates or migrates the catalog under an
 * advisory lock, so two engines starting on one database at once don't race.
 */
import pg from 'pg';
import { BootError, EngineError, isBootError } from '../errors.js';
import type { MetadataDocument } from './types.js';
import { CATALOG_MIGRATIONS, LATEST_CATALOG_VERSION } from './catalog-migrations.js';

/** Arbitrary constant naming the catalog's advisory lock. */
const CATALOG_LOCK_KEY = 720_011_531;

export interface StoredMetadata {
  metadata: MetadataDocument;
  resourceVersion: number;
}

export class MetadataStore {
  private readonly pool: pg.Pool;

  constructor(connectionString: string, maxConnections = 2) {
    this.pool = new pg.Pool({ connectionString, max: maxConnections, application_name: 'svc-graphql-engine-metadata' });
    // An idle client dropped by the server must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /**
   * Creates or migrates the catalog. `initial` gives the metadata of a brand-new catalog.
   * Returns the catalog version in force afterwards.
   */
  async init(initial: () => MetadataDocument): Promise<number> {
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

  async read(): Promise<StoredMetadata> {
    const { rows } = await this.pool.query<{ metadata: string; resource_version: number }>(
      'SELECT metadata::text AS metadata, resource_version FROM svc_catalog.svc_metadata WHERE id = 1',
    );
    const row = rows[0];
    if (!row) throw new EngineError('unexpected', 'the metadata catalog has no metadata row');
    return { metadata: JSON.parse(row.metadata) as MetadataDocument, resourceVersion: row.resource_version };
  }

  async resourceVersion(): Promise<number> {
    const { rows } = await this.pool.query<{ resource_version: number }>(
      'SELECT resource_version FROM svc_catalog.svc_metadata WHERE id = 1',
    );
    return rows[0]?.resource_version ?? 0;
  }

  /** Writes the metadata if the stored version is still `expected`; else 409 `conflict`. */
  async write(metadata: MetadataDocument, expected: number): Promise<number> {
    const { rows } = await this.pool.query<{ resource_version: number }>(
      `UPDATE svc_catalog.svc_metadata SET metadata = $1, resource_version = resource_version + 1
       WHERE id = 1 AND resource_version = $2 RETURNING resource_version`,
      [JSON.stringify(metadata), expected],
    );
    const row = rows[0];
    if (!row) {
      throw new EngineError('conflict', `metadata resource version referenced (${expected}) did not match current version`, {
        status: 409,
      });
    }
    return row.resource_version;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
