/**
 * --workers 2 as real processes (node:cluster): both workers serve the one port, a metadata
 * change made through either is seen by the other on the very next request (the schema sync
 * poll is off, so only the primary's relay can explain it), an event trigger fires once per
 * event (only worker 1 delivers), source health checks run once and every worker reports them,
 * and SIGTERM stops everything cleanly.
 */
import { expect } from 'chai';
import { Agent, request } from 'node:http';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { ADMIN, spawnKillableEngine, type KillableEngine } from '../../helpers/hardening.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';

interface Answer {
  status: number;
  worker: string | undefined;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

// No keep-alive: each request is a new connection, which the cluster hands to the workers in turn.
const fresh = new Agent({ keepAlive: false });

function post(url: string, path: string, body: unknown): Promise<Answer> {
  return send(url, path, 'POST', JSON.stringify(body));
}

function send(url: string, path: string, method: 'GET' | 'POST', text = ''): Promise<Answer> {
  const headers = method === 'POST' ? { ...ADMIN, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : ADMIN;
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent: fresh, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const worker = res.headers['x-svc-worker'];
        resolve({ status: res.statusCode ?? 0, worker: Array.isArray(worker) ? worker[0] : worker, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

describe('--workers 2: one port, shared metadata, background work once (integration, real processes)', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let sink: WebhookSink;
  let engine: KillableEngine;
  const gql = (query: string) => post(engine.url, '/v1/graphql', { query });
  const meta = (body: unknown) => post(engine.url, '/v1/metadata', body);

  before(async () => {
    db = await createTestDatabase('perf_workers');
    await db.sql(`CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL);
      CREATE TABLE t1 (id int PRIMARY KEY); CREATE TABLE t2 (id int PRIMARY KEY); CREATE TABLE t3 (id int PRIMARY KEY); CREATE TABLE t4 (id int PRIMARY KEY);
      INSERT INTO t1 VALUES (1); INSERT INTO t2 VALUES (2); INSERT INTO t3 VALUES (3); INSERT INTO t4 VALUES (4);`);
    sink = await startWebhookSink();
    engine = await spawnKillableEngine({
      SVC_GRAPHQL_DATABASE_URL: db.url,
      SVC_GRAPHQL_WORKERS: '2',
      SVC_GRAPHQL_DEV_MODE: 'true',
      SVC_GRAPHQL_SCHEMA_SYNC_POLL_INTERVAL: '0',
      SVC_GRAPHQL_EVENTS_FETCH_INTERVAL: '100',
    });
    // Until both workers listen, the first one answers everything.
    const seen = new Set<string>();
    const deadline = Date.now() + 60_000;
    while (seen.size < 2 && Date.now() < deadline) {
      const a = await gql('{ __typename }');
      if (a.worker) seen.add(a.worker);
    }
    expect([...seen].sort()).to.deep.equal(['1', '2']);
  });
  after(async () => {
    await engine?.kill();
    await sink?.close();
    await db?.drop();
  });

  it('serves requests from both workers', async () => {
    const workers: string[] = [];
    for (let i = 0; i < 10; i++) {
      const a = await gql('{ __typename }');
      expect(a.body).to.deep.equal({ data: { __typename: 'query_root' } });
      workers.push(a.worker!);
    }
    expect(new Set(workers)).to.deep.equal(new Set(['1', '2']));
  });

  it('makes a metadata change through one worker visible through the other on the next request', async () => {
    for (const table of ['t1', 't2', 't3', 't4']) {
      const tracked = await meta({ type: 'pg_track_table', args: { table } });
      expect(tracked.status, JSON.stringify(tracked.body)).to.equal(200);
      // The next two requests go to different workers: both see the new table at once.
      const answers = [await gql(`{ ${table} { id } }`), await gql(`{ ${table} { id } }`)];
      for (const a of answers) expect(a.body, `worker ${a.worker} after tracking ${table} through worker ${tracked.worker}`).to.deep.equal({ data: { [table]: [{ id: Number(table.slice(1)) }] } });
      expect(new Set(answers.map((a) => a.worker)).size).to.equal(2);
    }
    // run_sql changing the database (a new column) reaches the other worker too.
    const altered = await post(engine.url, '/v2/query', { type: 'run_sql', args: { sql: 'ALTER TABLE t1 ADD COLUMN label text' } });
    expect(altered.status, JSON.stringify(altered.body)).to.equal(200);
    for (const a of [await gql('{ t1 { id label } }'), await gql('{ t1 { id label } }')]) {
      expect(a.body, `worker ${a.worker}`).to.deep.equal({ data: { t1: [{ id: 1, label: null }] } });
    }
  });

  it('answers metadata requests made through both workers at once (no worker waits on the other forever)', async () => {
    const started = Date.now();
    const answers = await Promise.all([meta({ type: 'reload_metadata', args: {} }), meta({ type: 'reload_metadata', args: {} })]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
    expect(new Set(answers.map((a) => a.worker)).size).to.equal(2);
    // Far below the 30 s a relay may wait for a worker that does not confirm.
    expect(Date.now() - started).to.be.lessThan(15_000);
  });

  it('delivers each event once, whichever worker wrote the row', async () => {
    expect((await meta({ type: 'pg_track_table', args: { table: 'note' } })).status).to.equal(200);
    const created = await meta({ type: 'pg_create_event_trigger', args: { name: 'note_created', table: 'note', webhook: `${sink.url}/hook`, insert: { columns: '*' } } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const writers = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const a = await gql(`mutation { insert_note_one(object: {body: "note ${i}"}) { id } }`);
      expect(a.body.data.insert_note_one.id).to.be.a('number');
      writers.add(a.worker!);
    }
    expect(writers.size).to.equal(2);
    await sink.waitFor((r) => r.length >= 10, 30_000, '10 deliveries');
    // Time for a second runner, if there were one, to deliver again.
    await new Promise((r) => setTimeout(r, 1500));
    const ids = sink.requests.map((r) => r.json.id as string);
    expect(ids).to.have.length(10);
    expect(new Set(ids).size).to.equal(10);
    const bodies = sink.requests.map((r) => r.json.event.data.new.body as string).sort();
    expect(bodies).to.deep.equal(Array.from({ length: 10 }, (_, i) => `note ${i}`).sort());
  });

  it('runs source health checks once, in worker 1, and answers /healthz/sources the same in every worker', async () => {
    await db.sql('CREATE TABLE health_probe (at timestamptz NOT NULL DEFAULT clock_timestamp())');
    const health_check = { interval: 1, test: { sql: 'INSERT INTO health_probe DEFAULT VALUES' } };
    const updated = await meta({ type: 'pg_update_source', args: { name: 'default', health_check } });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    // Two requests in a row go to the two workers: the same outcome, to the millisecond of its
    // timestamp, is one check's report (each worker checking would stamp its own times).
    let pair: Answer[] = [];
    const deadline = Date.now() + 30_000;
    const same = () =>
      new Set(pair.map((a) => a.worker)).size === 2 &&
      pair.every((a) => a.body?.default?.status === 'OK') &&
      pair[0]!.body.default.timestamp === pair[1]!.body.default.timestamp;
    while (Date.now() < deadline) {
      pair = [await send(engine.url, '/healthz/sources', 'GET'), await send(engine.url, '/healthz/sources', 'GET')];
      if (same()) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(same(), JSON.stringify(pair)).to.equal(true);
    // One check a second for the engine, not one per worker.
    const count = async () => Number((await db.sql('SELECT count(*) AS n FROM health_probe')).rows[0].n);
    const before = await count();
    await new Promise((r) => setTimeout(r, 4000));
    expect((await count()) - before).to.be.within(2, 6);
    expect((await meta({ type: 'pg_update_source', args: { name: 'default', health_check: null } })).status).to.equal(200);
  });

  it('stops every process on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => engine.child.once('exit', (code) => resolve(code)));
    engine.child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    // Nothing listens on the port any more (no orphaned worker).
    const refused = await gql('{ __typename }').then(() => false, () => true);
    expect(refused).to.equal(true);
  });
});
