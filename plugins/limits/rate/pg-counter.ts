/**
 * Rate-limit counters in the metadata database, for deployments without Redis: one row per key
 * with the window's hits (milliseconds of the database clock). The hit is one upsert, whose row
 * lock serialises concurrent engines on the same key, so the count is exact across instances.
 * All the SQL of the counter is here, beside the metadata store it shares a database with.
 */
import pg from 'pg';
import type { RateCounter } from './counter.js';

const CREATE = `CREATE TABLE IF NOT EXISTS svc_catalog.svc_rate_limit (
  key text PRIMARY KEY,
  hits bigint[] NOT NULL,
  allowed boolean NOT NULL
)`;

// $1 key, $2 max hits, $3 window in ms. The hits kept are those inside the window; the new one is
// added only when fewer than $2 remain. statement_timestamp() is the database's clock.
const HIT = `
INSERT INTO svc_catalog.svc_rate_limit AS r (key, hits, allowed)
VALUES ($1, CASE WHEN $2::int > 0 THEN ARRAY[(extract(epoch FROM statement_timestamp()) * 1000)::bigint] ELSE '{}'::bigint[] END, $2::int > 0)
ON CONFLICT (key) DO UPDATE SET
  hits = ARRAY(SELECT h FROM unnest(r.hits) AS h WHERE h > (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $3::bigint)
    || CASE
         WHEN (SELECT count(*) FROM unnest(r.hits) AS h WHERE h > (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $3::bigint) < $2::int
         THEN ARRAY[(extract(epoch FROM statement_timestamp()) * 1000)::bigint]
         ELSE '{}'::bigint[]
       END,
  allowed = (SELECT count(*) FROM unnest(r.hits) AS h WHERE h > (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $3::bigint) < $2::int
RETURNING allowed`;

// Two engines creating the table at once: one of them sees the other's catalog row.
const ALREADY_CREATED = new Set(['42P07', '23505']);

export class PgRateCounter implements RateCounter {
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

  async hit(key: string, max: number, windowMs: number): Promise<boolean> {
    await this.prepare();
    const { rows } = await this.pool.query<{ allowed: boolean }>(HIT, [key, max, windowMs]);
    return rows[0]?.allowed === true;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
