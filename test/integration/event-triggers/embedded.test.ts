/**
 * Event triggers on the embedded database (PGlite, one shared session): the capture triggers, the
 * event log and the polling runner work there as on a server, including retries.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../../core/engine.js';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { startWebhookSink, type WebhookSink } from '../../helpers/webhook-sink.js';

describe('event triggers on the embedded database', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-et-embedded-'));
  let engine: Engine;
  let sink: WebhookSink;

  before(async () => {
    sink = await startWebhookSink();
    engine = await startTestEngine({ databaseUrl: undefined, metadataDatabaseUrl: undefined, dataDir, eventsFetchInterval: 50 });
  });
  after(async () => {
    await engine?.close();
    await sink?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('captures a mutation and delivers it, retrying a failed answer', async () => {
    const sql = await call(engine, '/v2/query', { type: 'run_sql', args: { sql: 'CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)' } });
    expect(sql.status, JSON.stringify(sql.body)).to.equal(200);
    let n = 0;
    sink.respond(() => (++n === 1 ? { status: 500 } : {}));
    const setup = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'note' } },
        { type: 'pg_create_event_trigger', args: { name: 'notes', table: 'note', webhook: `${sink.url}/notes`, insert: { columns: '*' }, retry_conf: { num_retries: 1, interval_sec: 1 } } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).to.equal(200);
    const g = await graphql(engine, 'mutation { insert_note_one(object: {body: "hi"}) { id } }');
    expect(g.body.data.insert_note_one.id).to.equal(1);
    await sink.waitFor((rs) => rs.length === 2, 30_000);
    expect(sink.requests.map((r) => r.json.delivery_info.current_retry)).to.deep.equal([0, 1]);
    expect(sink.requests[1]!.json.event).to.deep.include({ op: 'INSERT', data: { old: null, new: { id: 1, body: 'hi' } } });
  });
});
