/**
 * PostgreSQL restarted under load: a private cluster (initdb/pg_ctl, free port, temp dir) behind
 * an engine in this process. While it is down, requests fail with a clear coded error and /healthz
 * reports the outage; once it is back, requests succeed again within seconds without restarting
 * the engine. No request hangs.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { postgresBinariesAvailable, startCluster, type Cluster } from '../../bench/cluster.js';
import { call, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, asUser, trackItems } from '../../helpers/hardening.js';
import { sqlOn, type TestDatabase } from '../../helpers/database.js';

/** Polls `check` until it returns true or the deadline passes. */
export async function waitFor(what: string, deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function clusterDatabase(url: string): TestDatabase {
  return { name: 'bench', url, sql: sqlOn(url), drop: async () => undefined };
}

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  ms: number;
}

describe('faults: PostgreSQL restarted under load (integration)', function () {
  this.timeout(180_000);
  let cluster: Cluster;
  let engine: Engine;

  before(async function () {
    if (!postgresBinariesAvailable()) {
      console.log('      skipped: PostgreSQL server binaries are not installed');
      return this.skip();
    }
    cluster = await startCluster(() => undefined, 'defaults');
    engine = await startTestEngine({ databaseUrl: cluster.url, adminSecret: ADMIN_SECRET });
    await trackItems(engine, clusterDatabase(cluster.url));
  });
  after(async () => {
    await engine?.close();
    await cluster?.stop();
  });

  it('fails clearly while it is down, reports it on /healthz, and recovers without a restart', async () => {
    const outcomes: Outcome[] = [];
    let running = true;
    const query = { query: 'query($id: Int!) { item_by_pk(id: $id) { id name } }', variables: { id: 3 } };
    const worker = async (): Promise<void> => {
      while (running) {
        const started = Date.now();
        const res = await call(engine, '/v1/graphql', query, asUser(1));
        const error = res.body?.errors?.[0];
        outcomes.push({ ok: !error && res.status === 200, code: error?.extensions?.code, message: error?.message, ms: Date.now() - started });
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    try {
      await waitFor('warm-up', 10_000, async () => outcomes.filter((o) => o.ok).length > 50);
      await cluster.down();
      const failedAt = outcomes.length;
      await waitFor('a failure while down', 10_000, async () => outcomes.slice(failedAt).some((o) => !o.ok));
      const health = await call(engine, '/healthz');
      expect(health.status).to.equal(500);
      expect(health.body).to.equal('ERROR');
      await new Promise((r) => setTimeout(r, 500));
      await cluster.up();
      const upAt = outcomes.length;
      const recoveredMs = await waitFor('recovery', 15_000, async () => outcomes.slice(upAt).some((o) => o.ok));
      console.log(`      recovered ${recoveredMs} ms after PostgreSQL was back`);
      expect((await call(engine, '/healthz')).body).to.equal('OK');
    } finally {
      running = false;
      await Promise.all(workers);
    }
    const failures = outcomes.filter((o) => !o.ok);
    expect(failures.length).to.be.greaterThan(0);
    const codes = new Set(failures.map((f) => f.code));
    console.log(`      ${outcomes.length} requests, ${failures.length} failed: ${JSON.stringify([...codes])}; e.g. ${failures[0]?.message}`);
    for (const f of failures) expect(['connection-not-established', 'postgres-error'], JSON.stringify(f)).to.include(f.code);
    expect(Math.max(...outcomes.map((o) => o.ms)), 'no request hangs').to.be.lessThan(20_000);
    const after = await call(engine, '/v1/graphql', { query: '{ item_by_pk(id: 3) { id } }' }, ADMIN);
    expect(after.body).to.deep.equal({ data: { item_by_pk: { id: 3 } } });
  });
});
