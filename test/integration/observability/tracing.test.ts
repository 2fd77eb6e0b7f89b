import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';
import { waitFor } from '../../helpers/wait.js';
import { tracing } from '../../../core/tracing/tracing.js';
import type { Engine } from '../../../core/engine.js';

const ADMIN = { 'x-svc-admin-secret': 'adm' };

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP receiver in the test process: decodes the JSON encoding, keeps every span. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; resources: unknown[]; contentTypes: string[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const resources: unknown[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          resources.push(rs.resource);
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, resources, contentTypes, close: () => new Promise((r) => server.close(() => r())) };
}

describe('tracing (OpenTelemetry, OTLP over HTTP)', function () {
  this.timeout(40_000);
  let db: TestDatabase;
  let engine: Engine;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let sink: WebhookSink;

  before(async () => {
    receiver = await startOtlpReceiver();
    sink = await startWebhookSink();
    db = await createTestDatabase('tracing', `CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO author (name) VALUES ('a');`);
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm', eventsFetchInterval: 50 });
    await metadata(engine, { type: 'pg_track_table', args: { source: 'default', table: 'author' } }, ADMIN);
    const t = await metadata(engine, { type: 'pg_create_event_trigger', args: { source: 'default', table: 'author', name: 'author_new', webhook: sink.url, insert: { columns: '*' } } }, ADMIN);
    expect(t.status).to.equal(200);
  });

  after(async () => {
    await engine?.close();
    await receiver?.close();
    await sink?.close();
    await db?.drop();
  });

  it('is off by default: nothing is traced', async () => {
    expect(tracing.active).to.equal(false);
    await graphql(engine, '{ author { id } }', undefined, ADMIN);
    expect(receiver.spans).to.have.length(0);
  });

  it('refuses settings it cannot honour, with coded errors', async () => {
    const grpc = await metadata(engine, { type: 'set_opentelemetry_config', args: { status: 'enabled', exporter_otlp: { otlp_traces_endpoint: `${receiver.url}/v1/traces`, protocol: 'grpc' } } }, ADMIN);
    expect(grpc.status).to.equal(400);
    expect(grpc.body).to.include({ code: 'not-supported', path: '$.args.exporter_otlp.protocol' });
    const logs = await metadata(engine, { type: 'set_opentelemetry_config', args: { status: 'enabled', data_types: ['traces', 'logs'] } }, ADMIN);
    expect(logs.body).to.include({ code: 'not-supported', path: '$.args.data_types[1]' });
    const status = await metadata(engine, { type: 'set_opentelemetry_status', args: 'on' }, ADMIN);
    expect(status.body).to.include({ code: 'parse-failed' });
    expect(tracing.active).to.equal(false);
  });

  it('exports the span tree of one request, continuing the caller\'s traceparent', async () => {
    const set = await metadata(
      engine,
      {
        type: 'set_opentelemetry_config',
        args: {
          status: 'enabled',
          data_types: ['traces'],
          exporter_otlp: {
            otlp_traces_endpoint: `${receiver.url}/v1/traces`,
            protocol: 'http/json',
            resource_attributes: [{ name: 'deployment.environment', value: 'test' }],
          },
          batch_span_processor: { max_export_batch_size: 100 },
        },
      },
      ADMIN,
    );
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    await waitFor(() => (tracing.active ? true : undefined), { timeoutMs: 5000, what: () => 'tracing on' });
    const exported = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    expect(exported.body.opentelemetry).to.include({ status: 'enabled' });

    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const q = await graphql(engine, '{ author { id name } }', undefined, { ...ADMIN, traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(q.body).to.deep.equal({ data: { author: [{ id: 1, name: 'a' }] } });
    await tracing.flush();
    const spans = await waitFor(
      () => {
        const mine = receiver.spans.filter((s) => s.traceId === traceId);
        return mine.some((s) => s.name === 'db.query') ? mine : undefined;
      },
      { timeoutMs: 10_000, what: () => `spans of trace ${traceId} (got ${receiver.spans.map((s) => s.name).join(', ')})` },
    );
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const root = byName('POST /v1/graphql');
    expect(root, 'server span').to.exist;
    expect(root.parentSpanId).to.equal(callerSpan);
    expect(root.kind).to.equal(2); // SERVER
    for (const child of ['auth', 'graphql.plan', 'graphql.compile', 'db.query']) {
      expect(byName(child), child).to.exist;
      expect(byName(child).parentSpanId, `${child}'s parent`).to.equal(root.spanId);
    }
    const statement = byName('db.query').attributes!.find((a) => a.key === 'db.statement')!;
    expect(String(statement.value['stringValue'])).to.match(/^SELECT /);
    expect(JSON.stringify(receiver.resources)).to.include('deployment.environment');
  });

  it('propagates the trace to event-trigger webhooks through svc.tracecontext', async () => {
    const traceId = randomBytes(16).toString('hex');
    const m = await graphql(engine, 'mutation { insert_author_one(object: {name: "b"}) { id } }', undefined, {
      ...ADMIN,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(m.body.data.insert_author_one.id).to.equal(2);
    await sink.waitFor((r) => r.some((x) => x.json?.event?.data?.new?.name === 'b'), 10_000, 'the event delivered');
    const delivery = sink.requests.find((x) => x.json?.event?.data?.new?.name === 'b')!;
    expect(delivery.json.event.trace_context).to.include({ trace_id: traceId });
    expect(String(delivery.headers['traceparent'])).to.match(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await waitFor(async () => {
      await tracing.flush();
      return receiver.spans.some((s) => s.traceId === traceId && s.name === 'event-trigger delivery') ? true : undefined;
    }, {
      timeoutMs: 10_000,
      what: () => 'the delivery span',
    });
    const outgoing = receiver.spans.find((s) => s.traceId === traceId && s.kind === 3 && s.name.startsWith('POST http'));
    expect(outgoing, 'the webhook call span').to.exist;
  });

  it('set_opentelemetry_status disabled turns it off again', async () => {
    const r = await metadata(engine, { type: 'set_opentelemetry_status', args: 'disabled' }, ADMIN);
    expect(r.status).to.equal(200);
    await waitFor(() => (tracing.active ? undefined : true), { timeoutMs: 5000, what: () => 'tracing off' });
    const traceId = randomBytes(16).toString('hex');
    await call(engine, '/v1/graphql', { query: '{ author { id } }' }, { ...ADMIN, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    await tracing.flush();
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.spans.filter((s) => s.traceId === traceId)).to.deep.equal([]);
  });
});
