/**
 * Event triggers end to end with a real webhook sink and real PostgreSQL: the payload of each
 * operation exactly as the reference sends it, listened columns, manual invocation, headers from
 * the environment, URL templates, transforms, retries at the configured interval, Retry-After,
 * `error` after the last try, redelivery, and a hanging webhook that must not stall the rest.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import { eventually } from '../../helpers/webhook-sink.js';
import { startEventFixture, type EventFixture } from './fixture.js';

const CREATED_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?$/;

describe('event triggers: delivery', function () {
  this.timeout(60000);
  let f: EventFixture;

  before(async () => {
    f = await startEventFixture('et_delivery', {}, { HOOK_SECRET: 's3cret', HOOK_PATH: 'from-env' });
  });
  after(async () => f?.close());
  beforeEach(() => {
    f.sink.requests.length = 0;
    f.sink.respond(() => ({}));
  });

  const create = async (args: Record<string, unknown>) => {
    const r = await metadata(f.engine, { type: 'pg_create_event_trigger', args: { table: 'author', webhook: `${f.sink.url}/hook`, ...args } });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  };
  const drop = (name: string) => metadata(f.engine, { type: 'pg_delete_event_trigger', args: { name } });

  it('sends the reference payload and headers for an insert, with the session of the mutation', async () => {
    await create({ name: 'ins', insert: { columns: '*' } });
    const g = await graphql(f.engine, 'mutation { insert_author_one(object: {name: "Ann", age: 30}) { id } }', undefined, { 'x-svc-role': 'admin', 'x-svc-user-id': '7' });
    const id = g.body.data.insert_author_one.id;
    await f.sink.waitFor((rs) => rs.length === 1);
    const req = f.sink.requests[0]!;
    expect(req.method).to.equal('POST');
    expect(req.path).to.equal('/hook');
    expect(req.headers['content-type']).to.equal('application/json');
    expect(req.headers['user-agent']).to.match(/^svc-graphql-engine\/v\d/);
    const body = req.json;
    expect(Object.keys(body).sort()).to.deep.equal(['created_at', 'delivery_info', 'event', 'id', 'table', 'trigger']);
    expect(body.table).to.deep.equal({ schema: 'public', name: 'author' });
    expect(body.trigger).to.deep.equal({ name: 'ins' });
    expect(body.delivery_info).to.deep.equal({ current_retry: 0, max_retries: 0 });
    expect(body.created_at).to.match(CREATED_AT);
    expect(body.event).to.deep.equal({
      op: 'INSERT',
      data: { old: null, new: { id, name: 'Ann', age: 30, bio: null, score: null } },
      session_variables: { 'x-svc-role': 'admin', 'x-svc-user-id': '7' },
      trace_context: null,
    });
    const [event] = await eventually(async () => {
      const rows = await f.events('ins');
      return rows[0]?.delivered ? rows : undefined;
    });
    expect(body.id).to.equal(event!.id);
    expect(event!.tries).to.equal(1);
    const [log] = await f.invocations(event!.id);
    expect(log!.status).to.equal(200);
    expect(log!.request.version).to.equal('2');
    expect(log!.request.payload).to.deep.equal(body);
    expect(log!.request.headers).to.deep.include({ name: 'Content-Type', value: 'application/json' });
    expect(log!.response).to.deep.include({ type: 'webhook_response', version: '2' });
    expect(log!.response.data.status).to.equal(200);
    expect(log!.response.data.body).to.equal('{}');
    await drop('ins');
  });

  it('fires an update only when a listened column changes, sending only the payload columns', async () => {
    await f.db.sql(`INSERT INTO author (name, age) VALUES ('Upd', 1)`);
    await create({ name: 'upd', update: { columns: ['name'], payload: ['id', 'name'] } });
    await f.db.sql(`UPDATE author SET age = 2 WHERE name = 'Upd'`);
    await f.db.sql(`UPDATE author SET name = 'Upd2' WHERE name = 'Upd'`);
    await f.db.sql(`UPDATE author SET name = 'Upd2' WHERE name = 'Upd2'`);
    await f.sink.waitFor((rs) => rs.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(f.sink.requests).to.have.length(1);
    const ev = f.sink.requests[0]!.json.event;
    expect(ev.op).to.equal('UPDATE');
    expect(ev.session_variables).to.equal(null);
    expect(ev.data.old).to.deep.equal({ id: ev.data.new.id, name: 'Upd' });
    expect(ev.data.new).to.deep.equal({ id: ev.data.old.id, name: 'Upd2' });
    await drop('upd');
  });

  it('counts a change from or to NULL as a change of a listened column', async () => {
    await f.db.sql(`INSERT INTO author (name) VALUES ('NullBio')`);
    await create({ name: 'nulls', update: { columns: ['bio'] } });
    await f.db.sql(`UPDATE author SET bio = 'x' WHERE name = 'NullBio'`);
    await f.db.sql(`UPDATE author SET bio = NULL WHERE name = 'NullBio'`);
    await f.sink.waitFor((rs) => rs.length === 2);
    expect(f.sink.requests.map((r) => r.json.event.data.new.bio).sort()).to.deep.equal(['x', null].sort());
    await drop('nulls');
  });

  it('sends the old row for a delete', async () => {
    const { rows } = await f.db.sql(`INSERT INTO author (name, age) VALUES ('Del', 5) RETURNING id`);
    await create({ name: 'del', delete: { columns: '*' } });
    await f.db.sql(`DELETE FROM author WHERE id = $1`, [rows[0].id]);
    await f.sink.waitFor((rs) => rs.length === 1);
    expect(f.sink.requests[0]!.json.event).to.deep.include({
      op: 'DELETE',
      data: { old: { id: rows[0].id, name: 'Del', age: 5, bio: null, score: null }, new: null },
    });
    await drop('del');
  });

  it('invokes a manual trigger with the given payload and answers the event id', async () => {
    await create({ name: 'man', enable_manual: true });
    const r = await metadata(f.engine, { type: 'pg_invoke_event_trigger', args: { name: 'man', payload: { any: ['thing'] } } });
    expect(r.status).to.equal(200);
    expect(r.body.event_id).to.be.a('string');
    await f.sink.waitFor((rs) => rs.length === 1);
    const body = f.sink.requests[0]!.json;
    expect(body.id).to.equal(r.body.event_id);
    expect(body.event.op).to.equal('MANUAL');
    expect(body.event.data).to.deep.equal({ old: null, new: { any: ['thing'] } });
    expect(body.event.session_variables).to.deep.equal({ 'x-svc-role': 'admin' });
    const refused = await metadata(f.engine, { type: 'pg_invoke_event_trigger', args: { name: 'nope', payload: {} } });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.include({ code: 'not-exists', error: 'event trigger "nope" does not exist' });
    await create({ name: 'noman', insert: { columns: '*' } });
    const notManual = await metadata(f.engine, { type: 'pg_invoke_event_trigger', args: { name: 'noman', payload: {} } });
    expect(notManual.body).to.deep.include({ code: 'not-supported', error: 'manual mode is not enabled for event trigger' });
    await drop('man');
    await drop('noman');
  });

  it('resolves headers (value and value_from_env) and {{ENV}} URL templates', async () => {
    await metadata(f.engine, {
      type: 'pg_create_event_trigger',
      args: {
        name: 'hdr',
        table: 'author',
        webhook: '{{SINK_URL}}/{{HOOK_PATH}}',
        insert: { columns: '*' },
        headers: [
          { name: 'X-Static', value: 'plain' },
          { name: 'X-Secret', value_from_env: 'HOOK_SECRET' },
        ],
      },
    });
    await f.db.sql(`INSERT INTO author (name) VALUES ('Hdr')`);
    await f.sink.waitFor((rs) => rs.length === 1);
    const req = f.sink.requests[0]!;
    expect(req.path).to.equal('/from-env');
    expect(req.headers['x-static']).to.equal('plain');
    expect(req.headers['x-secret']).to.equal('s3cret');
    // The stored definition keeps the template, not the secret values.
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    const table = exported.body.sources[0].tables.find((t: { table: { name: string } }) => t.table.name === 'author');
    expect(table.event_triggers[0]).to.deep.include({ webhook: '{{SINK_URL}}/{{HOOK_PATH}}' });
    expect(JSON.stringify(exported.body)).to.not.include('s3cret');
    await drop('hdr');
  });

  it('applies a request transform (method, url, query, headers, body) and a response transform', async () => {
    await create({
      name: 'tr',
      insert: { columns: '*' },
      headers: [{ name: 'X-Drop', value: 'me' }],
      request_transform: {
        version: 2,
        method: 'PUT',
        url: '{{$base_url}}/moved',
        query_params: { author: '{{$body.event.data.new.name}}' },
        request_headers: { add_headers: { 'X-Op': '{{$body.event.op}}' }, remove_headers: ['X-Drop'] },
        body: { action: 'transform', template: '{"who": {{$body.event.data.new.name}}, "op": {{$body.event.op}}}' },
      },
      response_transform: { version: 2, body: { action: 'transform', template: '{"seen": {{$response.status}}}' } },
    });
    await f.db.sql(`INSERT INTO author (name) VALUES ('Tess')`);
    await f.sink.waitFor((rs) => rs.length === 1);
    const req = f.sink.requests[0]!;
    expect(req.method).to.equal('PUT');
    expect(req.path).to.equal('/hook/moved?author=Tess');
    expect(req.headers['x-op']).to.equal('INSERT');
    expect(req.headers['x-drop']).to.equal(undefined);
    expect(req.json).to.deep.equal({ who: 'Tess', op: 'INSERT' });
    const [event] = await eventually(async () => {
      const rows = await f.events('tr');
      return rows[0]?.delivered ? rows : undefined;
    });
    const [log] = await f.invocations(event!.id);
    expect(log!.response.data.body).to.equal('{"seen":200}');
    await drop('tr');
  });

  it('retries at the configured interval, marks error after the last try, and redelivers on request', async () => {
    f.sink.respond(() => ({ status: 500, body: '{"nope":true}' }));
    await create({ name: 'retry', insert: { columns: '*' }, retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 5 } });
    await f.db.sql(`INSERT INTO author (name) VALUES ('Retry')`);
    await f.sink.waitFor((rs) => rs.length === 3, 20000);
    const times = f.sink.requests.map((r) => r.at);
    expect(times[1]! - times[0]!).to.be.at.least(900);
    expect(times[2]! - times[1]!).to.be.at.least(900);
    expect(f.sink.requests.map((r) => r.json.delivery_info)).to.deep.equal([
      { current_retry: 0, max_retries: 2 },
      { current_retry: 1, max_retries: 2 },
      { current_retry: 2, max_retries: 2 },
    ]);
    const [event] = await eventually(async () => {
      const rows = await f.events('retry');
      return rows[0]?.error ? rows : undefined;
    });
    expect(event).to.deep.include({ error: true, delivered: false, tries: 3, locked: null });
    const logs = await f.invocations(event!.id);
    expect(logs.map((l) => l.status)).to.deep.equal([500, 500, 500]);
    expect(logs[0]!.response.data.body).to.equal('{"nope":true}');
    await new Promise((r) => setTimeout(r, 1300));
    expect(f.sink.requests).to.have.length(3);

    f.sink.respond(() => ({}));
    const again = await metadata(f.engine, { type: 'pg_redeliver_event', args: { event_id: event!.id } });
    expect(again.status).to.equal(200);
    await f.sink.waitFor((rs) => rs.length === 4);
    expect(f.sink.requests[3]!.json.delivery_info).to.deep.equal({ current_retry: 0, max_retries: 2 });
    await eventually(async () => ((await f.events('retry'))[0]?.delivered ? true : undefined));
    const missing = await metadata(f.engine, { type: 'pg_redeliver_event', args: { event_id: '00000000-0000-0000-0000-000000000000' } });
    expect(missing.body).to.deep.include({ code: 'not-exists', error: 'event not found' });
    await drop('retry');
  });

  it('honours Retry-After from a failed answer, even past the configured retries', async () => {
    let n = 0;
    f.sink.respond(() => (++n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : {}));
    await create({ name: 'after', insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 60 } });
    await f.db.sql(`INSERT INTO author (name) VALUES ('After')`);
    await f.sink.waitFor((rs) => rs.length === 2, 20000);
    const gap = f.sink.requests[1]!.at - f.sink.requests[0]!.at;
    expect(gap).to.be.within(900, 20000);
    await eventually(async () => ((await f.events('after'))[0]?.delivered ? true : undefined));
    await drop('after');
  });

  it('keeps delivering other events while a webhook hangs, refuses connections or answers garbage', async () => {
    f.sink.respond((req) => (req.path === '/hang' ? { hang: true } : req.path === '/garbage' ? { status: 200, body: '<<<not json' } : {}));
    await create({ name: 'hang', webhook: `${f.sink.url}/hang`, insert: { columns: '*' }, retry_conf: { timeout_sec: 1 } });
    await create({ name: 'refused', webhook: 'http://127.0.0.1:1/nothing', insert: { columns: '*' } });
    await create({ name: 'garbage', webhook: `${f.sink.url}/garbage`, insert: { columns: '*' } });
    await create({ name: 'fine', insert: { columns: '*' } });
    await f.db.sql(`INSERT INTO author (name) SELECT 'many' || g FROM generate_series(1, 5) g`);
    await f.sink.waitFor((rs) => rs.filter((r) => r.path === '/hook').length === 5);
    const hang = await eventually(async () => {
      const rows = await f.events('hang');
      return rows.length === 5 && rows.every((r) => r.error) ? rows : undefined;
    });
    const [log] = await f.invocations(hang[0]!.id);
    expect(log!.status).to.equal(null);
    expect(log!.response.type).to.equal('client_error');
    expect(log!.response.data.message).to.match(/timeout/i);
    const refused = await eventually(async () => {
      const rows = await f.events('refused');
      return rows.length === 5 && rows.every((r) => r.error) ? rows : undefined;
    });
    expect((await f.invocations(refused[0]!.id))[0]!.response.data.message).to.match(/ECONNREFUSED/);
    // Garbage is still a 2xx answer: delivered, the body logged as text.
    const garbage = await eventually(async () => {
      const rows = await f.events('garbage');
      return rows.length === 5 && rows.every((r) => r.delivered) ? rows : undefined;
    });
    expect((await f.invocations(garbage[0]!.id))[0]!.response.data.body).to.equal('<<<not json');
    for (const n of ['hang', 'refused', 'garbage', 'fine']) await drop(n);
  });
});
