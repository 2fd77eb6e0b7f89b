/**
 * Load: 500 concurrent keep-alive connections of well-formed requests, and at the same time a
 * flood of malformed, oversized and deeply nested ones, for a bounded time (LOAD_SECONDS, 8 in
 * CI). The engine runs as a child process so its memory can be read from /proc: it keeps serving
 * every well-formed request, never crashes, and its resident memory stays bounded.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call } from '../../helpers/engine.js';
import { ADMIN, asUser, spawnKillableEngine as spawnEngine, trackItems, type KillableEngine as EngineProcess } from '../../helpers/hardening.js';

const SECONDS = Number(process.env['LOAD_SECONDS'] ?? 8);
const CONNECTIONS = 500;
const BODY_LIMIT = 1024 * 1024;
/** Resident memory the engine may reach under this load. */
const RSS_LIMIT_MB = 1024;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

interface Sent {
  status: number;
  body: string;
}

function send(agent: Agent, url: string, body: string | Buffer, headers: Record<string, string>): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/graphql`, { method: 'POST', agent, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Hostile requests, each a function of a counter so the flood varies. */
const HOSTILE: Array<(i: number) => { body: string | Buffer; headers: Record<string, string> }> = [
  () => ({ body: '{"query": "{ item { id ', headers: JSON_HEADERS }),
  () => ({ body: Buffer.alloc(BODY_LIMIT + 1024, 0x20), headers: JSON_HEADERS }),
  () => ({ body: JSON.stringify({ query: `{ ${'item { parent { '.repeat(3000)} id ${'} } '.repeat(3000)} }` }), headers: JSON_HEADERS }),
  () => ({ body: `{"query":"{ __typename }","variables":${'['.repeat(200_000)}${']'.repeat(200_000)}}`, headers: JSON_HEADERS }),
  () => ({ body: JSON.stringify({ query: 'mutation { delete_item(where: {}) { affected_rows } }' }), headers: { 'content-type': 'text/plain' } }),
  (i) => ({ body: Buffer.from(Array.from({ length: 512 }, (_, k) => (i * 31 + k * 17) % 256)), headers: JSON_HEADERS }),
  () => ({ body: JSON.stringify({ query: '{ item(where: {name: {_eq: "\\u0000"}}) { id } }' }), headers: JSON_HEADERS }),
  () => ({ body: JSON.stringify({ query: `{ ${'a: __typename '.repeat(5000)} }` }), headers: JSON_HEADERS }),
  () => ({ body: JSON.stringify([...Array(200)].map(() => ({ query: '{ nope }' }))), headers: JSON_HEADERS }),
];

describe('load: 500 connections and a flood of hostile requests (integration, real process)', function () {
  this.timeout(SECONDS * 1000 + 240_000);
  let db: TestDatabase;
  let engine: EngineProcess;

  before(async () => {
    db = await createTestDatabase('load');
    engine = await spawnEngine({ SVC_GRAPHQL_DATABASE_URL: db.url, SVC_GRAPHQL_MAX_REQUEST_BODY_SIZE: String(BODY_LIMIT), SVC_GRAPHQL_LOG_LEVEL: 'error' });
    await trackItems(engine, db);
  });
  after(async () => {
    await engine?.kill();
    await db?.drop();
  });

  it('keeps serving well-formed requests, with bounded memory, and never crashes', async () => {
    const pid = engine.child.pid!;
    const baseline = rssMb(pid);
    const good = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const bad = new Agent({ keepAlive: false, maxSockets: 32 });
    const stopAt = Date.now() + SECONDS * 1000;
    const tally = { good: 0, goodFailed: [] as string[], hostile: 0, hostileStatuses: {} as Record<number, number>, transportErrors: 0 };
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 200);
    const wellFormed = JSON.stringify({ query: 'query($id: Int!) { item_by_pk(id: $id) { id name parent { id } } }', variables: { id: 4 } });
    const goodWorker = async (): Promise<void> => {
      while (Date.now() < stopAt) {
        const res = await send(good, engine.url, wellFormed, { ...JSON_HEADERS, ...asUser(2) });
        if (res.status === 200 && res.body === '{"data":{"item_by_pk":{"id":4,"name":"item 4","parent":null}}}') tally.good++;
        else tally.goodFailed.push(`${res.status} ${res.body.slice(0, 200)}`);
      }
    };
    const badWorker = async (w: number): Promise<void> => {
      for (let i = w; Date.now() < stopAt; i += 32) {
        const { body, headers } = HOSTILE[i % HOSTILE.length]!(i);
        try {
          const res = await send(bad, engine.url, body, { ...headers, ...ADMIN });
          tally.hostile++;
          tally.hostileStatuses[res.status] = (tally.hostileStatuses[res.status] ?? 0) + 1;
        } catch {
          // An oversized body is cut off by the engine mid-upload: a reset, not a crash.
          tally.transportErrors++;
        }
      }
    };
    try {
      await Promise.all([...Array.from({ length: CONNECTIONS }, goodWorker), ...Array.from({ length: 32 }, (_, w) => badWorker(w))]);
    } finally {
      clearInterval(sampler);
      good.destroy();
      bad.destroy();
    }
    console.log(`      ${JSON.stringify({ seconds: SECONDS, baselineMb: Math.round(baseline), peakMb: Math.round(peak), ...tally, goodFailed: tally.goodFailed.length })}`);
    expect(engine.child.exitCode, engine.output().slice(-2000)).to.equal(null);
    expect(tally.goodFailed.slice(0, 5)).to.deep.equal([]);
    expect(tally.good).to.be.greaterThan(CONNECTIONS);
    expect(tally.hostile).to.be.greaterThan(HOSTILE.length);
    expect(tally.hostileStatuses[500] ?? 0, 'no hostile request is an internal error').to.equal(0);
    expect(peak, 'resident memory stays bounded').to.be.lessThan(RSS_LIMIT_MB);
    const after = await call(engine, '/v1/graphql', { query: '{ item_aggregate { aggregate { count } } }' }, ADMIN);
    expect(after.body).to.deep.equal({ data: { item_aggregate: { aggregate: { count: 30 } } } });
  });
});
