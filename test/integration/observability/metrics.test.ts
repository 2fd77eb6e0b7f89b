import { expect } from 'chai';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';
import { waitFor } from '../../helpers/wait.js';
import type { Engine } from '../../../core/engine.js';
import WebSocket from 'ws';

const ADMIN = { 'x-svc-admin-secret': 'adm' };

/** The value of one series (name plus exact label set) in a Prometheus text exposition. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = (m[2] ?? '').split(/,(?=[a-zA-Z_]\w*=)/).filter(Boolean).sort().join(',');
    if (got === wanted) return Number(m[3]);
  }
  return undefined;
}

describe('metrics API (/v1/metrics)', function () {
  let db: TestDatabase;
  let engine: Engine;
  let sink: WebhookSink;

  before(async () => {
    sink = await startWebhookSink();
    db = await createTestDatabase('metrics', `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
      INSERT INTO author (name) VALUES ('a'), ('b');`);
    engine = await startTestEngine({
      databaseUrl: db.url,
      adminSecret: 'adm',
      metricsSecret: 'scrape-me',
      enabledApis: ['metadata', 'graphql', 'metrics'],
      eventsFetchInterval: 50,
    });
    const track = await metadata(engine, { type: 'pg_track_table', args: { source: 'default', table: 'author' } }, ADMIN);
    expect(track.status).to.equal(200);
    const trigger = await metadata(
      engine,
      {
        type: 'pg_create_event_trigger',
        args: { source: 'default', table: 'author', name: 'author_created', webhook: sink.url, insert: { columns: '*' } },
      },
      ADMIN,
    );
    expect(trigger.status, JSON.stringify(trigger.body)).to.equal(200);
  });

  after(async () => {
    await engine?.close();
    await sink?.close();
    await db?.drop();
  });

  const scrape = async (headers: Record<string, string> = { authorization: 'Bearer scrape-me' }) => {
    const res = await fetch(`${engine.url}/v1/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  it('is refused without the metrics secret or the admin secret', async () => {
    expect((await scrape({})).status).to.equal(401);
    expect((await scrape({ authorization: 'Bearer wrong' })).status).to.equal(401);
    const asUser = await scrape({ ...ADMIN, 'x-svc-role': 'user' });
    expect(asUser.status).to.equal(400);
    expect(asUser.text).to.include('admin only');
  });

  it('is readable with the admin secret too', async () => {
    const res = await scrape(ADMIN);
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^text\/plain/);
  });

  it('counts requests by endpoint, operation type and status, with latency histograms and pool usage', async () => {
    for (let i = 0; i < 3; i++) {
      const q = await graphql(engine, '{ author(order_by: {id: asc}) { name } }', undefined, ADMIN);
      expect(q.body).to.deep.equal({ data: { author: [{ name: 'a' }, { name: 'b' }] } });
    }
    const m = await graphql(engine, 'mutation { insert_author_one(object: {name: "c"}) { id } }', undefined, ADMIN);
    expect(m.body.data.insert_author_one.id).to.be.a('number');
    await graphql(engine, '{ nope }', undefined, ADMIN);
    await call(engine, '/v1alpha1/graphql', { query: '{ nope }' }, ADMIN);

    const { text, status } = await scrape();
    expect(status).to.equal(200);
    const requests = (labels: Record<string, string>) => sample(text, 'svc_http_requests_total', labels);
    expect(requests({ endpoint: '/v1/graphql', operation_type: 'query', status: '200' })).to.equal(3);
    expect(requests({ endpoint: '/v1/graphql', operation_type: 'mutation', status: '200' })).to.equal(1);
    // A request failing validation has no operation type; v1alpha1 keeps the real status.
    expect(requests({ endpoint: '/v1/graphql', operation_type: '', status: '200' })).to.equal(1);
    expect(requests({ endpoint: '/v1alpha1/graphql', operation_type: '', status: '400' })).to.equal(1);
    expect(requests({ endpoint: '/v1/metadata', operation_type: '', status: '200' })).to.be.at.least(2);

    const count = sample(text, 'svc_http_request_duration_seconds_count', { endpoint: '/v1/graphql', operation_type: 'query' });
    expect(count).to.equal(3);
    const inf = sample(text, 'svc_http_request_duration_seconds_bucket', { endpoint: '/v1/graphql', operation_type: 'query', le: '+Inf' });
    expect(inf).to.equal(3);
    expect(sample(text, 'svc_http_request_duration_seconds_sum', { endpoint: '/v1/graphql', operation_type: 'query' })).to.be.greaterThan(0);

    // Three identical queries: one miss, then hits.
    expect(sample(text, 'svc_plan_cache_lookups_total', { result: 'hit' })).to.be.at.least(2);
    expect(sample(text, 'svc_plan_cache_lookups_total', { result: 'miss' })).to.be.at.least(1);

    expect(sample(text, 'svc_source_pool_connections', { source: 'default', state: 'total' })).to.be.at.least(1);
    expect(sample(text, 'svc_source_pool_connections', { source: 'default', state: 'waiting' })).to.equal(0);
    expect(sample(text, 'svc_metadata_inconsistent_objects', {})).to.equal(0);
    expect(sample(text, 'svc_metadata_rebuilds_total', { outcome: 'consistent' })).to.be.at.least(2);
    expect(text).to.include('# TYPE svc_websocket_connections gauge');
    expect(text).to.include('# TYPE svc_active_subscriptions gauge');
  });

  it('counts event trigger deliveries and their lag', async () => {
    await sink.waitFor((r) => r.length >= 1, 10_000, 'the insert event delivered');
    const text = await waitFor(
      async () => {
        const t = (await scrape()).text;
        return sample(t, 'svc_event_trigger_deliveries_total', { source: 'default', trigger: 'author_created', status: 'success' }) === 1 ? t : undefined;
      },
      { timeoutMs: 10_000, what: () => 'the delivery counted' },
    );
    expect(sample(text, 'svc_event_trigger_lag_seconds_count', { source: 'default', trigger: 'author_created' })).to.equal(1);
  });

  it('shows open websocket connections and running subscriptions', async () => {
    const ws = new WebSocket(`${engine.url.replace('http', 'ws')}/v1/graphql`, 'graphql-transport-ws');
    const messages: Array<{ type: string }> = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: ADMIN } }));
      await waitFor(() => (messages.some((m) => m.type === 'connection_ack') ? true : undefined), { timeoutMs: 10_000, what: () => 'ack' });
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { author { id } }' } }));
      await waitFor(() => (messages.some((m) => m.type === 'next') ? true : undefined), { timeoutMs: 10_000, what: () => 'first result' });
      const text = (await scrape()).text;
      expect(sample(text, 'svc_websocket_connections', {})).to.equal(1);
      expect(sample(text, 'svc_active_subscriptions', { subscription_kind: 'live' })).to.equal(1);
      expect(sample(text, 'svc_active_subscriptions', { subscription_kind: 'streaming' })).to.equal(0);
    } finally {
      ws.close();
    }
    await waitFor(async () => (sample((await scrape()).text, 'svc_websocket_connections', {}) === 0 ? true : undefined), {
      timeoutMs: 10_000,
      what: () => 'the connection gone from the gauge',
    });
  });

  it('is not served when the metrics API is not enabled', async () => {
    const plain = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm' });
    try {
      const res = await call(plain, '/v1/metrics', undefined, ADMIN);
      expect(res.status).to.equal(404);
    } finally {
      await plain.close();
    }
  });
});
