import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { call, metadata } from '../../helpers/engine.js';
import { startScheduledFixture, type ScheduledFixture } from './fixture.js';

const cron = (extra: Record<string, unknown> = {}) => ({
  type: 'create_cron_trigger',
  args: { name: 'nightly', webhook: '{{SINK_URL}}/n', schedule: '0 3 * * *', include_in_metadata: true, ...extra },
});

describe('scheduled triggers: metadata', function () {
  this.timeout(30000);
  let f: ScheduledFixture;
  let engine: Engine;

  before(async () => {
    f = await startScheduledFixture('sched_meta');
    engine = await f.startEngine();
  });
  after(async () => {
    await f.close();
  });
  beforeEach(async () => {
    await metadata(engine, { type: 'clear_metadata', args: {} });
  });

  const pending = async (name: string) =>
    (await f.rows(`SELECT count(*)::int AS n FROM svc_catalog.svc_cron_events WHERE trigger_name = $1 AND status = 'scheduled'`, [name]))[0]!.n as number;

  it('creates with defaults filled in, generates occurrences, and lists it', async () => {
    expect((await metadata(engine, cron({ payload: { a: 1 } }))).body).to.deep.equal({ message: 'success' });
    const listed = await metadata(engine, { type: 'get_cron_triggers', args: {} });
    expect(listed.body.cron_triggers).to.deep.equal([
      {
        name: 'nightly',
        webhook: '{{SINK_URL}}/n',
        schedule: '0 3 * * *',
        include_in_metadata: true,
        payload: { a: 1 },
        retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 },
        headers: [],
      },
    ]);
    expect(await pending('nightly')).to.equal(100);
    const times = await f.rows(`SELECT scheduled_time FROM svc_catalog.svc_cron_events WHERE trigger_name = 'nightly' ORDER BY scheduled_time LIMIT 2`);
    expect((times[0]!.scheduled_time as Date).getUTCHours()).to.equal(3);
    expect((times[1]!.scheduled_time as Date).getTime() - (times[0]!.scheduled_time as Date).getTime()).to.equal(86400_000);
  });

  it('refuses duplicates, unknown names on replace and delete, bad schedules and bad retry_conf', async () => {
    await metadata(engine, cron());
    const dup = await metadata(engine, cron());
    expect(dup.status).to.equal(400);
    expect(dup.body).to.deep.include({ code: 'already-exists', error: 'cron trigger with name: nightly already exists' });
    const rep = await metadata(engine, cron({ name: 'other', replace: true }));
    expect(rep.body).to.deep.include({ code: 'not-exists', error: 'cron trigger with name: other does not exist' });
    const del = await metadata(engine, { type: 'delete_cron_trigger', args: { name: 'other' } });
    expect(del.body).to.deep.include({ code: 'not-exists', error: 'cron trigger with name: other does not exist' });
    const bad = await metadata(engine, cron({ name: 'bad', schedule: 'every day' }));
    expect(bad.body.code).to.equal('parse-failed');
    expect(bad.body.path).to.equal('$.args.schedule');
    expect(bad.body.error).to.match(/invalid cron expression "every day"/);
    const range = await metadata(engine, cron({ name: 'bad', schedule: '61 * * * *' }));
    expect(range.body.code).to.equal('parse-failed');
    const retry = await metadata(engine, cron({ name: 'bad', retry_conf: { num_retries: -1 } }));
    expect(retry.body).to.deep.include({ code: 'parse-failed', path: '$.args.retry_conf.num_retries' });
    const missing = await metadata(engine, { type: 'create_cron_trigger', args: { name: 'x', webhook: 'http://h', schedule: '* * * * *' } });
    expect(missing.body).to.deep.include({ code: 'parse-failed', error: 'key "include_in_metadata" not found' });
    expect((await metadata(engine, { type: 'get_cron_triggers', args: {} })).body.cron_triggers).to.have.length(1);
  });

  it('refuses a trigger whose environment variable is unset, as an inconsistent object', async () => {
    const r = await metadata(engine, cron({ name: 'envless', webhook: '{{NO_SUCH_VAR}}/x' }));
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('invalid-configuration');
    expect(r.body.error).to.equal("Inconsistent object: environment variable 'NO_SUCH_VAR' not set");
    expect(r.body.internal[0]).to.deep.include({ type: 'cron_trigger', name: 'cron_trigger envless' });
    const replaced = await metadata(engine, {
      type: 'replace_metadata',
      version: 2,
      args: { allow_inconsistent_metadata: true, metadata: { version: 3, sources: [], cron_triggers: [cron({ name: 'envless', webhook: '{{NO_SUCH_VAR}}' }).args] } },
    });
    expect(replaced.body.is_consistent).to.equal(false);
    const incons = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(incons.body.inconsistent_objects.map((o: { name: string }) => o.name)).to.deep.equal(['cron_trigger envless']);
    expect(await pending('envless')).to.equal(0);
    await metadata(engine, { type: 'drop_inconsistent_metadata', args: {} });
    expect((await metadata(engine, { type: 'get_cron_triggers', args: {} })).body.cron_triggers).to.deep.equal([]);
  });

  it('replacing a trigger regenerates its occurrences; deleting it removes the pending ones', async () => {
    await metadata(engine, cron());
    expect(await pending('nightly')).to.equal(100);
    expect((await metadata(engine, cron({ schedule: '0 * * * *', replace: true }))).status).to.equal(200);
    const hours = await f.rows(`SELECT DISTINCT extract(hour from scheduled_time AT TIME ZONE 'UTC')::int AS h FROM svc_catalog.svc_cron_events WHERE trigger_name = 'nightly'`);
    expect(hours.length).to.be.greaterThan(1);
    expect(await pending('nightly')).to.equal(100);
    expect((await metadata(engine, { type: 'delete_cron_trigger', args: { name: 'nightly' } })).status).to.equal(200);
    expect(await pending('nightly')).to.equal(0);
  });

  it('round-trips through export and replace; include_in_metadata false stays out of exports', async () => {
    await metadata(engine, cron({ comment: 'c', headers: [{ name: 'A', value: 'b' }] }));
    await metadata(engine, cron({ name: 'hidden', include_in_metadata: false }));
    const exported = await metadata(engine, { type: 'export_metadata', args: {} });
    expect(exported.body.cron_triggers.map((t: { name: string }) => t.name)).to.deep.equal(['nightly']);
    const before = (await metadata(engine, { type: 'get_cron_triggers', args: {} })).body;
    expect((await metadata(engine, { type: 'replace_metadata', args: exported.body })).status).to.equal(200);
    expect((await metadata(engine, { type: 'get_cron_triggers', args: {} })).body).to.deep.equal(before);
    const clash = await metadata(engine, { type: 'replace_metadata', args: { ...exported.body, cron_triggers: [cron({ name: 'hidden' }).args] } });
    expect(clash.body).to.deep.include({
      code: 'already-exists',
      error: 'cron trigger with name "hidden" already exists as a cron trigger with "included_in_metadata" as false',
    });
  });

  it('generates occurrences only once the trigger is committed', async () => {
    let refuse = true;
    engine.kernel.hooks.onMetadataApply.tap('test-refuse', () => {
      if (refuse) throw new Error('refused by the test');
    });
    try {
      const refused = await metadata(engine, cron({ name: 'refused' }));
      expect(refused.status).to.not.equal(200);
      expect(await pending('refused')).to.equal(0);
    } finally {
      refuse = false;
    }
    expect((await metadata(engine, cron({ name: 'refused' }))).status).to.equal(200);
    expect(await pending('refused')).to.equal(100);
  });

  it('pages events and invocations with the reference args, and answers get_event_invocations', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    for (let i = 0; i < 3; i++) await metadata(engine, { type: 'create_scheduled_event', args: { webhook: '{{SINK_URL}}/p', schedule_at: at, payload: { i } } });
    const page = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'one_off', limit: 2, offset: 1, get_rows_count: true } });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    expect(page.body.events).to.have.length(2);
    expect(page.body.count).to.be.at.least(3);
    expect((await metadata(engine, cron({ name: 'paged' }))).status).to.equal(200);
    const cronPage = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'cron', trigger_name: 'paged', limit: 5, status: ['scheduled'] } });
    expect(cronPage.body.events).to.have.length(5);
    expect(cronPage.body.events[0]).to.include.keys('id', 'trigger_name', 'scheduled_time', 'status', 'tries', 'created_at', 'next_retry_at');
    const both = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'one_off', limit: 1, pagination: { limit: 1 } } });
    expect(both.body).to.deep.include({ code: 'parse-failed', path: '$.args.pagination' });
    // Its earlier name, with the same args: a cron trigger's invocations (none yet) by trigger name.
    const old = await metadata(engine, { type: 'get_event_invocations', args: { type: 'cron', trigger_name: 'paged', limit: 10, offset: 0, get_rows_count: true } });
    expect(old.status, JSON.stringify(old.body)).to.equal(200);
    expect(old.body).to.deep.equal({ invocations: [], count: 0 });
  });

  it('deletes a cron event with delete_scheduled_event', async () => {
    expect((await metadata(engine, cron({ name: 'cleaned' }))).status).to.equal(200);
    const [first] = (await metadata(engine, { type: 'get_scheduled_events', args: { type: 'cron', trigger_name: 'cleaned', limit: 1 } })).body.events;
    expect((await metadata(engine, { type: 'delete_scheduled_event', args: { type: 'cron', event_id: first.id } })).status).to.equal(200);
    expect(await pending('cleaned')).to.equal(99);
    const again = await metadata(engine, { type: 'delete_scheduled_event', args: { type: 'cron', event_id: first.id } });
    expect(again.body.code).to.equal('not-exists');
  });

  it('lists, pages and deletes one-off events on /v1/metadata and /v1/query', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(engine, '/v1/query', { type: 'create_scheduled_event', args: { webhook: '{{SINK_URL}}/x', schedule_at: at, payload: { i } } });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      ids.push(r.body.event_id);
    }
    const page = await metadata(engine, { type: 'get_scheduled_events', args: { type: 'one_off', pagination: { limit: 2, offset: 1 }, get_rows_count: true } });
    expect(page.body.count).to.be.at.least(3);
    expect(page.body.events).to.have.length(2);
    expect(page.body.events[0]).to.include.keys('id', 'webhook_conf', 'scheduled_time', 'retry_conf', 'payload', 'header_conf', 'status', 'tries', 'created_at');
    expect((await metadata(engine, { type: 'delete_scheduled_event', args: { type: 'one_off', event_id: ids[0] } })).status).to.equal(200);
    const gone = await metadata(engine, { type: 'delete_scheduled_event', args: { type: 'one_off', event_id: ids[0] } });
    expect(gone.body.code).to.equal('not-exists');
    const badAt = await metadata(engine, { type: 'create_scheduled_event', args: { webhook: 'http://h', schedule_at: 'tomorrow' } });
    expect(badAt.body).to.deep.include({ code: 'parse-failed', path: '$.args.schedule_at' });
    const envless = await metadata(engine, { type: 'create_scheduled_event', args: { webhook: '{{NOPE_VAR}}', schedule_at: at } });
    expect(envless.body).to.deep.include({ code: 'invalid-configuration', error: "environment variable 'NOPE_VAR' not set" });
  });
});
