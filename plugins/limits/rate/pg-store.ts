/**
 * Rate-limit reservations in the metadata database, for deployments without Redis: one row per
 * key with the window's reservations (times in milliseconds of the database clock, and token
 * counts). A batch of reservations is one upsert whose row locks serialise concurrent engines on
 * the same key, so each window's total is exact across instances. All the SQL of the store is here, beside
 * the metadata store it shares a database with.
 */
import pg from 'pg';
import { createCatalogTables } from '../../db/postgres/catalog-table-store.js';
import { queryFirstText } from '../../db/postgres/json-text-query.js';
import { isConnectionError } from '../../db/postgres/pg-errors.js';
import { guardedClientClass } from '../../db/postgres/stall-guard.js';
import { STORE_TIMEOUT_MS, type Grant, type RateStore, type Reservation } from './store.js';

const CREATE = `CREATE TABLE IF NOT EXISTS svc_catalog.svc_rate_lease (
  key text PRIMARY KEY,
  at bigint[] NOT NULL,
  n int[] NOT NULL,
  wanted int NOT NULL,
  max int NOT NULL,
  granted int NOT NULL,
  retry_ms bigint NOT NULL
)`;

// $1 keys, $2 tokens wanted, $3 max per window (arrays, one entry per key), $4 window in ms. The
// reservations kept are those inside the window; the new one gets what the window has left, up to
// the tokens wanted (carried to the update as excluded.wanted / excluded.max). The expressions read
// each row as locked by ON CONFLICT (not the statement's snapshot), which is what makes it exact;
// rows are taken in key order so that two engines' batches cannot deadlock.
// statement_timestamp() is the database's clock. The grants come back as one JSON text (see
// PgRateStore: the statement goes through the engine's own query type).
const RESERVE = `
WITH clock AS (SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now),
reserved AS (
INSERT INTO svc_catalog.svc_rate_lease AS r (key, at, n, wanted, max, granted, retry_ms)
SELECT q.key,
  CASE WHEN least(q.want, q.max) > 0 THEN ARRAY[clock.now] ELSE '{}'::bigint[] END,
  CASE WHEN least(q.want, q.max) > 0 THEN ARRAY[least(q.want, q.max)] ELSE '{}'::int[] END,
  q.want, q.max, greatest(least(q.want, q.max), 0), $4::bigint
FROM clock, unnest($1::text[], $2::int[], $3::int[]) AS q(key, want, max)
ORDER BY q.key
ON CONFLICT (key) DO UPDATE SET (at, n, wanted, max, granted, retry_ms) = (
  SELECT live.at || CASE WHEN g.g > 0 THEN ARRAY[clock.now] ELSE '{}'::bigint[] END,
         live.n || CASE WHEN g.g > 0 THEN ARRAY[g.g] ELSE '{}'::int[] END,
         excluded.wanted, excluded.max, g.g,
         coalesce(live.oldest, clock.now) + $4::bigint - clock.now
  FROM clock,
  LATERAL (SELECT coalesce(array_agg(e.at ORDER BY e.at), '{}') AS at, coalesce(array_agg(e.n ORDER BY e.at), '{}') AS n,
                  coalesce(sum(e.n), 0) AS used, min(e.at) AS oldest
           FROM unnest(r.at, r.n) AS e(at, n) WHERE e.at > clock.now - $4::bigint) AS live,
  LATERAL (SELECT greatest(0, least(excluded.wanted, excluded.max - live.used))::int AS g) AS g
)
RETURNING key, granted, retry_ms
)
SELECT coalesce(json_agg(json_build_array(key, granted, retry_ms)), '[]')::text FROM reserved`;

// Rows whose newest reservation (the last: reservations are kept in time order) left the window.
// Rows a reservation holds locked are skipped (the next sweep gets them): waiting for them, while
// the reservation waits for a row this statement locked, would be a deadlock. A row updated since
// the statement's snapshot is re-checked by FOR UPDATE, so a key that just reserved again is kept.
const EXPIRE = `
DELETE FROM svc_catalog.svc_rate_lease
WHERE key IN (
  SELECT key FROM svc_catalog.svc_rate_lease
  WHERE coalesce(at[cardinality(at)], 0) <= (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $1::bigint
  FOR UPDATE SKIP LOCKED
)`;

/** Arbitrary constant naming the advisory lock that serialises creating the table (catalog-table-store.ts). */
const CREATE_LOCK = 720_011_619;

export interface PgRateStoreOptions {
  /** The stall guard (STORE_TIMEOUT_MS): connecting, waiting for a row lock, and the statement. */
  timeoutMs?: number;
}

/**
 * The store's statements run as the engine's own query type (json-text-query.ts), as its GraphQL
 * statements do, so that pg's client code meets one query type in a busy engine; the grants come
 * back as one JSON text. (That was measured as a possible cost of the per-user limit on
 * 2026-11-30 and found not to be one: docs/performance.md, "One query type in pg's client".) A
 * server that does not answer at all is given up by the same stall guard as the engine's guarded
 * sources, and that connection is not reused; pg's own `query_timeout` would not do for this
 * query type (pg wraps a callback the type never calls).
 */
export class PgRateStore implements RateStore {
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(connectionString: string, options: PgRateStoreOptions = {}) {
    const timeoutMs = Math.max(1, Math.round(options.timeoutMs ?? STORE_TIMEOUT_MS));
    // Reservations commit without waiting for the WAL flush: one lost in a database crash only
    // lets that many operations through again, and a flush per refill is latency every key pays.
    // The server cancels a statement (or a wait for a row lock) past the guard; the client gives up
    // a little later still (the guarded client, which queryFirstText honours), for a server that
    // does not answer at all.
    this.pool = new pg.Pool({
      connectionString,
      Client: guardedClientClass(timeoutMs),
      max: 2,
      application_name: 'svc-graphql-engine-rate-limit',
      allowExitOnIdle: true,
      connectionTimeoutMillis: timeoutMs,
      options: `-c synchronous_commit=off -c statement_timeout=${timeoutMs} -c lock_timeout=${timeoutMs}`,
    });
    this.pool.on('error', () => {});
  }

  private prepare(): Promise<void> {
    this.ready ??= createCatalogTables(this.pool, { ddl: CREATE, createLock: CREATE_LOCK }).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }

  async reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]> {
    await this.prepare();
    const text = await this.run('svc-rate-reserve-json', RESERVE, [requests.map((r) => r.key), requests.map((r) => r.want), requests.map((r) => r.max), windowMs]);
    // [key, granted, retry_ms] per key; RETURNING follows no particular order.
    const rows = JSON.parse(text ?? '[]') as Array<[string, number, number]>;
    const byKey = new Map(rows.map((row) => [row[0], row]));
    return requests.map((r) => {
      const row = byKey.get(r.key);
      return { granted: row?.[1] ?? 0, retryMs: row?.[2] ?? windowMs };
    });
  }

  async expire(windowMs: number): Promise<void> {
    await this.prepare();
    await this.run('svc-rate-expire', EXPIRE, [windowMs]);
  }

  /**
   * One statement on a pooled connection, as the engine's query type; a connection that broke or
   * stalled is not reused (an SQL error leaves it usable).
   */
  private async run(name: string, text: string, values: readonly unknown[]): Promise<string | null> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      return await queryFirstText(client, name, text, values);
    } catch (e) {
      if (isConnectionError(e)) broken = e as Error;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
