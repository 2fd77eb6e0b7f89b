import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { eventually } from '../../helpers/webhook-sink.js';
import { startScheduledFixture, type ScheduledFixture } from './fixture.js';

describe('scheduled triggers: delivery', function () {
  this.timeout(60000);
  let f: ScheduledFixture;

  beforeEach(async () => {
    f = await startScheduledFixture('sched_delivery');
  });
  afterEach(async () => {
    await f.close();
  });

  it('delivers an every-minute cron trigger with its payload, headers and comment', async () => {
    const engine = await f.startEngine();
    f.fastClock(60); // a scheduled minute per real second
    const ok = await metadata(engine, {
      type: 'create_cron_trigger',
      args: {
        name: 'every_minute',
        webhook: '{{SINK_URL}}/cron',
        schedule: '* * * * *',
        payload: { hello: 'world' },
        headers: [{ name: 'X-Static', value: 'v' }, { name: 'X-Secret', value_from_env: 'SECRET_HEADER' }],
        include_in_metadata: true,
        comment: 'each minute',
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    await f.sink.waitFor((r) => r.filter((x) => x.path === '/cron').length >= 2, 20000, 'two cron deliveries');
    const [first, second] = f.sink.requests.filter((x) => x.path === '/cron');
    expect(first!.method).to.equal('POST');
    expect(first!.headers['x-static']).to.equal('v');
    expect(first!.headers['x-secret']).to.equal('sekret');
    expect(first!.headers['content-type']).to.equal('application/json');
    expect(first!.headers['user-agent']).to.match(/^svc-graphql-engine\//);
    expect(Object.keys(first!.json)).to.deep.equal(['id', 'name', 'scheduled_time', 'payload', 'comment']);
    expect(first!.json).to.include({ name: 'every_minute', comment: 'each minute' });
    expect(first!.json.payload).to.deep.equal({ hello: 'world' });
    // Occurrences are whole minutes, one minute apart.
    const t1 = Date.parse(first!.json.scheduled_time);
    const t2 = Date.parse(second!.json.scheduled_time);
    expect(t1 % 60000).to.equal(0);
    expect(t2 - t1).to.equal(60000);
    expect(first!.json.scheduled_time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);

    const events = await eventually(async () => {
      const r = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'cron', trigger_name: 'every_minute', status: ['delivered'], get_rows_count: true } });
      return r.body.count >= 2 ? r.body : undefined;
    }, 10000, 'delivered cron events');
    expect(events.events[0]).to.include({ trigger_name: 'every_minute', status: 'delivered', tries: 1 });
    const inv = await metadata(engine, { type: 'get_scheduled_event_invocations', args: { type: 'cron', event_id: events.events[0].id } });
    expect(inv.status).to.equal(200);
    expect(inv.body.invocations).to.have.length(1);
    const log = inv.body.invocations[0];
    expect(log.status).to.equal(200);
    expect(log.request.version).to.equal('1');
    expect(log.request.payload).to.include({ id: events.events[0].id, name: 'every_minute' });
    expect(log.response).to.include({ type: 'webhook_response', version: '1' });
    // About 100 occurrences are kept ahead.
    const pending = await f.rows(`SELECT count(*)::int AS n FROM svc_catalog.svc_cron_events WHERE trigger_name = 'every_minute' AND status = 'scheduled'`);
    expect(pending[0]!.n).to.be.within(50, 100);
  });

  it('retries a failing one-off event and ends it in error after num_retries + 1 tries', async () => {
    const engine = await f.startEngine();
    f.sink.respond((r) => (r.path === '/fail' ? { status: 500, body: '{"no":"way"}' } : {}));
    const created = await metadata(engine, {
      type: 'create_scheduled_event',
      args: {
        webhook: `${f.sink.url}/fail`,
        schedule_at: new Date().toISOString(),
        payload: { n: 1 },
        retry_conf: { num_retries: 1, retry_interval_seconds: 1 },
        comment: 'will fail',
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const id = created.body.event_id as string;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const row = await eventually(async () => {
      const r = await f.rows(`SELECT status, tries FROM svc_catalog.svc_scheduled_events WHERE id = $1`, [id]);
      return r[0]!.status === 'error' ? r[0] : undefined;
    }, 15000, 'the event to end in error');
    expect(row).to.deep.equal({ status: 'error', tries: 2 });
    const calls = f.sink.requests.filter((r) => r.path === '/fail');
    expect(calls).to.have.length(2);
    expect(calls[1]!.at - calls[0]!.at).to.be.at.least(900);
    expect(Object.keys(calls[0]!.json)).to.deep.equal(['id', 'scheduled_time', 'payload', 'comment', 'created_at']);
    expect(calls[0]!.json).to.include({ id, comment: 'will fail' });
    const inv = await metadata(engine, { type: 'get_scheduled_event_invocations', args: { type: 'one_off', event_id: id, get_rows_count: true } });
    expect(inv.body.count).to.equal(2);
    expect(inv.body.invocations[0]).to.include({ status: 500 });
  });

  it('retries a failing cron event and ends it in error', async () => {
    const engine = await f.startEngine();
    f.fastClock(60);
    f.sink.respond((r) => (r.path === '/cron-fail' ? { status: 503, body: '{}' } : {}));
    const ok = await metadata(engine, {
      type: 'create_cron_trigger',
      args: { name: 'flaky', webhook: `${f.sink.url}/cron-fail`, schedule: '* * * * *', include_in_metadata: true, retry_conf: { num_retries: 2, retry_interval_seconds: 5 } },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    const row = await eventually(async () => {
      const r = await f.rows(`SELECT id, status, tries FROM svc_catalog.svc_cron_events WHERE trigger_name = 'flaky' AND status <> 'scheduled' ORDER BY scheduled_time LIMIT 1`);
      return r[0]?.status === 'error' ? r[0] : undefined;
    }, 20000, 'the first cron event to end in error');
    expect(row!.tries).to.equal(3);
    const inv = await metadata(engine, { type: 'get_scheduled_event_invocations', args: { type: 'cron', event_id: row!.id } });
    expect(inv.body.invocations.map((i: { status: number }) => i.status)).to.deep.equal([503, 503, 503]);
  });

  it('marks an event past its tolerance dead without calling it', async () => {
    const engine = await f.startEngine();
    const created = await metadata(engine, {
      type: 'create_scheduled_event',
      args: { webhook: `${f.sink.url}/late`, schedule_at: new Date(Date.now() - 7 * 3600_000).toISOString() },
    });
    const id = created.body.event_id as string;
    const row = await eventually(async () => {
      const r = await f.rows(`SELECT status, tries FROM svc_catalog.svc_scheduled_events WHERE id = $1`, [id]);
      return r[0]!.status === 'dead' ? r[0] : undefined;
    }, 10000, 'the event to die');
    expect(row).to.deep.equal({ status: 'dead', tries: 0 });
    expect(f.sink.requests.filter((r) => r.path === '/late')).to.have.length(0);
    const dead = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'one_off', status: ['dead'] } });
    expect(dead.body.events.map((e: { id: string }) => e.id)).to.deep.equal([id]);
  });

  it('applies a request transform to a cron delivery', async () => {
    const engine = await f.startEngine();
    f.fastClock(60);
    const ok = await metadata(engine, {
      type: 'create_cron_trigger',
      args: {
        name: 'transformed',
        webhook: `${f.sink.url}/t`,
        schedule: '* * * * *',
        payload: { who: 'ann' },
        include_in_metadata: false,
        request_transform: { version: 2, method: 'PUT', body: { action: 'transform', template: '{"greeting": {{ $body.payload.who }}}' } },
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    await f.sink.waitFor((r) => r.some((x) => x.path === '/t'), 20000);
    const req = f.sink.requests.find((x) => x.path === '/t')!;
    expect(req.method).to.equal('PUT');
    expect(req.json).to.deep.equal({ greeting: 'ann' });
  });

  it('two engines on one database deliver each event once', async () => {
    const a = await f.startEngine();
    const b = await f.startEngine();
    f.fastClock(60);
    const ok = await metadata(a, {
      type: 'create_cron_trigger',
      args: { name: 'shared', webhook: `${f.sink.url}/shared`, schedule: '* * * * *', include_in_metadata: true },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await metadata(i % 2 ? a : b, { type: 'create_scheduled_event', args: { webhook: `${f.sink.url}/one`, schedule_at: new Date().toISOString(), payload: { i } } });
      ids.push(r.body.event_id);
    }
    // Both engines see the trigger (b through the schema sync) and both claim.
    await f.sink.waitFor((r) => r.filter((x) => x.path === '/one').length >= 40 && r.filter((x) => x.path === '/shared').length >= 4, 30000, 'deliveries');
    // Give a duplicate time to show up, then compare.
    await new Promise((r) => setTimeout(r, 500));
    const oneOff = f.sink.requests.filter((x) => x.path === '/one').map((x) => x.json.id as string);
    expect(oneOff.slice().sort()).to.deep.equal(ids.slice().sort());
    const cron = f.sink.requests.filter((x) => x.path === '/shared').map((x) => x.json.scheduled_time as string);
    expect(new Set(cron).size).to.equal(cron.length);
    const delivered = await f.rows(`SELECT count(*)::int AS n, max(tries) AS most FROM svc_catalog.svc_scheduled_events WHERE status = 'delivered'`);
    expect(delivered[0]).to.deep.equal({ n: 40, most: 1 });
  });

  it('puts an in-flight event back to scheduled when the engine shuts down', async () => {
    const engine = await f.startEngine({ gracefulShutdownTimeout: 1 });
    f.sink.respond((r) => (r.path === '/hang' ? { hang: true } : {}));
    const created = await metadata(engine, { type: 'create_scheduled_event', args: { webhook: `${f.sink.url}/hang`, schedule_at: new Date().toISOString() } });
    const id = created.body.event_id as string;
    await f.sink.waitFor((r) => r.some((x) => x.path === '/hang'));
    const locked = await f.rows(`SELECT status FROM svc_catalog.svc_scheduled_events WHERE id = $1`, [id]);
    expect(locked[0]!.status).to.equal('locked');
    await engine.close();
    const after = await f.rows(`SELECT status, tries FROM svc_catalog.svc_scheduled_events WHERE id = $1`, [id]);
    expect(after[0]).to.deep.equal({ status: 'scheduled', tries: 0 });
  });
});
