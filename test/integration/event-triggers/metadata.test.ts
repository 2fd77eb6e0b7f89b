/**
 * Event trigger metadata: validation errors as the reference words them, replace, export/replace
 * round trip, legacy /v1/query forms, run_sql dependency rules for listed columns,
 * reload_metadata recreating captures, log cleanup and its pause/resume, test_webhook_transform,
 * graceful shutdown returning claimed events to pending, and a second PostgreSQL source.
 */
import { expect } from 'chai';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase } from '../../helpers/database.js';
import { eventually } from '../../helpers/webhook-sink.js';
import { startEventFixture, type EventFixture } from './fixture.js';

describe('event triggers: metadata', function () {
  this.timeout(60000);
  let f: EventFixture;

  before(async () => {
    f = await startEventFixture('et_meta');
  });
  after(async () => f?.close());

  const createArgs = (extra: Record<string, unknown> = {}) => ({ name: 'a1', table: 'author', webhook: `${f.sink.url}/hook`, insert: { columns: '*' }, ...extra });
  const expectError = (r: { status: number; body: any }, code: string, error: string | RegExp) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(r.status, JSON.stringify(r.body)).to.equal(400);
    expect(r.body.code).to.equal(code);
    if (typeof error === 'string') expect(r.body.error).to.equal(error);
    else expect(r.body.error).to.match(error);
  };
  const captures = async () =>
    (await f.db.sql(`SELECT tgname FROM pg_trigger WHERE tgname LIKE 'notify_svc_%' ORDER BY 1`)).rows.map((r) => r.tgname as string);

  it('refuses bad definitions with the reference errors and changes nothing', async () => {
    const create = (args: Record<string, unknown>) => metadata(f.engine, { type: 'pg_create_event_trigger', args });
    expectError(await create(createArgs({ table: 'nope' })), 'not-exists', 'table "nope" does not exist in source: default');
    expectError(await create(createArgs({ webhook: undefined })), 'parse-failed', 'must provide webhook or webhook_from_env');
    expectError(await create(createArgs({ webhook_from_env: 'X' })), 'parse-failed', 'only one of webhook or webhook_from_env should be given');
    expectError(await create(createArgs({ name: 'bad name' })), 'parse-failed', 'only alphanumeric and underscore and hyphens allowed for name');
    expectError(await create(createArgs({ name: 'x'.repeat(43) })), 'parse-failed', 'event trigger name can be at most 42 characters');
    expectError(await create(createArgs({ insert: undefined })), 'parse-failed', 'atleast one amongst insert/update/delete/enable_manual spec must be provided');
    expectError(await create(createArgs({ update: { columns: ['ghost'] } })), 'not-exists', 'column "ghost" does not exist');
    expectError(await create(createArgs({ update: { columns: [] } })), 'parse-failed', 'found empty column specification');
    expectError(await create(createArgs({ webhook: undefined, webhook_from_env: 'NOT_SET_ANYWHERE' })), 'invalid-configuration', /environment variable 'NOT_SET_ANYWHERE' not set/);
    expectError(await create(createArgs({ headers: [{ name: 'X', value_from_env: 'NOT_SET_EITHER' }] })), 'invalid-configuration', /NOT_SET_EITHER/);
    expectError(await create(createArgs({ request_transform: { version: 3 } })), 'parse-failed', 'expected 1 or 2, encountered 3');
    const badTemplate = await create(createArgs({ request_transform: { body: '{{ $body. }}' } }));
    expectError(badTemplate, 'validation-failed', 'request transform validation failed');
    expectError(await create(createArgs({ cleanup_config: { schedule: 'not cron', clear_older_than: 1 } })), 'parse-failed', /invalid cron expression/);
    expect(await captures()).to.deep.equal([]);
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(JSON.stringify(exported.body)).to.not.include('event_triggers');
  });

  it('refuses a duplicate name, replaces on request, and never moves a trigger to another table', async () => {
    expect((await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs() })).status).to.equal(200);
    expect(await captures()).to.deep.equal(['notify_svc_a1_INSERT']);
    expectError(await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ table: 'book' }) }), 'already-exists', 'Event trigger with name "a1" already exists');
    expectError(
      await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ table: 'book', replace: true }) }),
      'not-supported',
      'cannot replace table or schema for trigger',
    );
    const replaced = await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ replace: true, insert: undefined, update: { columns: ['name'] }, delete: { columns: '*' } }) });
    expect(replaced.status).to.equal(200);
    expect(await captures()).to.deep.equal(['notify_svc_a1_DELETE', 'notify_svc_a1_UPDATE']);
    expectError(await metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name: 'zz' } }), 'not-exists', 'event trigger "zz" does not exist');
  });

  it('round-trips through export and replace_metadata, and delete drops the captures', async () => {
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    const author = exported.body.sources[0].tables.find((t: { table: { name: string } }) => t.table.name === 'author');
    expect(author.event_triggers).to.deep.equal([
      {
        name: 'a1',
        definition: { enable_manual: false, update: { columns: ['name'] }, delete: { columns: '*' } },
        retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
        webhook: `${f.sink.url}/hook`,
        trigger_on_replication: false,
      },
    ]);
    expect((await metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name: 'a1' } })).status).to.equal(200);
    expect(await captures()).to.deep.equal([]);
    const replaced = await metadata(f.engine, { type: 'replace_metadata', args: exported.body });
    expect(replaced.status, JSON.stringify(replaced.body)).to.equal(200);
    expect(await captures()).to.deep.equal(['notify_svc_a1_DELETE', 'notify_svc_a1_UPDATE']);
    const again = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(again.body).to.deep.equal(exported.body);
    expect((await metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name: 'a1' } })).status).to.equal(200);
  });

  it('answers the legacy /v1/query forms, without the keys they never had', async () => {
    const q = (body: unknown) => call(f.engine, '/v1/query', body);
    expect((await q({ type: 'create_event_trigger', args: createArgs({ name: 'legacy', enable_manual: true }) })).status).to.equal(200);
    const inv = await q({ type: 'invoke_event_trigger', args: { name: 'legacy', payload: { x: 1 } } });
    expect(inv.status).to.equal(200);
    await f.sink.waitFor((rs) => rs.some((r) => r.json?.id === (inv.body as { event_id: string }).event_id));
    await eventually(async () => ((await f.events('legacy'))[0]?.delivered ? true : undefined));
    expect((await q({ type: 'redeliver_event', args: { event_id: (inv.body as { event_id: string }).event_id } })).status).to.equal(200);
    expectError(await q({ type: 'create_event_trigger', args: createArgs({ name: 'l2', source: 'default' }) }), 'parse-failed', /not accepted by the legacy create_event_trigger/);
    expect((await q({ type: 'delete_event_trigger', args: { name: 'legacy' } })).status).to.equal(200);
    const onMetadata = await metadata(f.engine, { type: 'create_event_trigger', args: createArgs() });
    expect(onMetadata.body.code).to.equal('parse-failed');
  });

  it('follows run_sql: a listed column cannot be dropped without cascade, a rename follows, cascade removes the trigger', async () => {
    expect((await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ name: 'cols', insert: { columns: '*', payload: ['id', 'bio'] } }) })).status).to.equal(200);
    const runSql = (sql: string, cascade = false) => call(f.engine, '/v2/query', { type: 'run_sql', args: { sql, cascade } });
    expectError(await runSql('ALTER TABLE author DROP COLUMN bio'), 'dependency-error', 'cannot drop due to the following dependent objects: event-trigger author.cols in source "default"');
    expect((await runSql('ALTER TABLE author RENAME COLUMN bio TO biography')).status).to.equal(200);
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    const author = exported.body.sources[0].tables.find((t: { table: { name: string } }) => t.table.name === 'author');
    expect(author.event_triggers[0].definition.insert.payload).to.deep.equal(['id', 'biography']);
    f.sink.requests.length = 0;
    await f.db.sql(`INSERT INTO author (name, biography) VALUES ('Renamed', 'b')`);
    await f.sink.waitFor((rs) => rs.length === 1);
    expect(Object.keys(f.sink.requests[0]!.json.event.data.new)).to.deep.equal(['id', 'biography']);
    expect((await runSql('ALTER TABLE author DROP COLUMN biography', true)).status).to.equal(200);
    const after = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(JSON.stringify(after.body)).to.not.include('"cols"');
    expect(await captures()).to.deep.equal([]);
  });

  it('recreates captures removed behind its back with reload_metadata recreate_event_triggers', async () => {
    expect((await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ name: 'rec' }) })).status).to.equal(200);
    await f.db.sql(`DROP TRIGGER "notify_svc_rec_INSERT" ON author`);
    expect(await captures()).to.deep.equal([]);
    const r = await metadata(f.engine, { type: 'reload_metadata', args: { recreate_event_triggers: true } });
    expect(r.body).to.deep.equal({ is_consistent: true, message: 'success' });
    expect(await captures()).to.deep.equal(['notify_svc_rec_INSERT']);
    await metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name: 'rec' } });
  });

  it('cleans old event logs on request, and pauses and resumes scheduled cleaners', async () => {
    const cleanup = { schedule: '0 0 * * *', clear_older_than: 1, batch_size: 2, clean_invocation_logs: true };
    expect((await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ name: 'clean', cleanup_config: cleanup }) })).status).to.equal(200);
    await f.db.sql(`INSERT INTO author (name) SELECT 'c' || g FROM generate_series(1, 5) g`);
    await eventually(async () => {
      const rows = await f.events('clean');
      return rows.length === 5 && rows.every((r) => r.delivered) ? true : undefined;
    });
    await f.db.sql(`UPDATE svc_catalog.event_log SET created_at = created_at - interval '2 hours' WHERE trigger_name = 'clean'`);
    const r = await metadata(f.engine, {
      type: 'cleanup_event_trigger_logs',
      args: { event_trigger_name: 'clean', clear_older_than: 1, batch_size: 2, clean_invocation_logs: true },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body).to.deep.equal({ deleted_event_logs: 5, deleted_event_invocation_logs: 5 });
    expect(await f.events('clean')).to.deep.equal([]);

    const pause = await metadata(f.engine, { type: 'pause_event_trigger_cleanups', args: { event_triggers: [{ source_name: 'default', event_triggers: ['clean'] }] } });
    expect(pause.status).to.equal(200);
    const paused = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(JSON.stringify(paused.body)).to.include('"paused":true');
    await metadata(f.engine, { type: 'resume_event_trigger_cleanups', args: { event_triggers: [{ source_name: 'default', event_triggers: ['clean'] }] } });
    const resumed = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(JSON.stringify(resumed.body)).to.include('"paused":false');
    expect((await metadata(f.engine, { type: 'pg_create_event_trigger', args: createArgs({ name: 'noclean' }) })).status).to.equal(200);
    expectError(
      await metadata(f.engine, { type: 'pause_event_trigger_cleanups', args: { event_triggers: [{ source_name: 'default', event_triggers: ['noclean'] }] } }),
      'not-exists',
      'cleanup config does not exist for noclean',
    );
    for (const n of ['clean', 'noclean']) await metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name: n } });
  });

  it('renders a transform on sample data with test_webhook_transform, calling nothing', async () => {
    const r = await metadata(f.engine, {
      type: 'test_webhook_transform',
      args: {
        webhook_url: 'http://example.invalid/{{PATH}}',
        env: { PATH: 'users' },
        body: { name: 'x' },
        request_headers: [['X-Keep', 'k']],
        session_variables: { 'x-svc-role': 'user' },
        request_transform: {
          version: 2,
          method: 'POST',
          query_params: { role: '{{getSessionVariable("x-svc-role")}}' },
          body: { action: 'transform', template: '{"upper": {{toUpper($body.name)}}}' },
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body).to.deep.equal({ webhook_url: 'http://example.invalid/users?role=user', method: 'POST', headers: [['x-keep', 'k']], body: { upper: 'X' } });
    const missing = await metadata(f.engine, { type: 'test_webhook_transform', args: { webhook_url: '{{NOPE}}', body: {}, request_transform: {} } });
    expect(missing.body.code).to.equal('not-found');
    expect(missing.body.error).to.match(/^Missing Env Var: NOPE\. For security reasons/);
  });

  it('delivers from a second PostgreSQL source', async () => {
    const other = await createTestDatabase('et_second', 'CREATE TABLE item (id serial PRIMARY KEY, title text NOT NULL);');
    try {
      const add = await metadata(f.engine, { type: 'pg_add_source', args: { name: 'second', configuration: { connection_info: { database_url: other.url } } } });
      expect(add.status, JSON.stringify(add.body)).to.equal(200);
      expect((await metadata(f.engine, { type: 'pg_track_table', args: { source: 'second', table: 'item' } })).status).to.equal(200);
      const c = await metadata(f.engine, { type: 'pg_create_event_trigger', args: { source: 'second', name: 'items2', table: 'item', webhook: `${f.sink.url}/second`, insert: { columns: '*' } } });
      expect(c.status, JSON.stringify(c.body)).to.equal(200);
      await other.sql(`INSERT INTO item (title) VALUES ('Elsewhere')`);
      await f.sink.waitFor((rs) => rs.some((r) => r.path === '/second'));
      expect(f.sink.requests.find((r) => r.path === '/second')!.json.event.data.new.title).to.equal('Elsewhere');
      // Dropping the source stops its captures.
      const dropped = await metadata(f.engine, { type: 'pg_drop_source', args: { name: 'second', cascade: true } });
      expect(dropped.status, JSON.stringify(dropped.body)).to.equal(200);
      const left = await other.sql(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'`);
      expect(left.rows[0].n).to.equal(0);
    } finally {
      await other.drop();
    }
  });
});

describe('event triggers: graceful shutdown', function () {
  this.timeout(60000);

  it('finishes in-flight deliveries within the timeout and returns the rest to pending', async () => {
    const f = await startEventFixture('et_shutdown', { gracefulShutdownTimeout: 1 });
    try {
      f.sink.respond((req) => (req.json?.event?.data?.new?.name === 'slow' ? { hang: true } : {}));
      const r = await metadata(f.engine, { type: 'pg_create_event_trigger', args: { name: 'sd', table: 'author', webhook: `${f.sink.url}/hook`, insert: { columns: '*' }, retry_conf: { timeout_sec: 30 } } });
      expect(r.status).to.equal(200);
      await f.db.sql(`INSERT INTO author (name) VALUES ('slow')`);
      await f.sink.waitFor((rs) => rs.length === 1);
      const started = Date.now();
      await f.engine.close();
      expect(Date.now() - started).to.be.below(10000);
      const rows = await f.events('sd');
      expect(rows).to.have.length(1);
      expect(rows[0]).to.deep.include({ delivered: false, error: false, tries: 0, locked: null });
    } finally {
      await f.sink.close();
      await f.db.drop();
    }
  });

  it('starts again on an existing event log and delivers what was pending', async () => {
    const f = await startEventFixture('et_restart');
    try {
      await metadata(f.engine, { type: 'pg_create_event_trigger', args: { name: 'rs', table: 'author', webhook: `${f.sink.url}/hook`, insert: { columns: '*' } } });
      await f.engine.close();
      await f.db.sql(`INSERT INTO author (name) VALUES ('while-down')`);
      const engine = await startTestEngine({ databaseUrl: f.db.url, eventsFetchInterval: 50 }, { env: f.env });
      try {
        await f.sink.waitFor((rs) => rs.some((r) => r.json?.event?.data?.new?.name === 'while-down'));
      } finally {
        await engine.close();
      }
    } finally {
      await f.sink.close();
      await f.db.drop();
    }
  });
});
