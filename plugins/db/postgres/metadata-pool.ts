/**
 * Pools on the metadata database (the metadata store's, and those of the catalog table stores).
 * They get the stall guard of `--pg-statement-timeout` as the sources do: a path to that database
 * that stalls would otherwise hold metadata calls, the schema-sync poll and the background
 * runners until the operating system gives up on the connection.
 */
import pg from 'pg';
import { EngineError } from '../../../core/sdk/index.js';
import { isConnectionError } from './pg-errors.js';
import { codedStall, StatementStalledError, stallGuardPoolConfig } from './stall-guard.js';

export interface MetadataPoolOptions {
  connectionString: string;
  max: number;
  applicationName: string;
  /** --pg-statement-timeout (seconds): the stall guard of stall-guard.ts; unset or 0, none. */
  statementTimeoutSeconds?: number | null | undefined;
  /** Idle connections do not keep the process alive (stores other than the metadata store's). */
  allowExitOnIdle?: boolean;
  /**
   * Compress large values this pool writes with lz4 where the server can (PostgreSQL 14+ built
   * with lz4): the metadata document is 5 MB at 1,000 tables, and the default pglz compression
   * doubled the time of its UPDATE, paid by every metadata operation. A server that cannot keeps
   * its default; values already stored read either way.
   */
  lz4Toast?: boolean;
}

const LZ4_TOAST = `SET default_toast_compression = 'lz4'`;

/** A pool on the metadata database. Connection errors never crash the process: the next query reconnects. */
export function createMetadataPool(options: MetadataPoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    application_name: options.applicationName,
    ...(options.allowExitOnIdle ? { allowExitOnIdle: true } : {}),
    ...stallGuardPoolConfig(options.statementTimeoutSeconds),
  });
  pool.on('error', () => {});
  // pg-pool listens only on idle clients; a checked-out one whose connection ends (a server
  // restart, or the stall guard closing it) would otherwise emit an unheard 'error'.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    // Queued ahead of the first statement of whoever checked the client out; a refusal (an
    // older server, no lz4) leaves the session as it was.
    if (options.lz4Toast) client.query(LZ4_TOAST).catch(() => {});
  });
  return pool;
}

/**
 * A failure on the metadata database as the engine answers it: a stalled statement is
 * `statement-timeout`, a connection that cannot be opened or was lost `connection-not-established`
 * (both coded, where they would otherwise be an `unexpected` 500); anything else unchanged.
 */
export function metadataDatabaseError(err: unknown): unknown {
  if (err instanceof StatementStalledError) return codedStall(err, 'the metadata database');
  if (isConnectionError(err)) {
    return new EngineError('connection-not-established', `connection error on the metadata database: ${(err as Error).message}`, { status: 500 });
  }
  return err;
}
