/**
 * The database behind a TCP proxy that stalls (test/helpers/stalling-proxy.ts): connections stay
 * open, nothing flows, so neither answers nor PostgreSQL cancel requests get through. With
 * `--pg-statement-timeout` every request ends with a coded error within a few seconds
 * (`statement-timeout` for a statement in flight, `connection-not-established` for a connection
 * that cannot be acquired or opened in time), nothing hangs, and once the proxy forwards again
 * the pool serves requests without a restart. The metadata database is reached directly, so
 * only the source's path stalls.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';
import { ADMIN, ADMIN_SECRET, asUser, trackItems } from '../../helpers/hardening.js';
import { createTestDatabase, sqlOn, type TestDatabase } from '../../helpers/database.js';
import { startStallingProxyTo, type StallingDatabaseProxy } from '../../helpers/stalling-proxy.js';

const STATEMENT_TIMEOUT_S = 1;
const POOL_TIMEOUT_S = 1;
const MAX_CONNECTIONS = 2;

interface Outcome {
  ok: boolean;
  code?: string;
  message?: string;
  ms: number;
}

const ITEM_QUERY = { query: 'query($id: Int!) { item_by_pk(id: $id) { id name } }', variables: { id: 3 } };

async function timed(engine: Engine, body: unknown, headers: Record<string, string>): Promise<Outcome> {
  const started = Date.now();
  const res = await call(engine, '/v1/graphql', body, headers);
  const error = res.body?.errors?.[0];
  return { ok: !error && res.status === 200, code: error?.extensions?.code, message: error?.message, ms: Date.now() - started };
}

describe('faults: the database behind a stalling TCP proxy (integration)', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let proxy: StallingDatabaseProxy;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('harden3_stall');
    proxy = await startStallingProxyTo(db.url);
    engine = await startTestEngine({
      databaseUrl: proxy.url,
      metadataDatabaseUrl: db.url,
      adminSecret: ADMIN_SECRET,
      pgStatementTimeout: STATEMENT_TIMEOUT_S,
      poolTimeout: POOL_TIMEOUT_S,
      pgConnections: MAX_CONNECTIONS,
    });
    await trackItems(engine, { ...db, sql: sqlOn(proxy.url) });
  });
  after(async () => {
    await engine?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('PostgreSQL cancels a statement past the timeout itself: statement-timeout, and the source keeps working', async () => {
    await db.sql(`CREATE FUNCTION slow_items() RETURNS SETOF item LANGUAGE sql STABLE AS $$ SELECT pg_sleep(5); SELECT * FROM item $$`);
    const tracked = await metadata(engine, { type: 'pg_track_function', args: { function: 'slow_items' } }, ADMIN);
    expect(tracked.status, JSON.stringify(tracked.body)).to.equal(200);
    const slow = await timed(engine, { query: '{ slow_items { id } }' }, ADMIN);
    expect(slow.ok).to.equal(false);
    expect(slow.code, JSON.stringify(slow)).to.equal('statement-timeout');
    expect(slow.message).to.match(/statement timeout/);
    expect(slow.ms).to.be.lessThan(STATEMENT_TIMEOUT_S * 1000 + 900);
    expect((await timed(engine, ITEM_QUERY, asUser(1))).ok).to.equal(true);
  });

  it('times out every request with a coded error while the proxy stalls, and recovers once it forwards again', async () => {
    // Warm connections in the pool, so the stall catches statements in flight.
    const warm = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => timed(engine, ITEM_QUERY, asUser(1))));
    expect(warm.every((o) => o.ok), JSON.stringify(warm)).to.equal(true);

    proxy.stall();
    // More requests than connections: some wait for the pool, the others' statements stall.
    const stalled = await Promise.all(Array.from({ length: 8 }, () => timed(engine, ITEM_QUERY, asUser(1))));
    console.log(`      while stalled: ${JSON.stringify(stalled.map((o) => `${o.code} ${o.ms}ms`))}`);
    for (const o of stalled) {
      expect(o.ok, JSON.stringify(o)).to.equal(false);
      expect(['statement-timeout', 'connection-not-established'], JSON.stringify(o)).to.include(o.code);
      // statement timeout + 1 s grace, or pool timeout, plus one retried connect at most.
      expect(o.ms, JSON.stringify(o)).to.be.lessThan(6_000);
    }
    const inFlight = stalled.filter((o) => o.code === 'statement-timeout');
    expect(inFlight.length, 'statements caught in flight').to.be.greaterThan(0);
    for (const o of inFlight) expect(o.message).to.match(/--pg-statement-timeout.*connection was closed/);
    const waited = stalled.filter((o) => o.code === 'connection-not-established');
    expect(waited.length, 'requests that could not get a connection').to.be.greaterThan(0);
    for (const o of waited) expect(o.message).to.match(/pool_timeout|timeout expired|connection timeout/);

    // Still stalled: a request now needs a new connection, whose opening times out too.
    const again = await timed(engine, ITEM_QUERY, asUser(1));
    expect(again.ok).to.equal(false);
    expect(['statement-timeout', 'connection-not-established']).to.include(again.code);
    expect(again.ms).to.be.lessThan(6_000);

    proxy.resume();
    const started = Date.now();
    let recovered: Outcome | undefined;
    while (Date.now() - started < 10_000) {
      const o = await timed(engine, ITEM_QUERY, asUser(1));
      if (o.ok) {
        recovered = o;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered, 'a request succeeds within 10 s of the proxy forwarding again').to.not.equal(undefined);
    console.log(`      recovered ${Date.now() - started} ms after the proxy forwarded again`);
    // The pool is whole again: a burst larger than the pool all succeeds.
    const burst = await Promise.all(Array.from({ length: 8 }, () => timed(engine, ITEM_QUERY, asUser(1))));
    expect(burst.every((o) => o.ok), JSON.stringify(burst)).to.equal(true);
    const health = await call(engine, '/healthz');
    expect(health.body).to.equal('OK');
  });

  it('without --pg-statement-timeout, an API-limits time_limit still ends a stalled statement: the cancel cannot get through, so the connection is closed', async () => {
    const limited = await startTestEngine({ databaseUrl: proxy.url, metadataDatabaseUrl: db.url, adminSecret: ADMIN_SECRET });
    try {
      const set = await metadata(limited, { type: 'set_api_limits', args: { time_limit: { global: 1 } } }, ADMIN);
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect((await timed(limited, ITEM_QUERY, asUser(1))).ok).to.equal(true);
      proxy.stall();
      const stalled = await timed(limited, ITEM_QUERY, asUser(1));
      proxy.resume();
      expect(stalled.code, JSON.stringify(stalled)).to.equal('time-limit-exceeded');
      // 1 s limit, the cancel request (stalled too), 1 s more before the connection is closed.
      expect(stalled.ms).to.be.lessThan(4_000);
      const started = Date.now();
      let ok = false;
      while (!ok && Date.now() - started < 10_000) ok = (await timed(limited, ITEM_QUERY, asUser(1))).ok;
      expect(ok, 'served again once the proxy forwards').to.equal(true);
      // A mutation (its transaction in one round trip) stalled the same way: still the time limit,
      // not a connection error, and nothing written.
      const rename = { query: 'mutation { update_item_by_pk(pk_columns: {id: 3}, _set: {name: "stalled"}) { id } }' };
      // Item 3 is user 1's (ITEMS_ROWS_SQL: owner (id % 3) + 1).
      proxy.stall();
      const write = await timed(limited, rename, asUser(1));
      proxy.resume();
      expect(write.code, JSON.stringify(write)).to.equal('time-limit-exceeded');
      expect(write.ms).to.be.lessThan(4_000);
      expect((await db.sql(`SELECT count(*)::int AS n FROM item WHERE name = 'stalled'`)).rows[0].n).to.equal(0);
    } finally {
      proxy.resume();
      await metadata(limited, { type: 'remove_api_limits', args: {} }, ADMIN);
      await limited.close();
    }
  });
});
