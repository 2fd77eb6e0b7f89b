/**
 * Concurrency and limits, against the engine as a real process, each for a bounded time:
 *   - 500 concurrent keep-alive connections, then 50 requests in flight at all times (reads and
 *     one-trip mutations) against a pool of 10: no error, bounded p99;
 *   - 200 slow clients trickling their headers (slowloris) do not slow the others down, and lose
 *     their sockets after --http-headers-timeout;
 *   - a saturated pool queues requests, and one that waits longer than the pool timeout fails
 *     fast with a coded error instead of hanging.
 */
import { expect } from 'chai';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata } from '../../helpers/engine.js';
import { ADMIN, asUser, spawnKillableEngine, trackItems, type KillableEngine } from '../../helpers/hardening.js';

const SECONDS = Number(process.env['CONCURRENCY_SECONDS'] ?? 4);

interface Sent {
  status: number;
  ms: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  socket: Socket;
}

function gql(agent: Agent, url: string, query: string, headers: Record<string, string>): Promise<Sent> {
  const body = JSON.stringify({ query });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/graphql`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: JSON.parse(Buffer.concat(chunks).toString()), socket: req.socket! }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const READ = '{ item(order_by: {id: asc}, limit: 3) { id name } }';

describe('concurrency and limits (integration, real process)', function () {
  this.timeout(SECONDS * 2000 + 180_000);
  let db: TestDatabase;
  let engine: KillableEngine;

  before(async () => {
    db = await createTestDatabase('perf_concurrency');
    engine = await spawnKillableEngine({
      SVC_GRAPHQL_DATABASE_URL: db.url,
      SVC_GRAPHQL_PG_CONNECTIONS: '10',
      SVC_GRAPHQL_HTTP_HEADERS_TIMEOUT: '2000',
      SVC_GRAPHQL_LOG_LEVEL: 'error',
    });
    await trackItems(engine, db);
  });
  after(async () => {
    await engine?.kill();
    await db?.drop();
  });

  it('keeps 500 keep-alive connections and 50 requests in flight on a pool of 10 without an error', async () => {
    // FIFO reuse spreads the requests over every open connection instead of the most recent ones.
    // (Node keeps at most 256 idle sockets per agent unless told otherwise.)
    const agent = new Agent({ keepAlive: true, maxSockets: 500, maxFreeSockets: 500, scheduling: 'fifo' });
    try {
      const opened = await Promise.all(Array.from({ length: 500 }, (_, i) => gql(agent, engine.url, READ, asUser((i % 3) + 1))));
      expect(opened.every((r) => r.status === 200 && r.body.data?.item?.length > 0), JSON.stringify(opened.find((r) => !r.body.data))).to.equal(true);
      expect(new Set(opened.map((r) => r.socket)).size).to.equal(500);

      const latencies: number[] = [];
      const failures: string[] = [];
      const sockets = new Set<Socket>();
      const stopAt = Date.now() + SECONDS * 1000;
      const loop = async (w: number): Promise<void> => {
        for (let i = 0; Date.now() < stopAt; i++) {
          const user = (w % 3) + 1;
          // One request in ten is a mutation (a checked update, one round trip to the database).
          const query = i % 10 === 0 ? `mutation { update_item(where: {owner_id: {_eq: ${user}}, id: {_lt: 4}}, _set: {name: "w${w}-${i}"}) { affected_rows } }` : READ;
          const r = await gql(agent, engine.url, query, asUser(user));
          sockets.add(r.socket);
          latencies.push(r.ms);
          if (r.status !== 200 || r.body.errors) failures.push(JSON.stringify(r.body).slice(0, 200));
        }
      };
      await Promise.all(Array.from({ length: 50 }, (_, w) => loop(w)));
      expect(failures, failures[0]).to.deep.equal([]);
      expect(latencies.length).to.be.greaterThan(100);
      // The 500 open connections take turns (FIFO): nearly all of them serve again.
      expect(sockets.size).to.be.greaterThan(Math.min(450, latencies.length / 2));
      const p99 = percentile(latencies, 99);
      // Bounded, not fast: a shared 2-core box also runs PostgreSQL and this client.
      expect(p99, `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`).to.be.lessThan(3000);
    } finally {
      agent.destroy();
    }
  });

  it('does not let 200 clients trickling their headers starve the others, and drops them after the headers timeout', async () => {
    const slow: Socket[] = [];
    const closedAt: number[] = [];
    const started = Date.now();
    const { port } = new URL(engine.url);
    for (let i = 0; i < 200; i++) {
      const s = connect(Number(port), '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => closedAt.push(Date.now() - started));
      s.write('POST /v1/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
      slow.push(s);
    }
    // One more header line every 300 ms, never the blank line that ends them.
    let n = 0;
    const trickle = setInterval(() => {
      n++;
      for (const s of slow) if (!s.destroyed) s.write(`X-Slow-${n}: y\r\n`);
    }, 300);
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 20 });
      const latencies: number[] = [];
      const stopAt = Date.now() + 2500;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (Date.now() < stopAt) {
            const r = await gql(agent, engine.url, READ, asUser(1));
            expect(r.body.data?.item, JSON.stringify(r.body)).to.have.length(3);
            latencies.push(r.ms);
          }
        }),
      );
      agent.destroy();
      expect(latencies.length).to.be.greaterThan(50);
      expect(percentile(latencies, 99)).to.be.lessThan(1000);
      // Headers timeout 2 s, checked every second: every slow socket is closed within ~3 s.
      const deadline = Date.now() + 8000;
      while (closedAt.length < slow.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(closedAt.length).to.equal(slow.length);
      expect(Math.max(...closedAt)).to.be.lessThan(6000);
    } finally {
      clearInterval(trickle);
      for (const s of slow) s.destroy();
    }
  });
});

describe('a saturated pool (integration, real process)', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let engine: KillableEngine;

  before(async () => {
    db = await createTestDatabase('perf_pool_timeout');
    engine = await spawnKillableEngine({
      SVC_GRAPHQL_DATABASE_URL: db.url,
      SVC_GRAPHQL_PG_CONNECTIONS: '2',
      SVC_GRAPHQL_POOL_TIMEOUT: '1',
      SVC_GRAPHQL_LOG_LEVEL: 'error',
    });
    await trackItems(engine, db);
    // A query that holds its connection for as long as it is asked to.
    await db.sql(`CREATE FUNCTION slow_items(seconds float8) RETURNS SETOF item LANGUAGE sql STABLE AS $$ SELECT pg_sleep(seconds); SELECT * FROM item ORDER BY id LIMIT 1 $$`);
    const tracked = await metadata(engine, { type: 'pg_track_function', args: { function: 'slow_items' } }, ADMIN);
    expect(tracked.status, JSON.stringify(tracked.body)).to.equal(200);
  });
  after(async () => {
    await engine?.kill();
    await db?.drop();
  });

  const agent = new Agent({ keepAlive: false });
  const slow = (seconds: number) => gql(agent, engine.url, `{ slow_items(args: {seconds: ${seconds}}) { id } }`, ADMIN);

  it('queues a request while every connection is busy, for less than the pool timeout', async () => {
    const busy = [slow(0.6), slow(0.6)];
    await new Promise((r) => setTimeout(r, 100));
    const queued = await gql(agent, engine.url, READ, ADMIN);
    expect(queued.body.data?.item).to.have.length(3);
    expect(queued.ms).to.be.greaterThan(300);
    for (const b of await Promise.all(busy)) expect(b.body.data?.slow_items).to.deep.equal([{ id: 1 }]);
  });

  it('fails a request that waits longer than the pool timeout with a coded error, fast, and recovers', async () => {
    const busy = [slow(4), slow(4)];
    await new Promise((r) => setTimeout(r, 200));
    const refused = await gql(agent, engine.url, READ, ADMIN);
    expect(refused.ms).to.be.lessThan(2500);
    const err = refused.body.errors?.[0];
    expect(err?.extensions?.code, JSON.stringify(refused.body)).to.equal('connection-not-established');
    expect(err.message).to.match(/no database connection became free within the pool timeout \(1 s\): all 2 connections of the pool stayed busy/);
    for (const b of await Promise.all(busy)) expect(b.body.data?.slow_items).to.deep.equal([{ id: 1 }]);
    const again = await gql(agent, engine.url, READ, ADMIN);
    expect(again.body.data?.item).to.have.length(3);
  });
});
