/**
 * Rate-limit reservations in the metadata database, for deployments without Redis: one row per
 * key with the window's reservations (times in milliseconds of the database clock, and token
 * counts). A reservation is one upsert whose row lock serialises concurrent engines on the same
 * key, so the window's total is exact across instances. All the SQL of the store is here, beside
 * the metadata store it shares a database with.
 */
import pg from 'pg';
import type { Grant, RateStore } from './store.js';

const CREATE = `CREATE TABLE IF NOT EXISTS svc_catalog.svc_rate_lease (
  key text PRIMARY KEY,
  at bigint[] NOT NULL,
  n int[] NOT NULL,
  granted int NOT NULL,
  retry_ms bigint NOT NULL
)`;

// $1 key, $2 tokens wanted, $3 max per window, $4 window in ms. The reservations kept are those
// inside the window; the new one gets what the window has left, up to $2. The expressions read the
// row as locked by ON CONFLICT (not the statement's snapshot), which is what makes it exact.
// statement_timestamp() is the database's clock.
const RESERVE = `
WITH clock AS (SELECT (extract(epoch FROM statement_timestamp()) * 1000)::bigint AS now)
INSERT INTO svc_catalog.svc_rate_lease AS r (key, at, n, granted, retry_ms)
SELECT $1,
  CASE WHEN least($2::int, $3::int) > 0 THEN ARRAY[clock.now] ELSE '{}'::bigint[] END,
  CASE WHEN least($2::int, $3::int) > 0 THEN ARRAY[least($2::int, $3::int)] ELSE '{}'::int[] END,
  greatest(least($2::int, $3::int), 0), $4::bigint
FROM clock
ON CONFLICT (key) DO UPDATE SET (at, n, granted, retry_ms) = (
  SELECT live.at || CASE WHEN g.g > 0 THEN ARRAY[clock.now] ELSE '{}'::bigint[] END,
         live.n || CASE WHEN g.g > 0 THEN ARRAY[g.g] ELSE '{}'::int[] END,
         g.g,
         coalesce(live.oldest, clock.now) + $4::bigint - clock.now
  FROM clock,
  LATERAL (SELECT coalesce(array_agg(e.at ORDER BY e.at), '{}') AS at, coalesce(array_agg(e.n ORDER BY e.at), '{}') AS n,
                  coalesce(sum(e.n), 0) AS used, min(e.at) AS oldest
           FROM unnest(r.at, r.n) AS e(at, n) WHERE e.at > clock.now - $4::bigint) AS live,
  LATERAL (SELECT greatest(0, least($2::int, $3::int - live.used))::int AS g) AS g
)
RETURNING granted, retry_ms`;

// Two engines creating the table at once: one of them sees the other's catalog row.
const ALREADY_CREATED = new Set(['42P07', '23505']);

export class PgRateStore implements RateStore {
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 2, application_name: 'svc-graphql-engine-rate-limit', allowExitOnIdle: true });
    this.pool.on('error', () => {});
  }

  private prepare(): Promise<void> {
    this.ready ??= this.pool.query(CREATE).then(
      () => undefined,
      (e: { code?: string }) => {
        if (ALREADY_CREATED.has(e.code ?? '')) return;
        this.ready = undefined;
        throw e;
      },
    );
    return this.ready;
  }

  async reserve(key: string, want: number, max: number, windowMs: number): Promise<Grant> {
    await this.prepare();
    const { rows } = await this.pool.query<{ granted: number; retry_ms: string }>({ name: 'svc-rate-reserve', text: RESERVE, values: [key, want, max, windowMs] });
    const row = rows[0];
    return { granted: row?.granted ?? 0, retryMs: Number(row?.retry_ms ?? windowMs) };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
