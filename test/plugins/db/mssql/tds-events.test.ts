/**
 * One delivery round of a sqlb_ event trigger through the real mssql/tedious client over TCP,
 * against the TDS stand-in (tds-stand-in.ts: it answers with given result sets and never runs
 * T-SQL), with the engine's own runner and a webhook on a real local HTTP server: the trigger is
 * created over the wire (catalog and capture statements in one transaction), the runner's claim
 * is answered with one event as SQL Server's OUTPUT would return it, the event is POSTed in the
 * reference's shape, and the outcome (invocation log and delivered state) is written back in one
 * transaction. What SQL Server itself would do with the statements is not tested here.
 */
import { expect } from 'chai';
import mssql from '../../../../plugins/db/mssql/index.js';
import { INTROSPECTION_BATCH } from '../../../../plugins/db/mssql/introspect.js';
import { CLAIM_SQL, CLEANUP_BATCH_SQL, EXISTING_CAPTURES_SQL, RECORD_INVOCATIONS_SQL, RECORD_STATES_SQL } from '../../../../plugins/db/mssql/event-triggers/catalog-sql.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import eventTriggers from '../../../../plugins/trigger/event-triggers/index.js';
import eventTriggerRunner from '../../../../plugins/trigger/event-trigger-runner/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import { bootTestEngine, type TestEngine } from '../../../helpers/inject.js';
import { startWebhookSink, type WebhookSink } from '../../../helpers/webhook-sink.js';
import { FIXTURE_RESULT_SETS } from './recording-driver.js';
import { TdsStandIn, type ResultSet } from './tds-stand-in.js';

const EVENT_ID = '6F9619FF-8B86-D011-B42D-00C04FC964FF';
const PAYLOAD = { op: 'INSERT', data: { old: null, new: { id: 5, title: 'Zeta' } }, session_variables: { 'x-svc-role': 'user' }, trace_context: null };

describe('db/mssql event triggers: a delivery round over the wire (TDS stand-in, real webhook)', function () {
  this.timeout(30000);
  let server: TdsStandIn;
  let sink: WebhookSink;
  let engine: TestEngine | undefined;
  let claims = 0;

  before(async () => {
    server = new TdsStandIn((s): ResultSet[] | 'hang' => {
      if (s.sql === CLEANUP_BATCH_SQL) return 'hang';
      if (s.sql === INTROSPECTION_BATCH) return FIXTURE_RESULT_SETS.map((rows) => rows as ResultSet);
      if (s.sql === EXISTING_CAPTURES_SQL) return [];
      if (s.sql === CLAIM_SQL) {
        claims++;
        if (claims > 1) return [];
        return [[{ id: EVENT_ID, schema_name: 'dbo', table_name: 'article', trigger_name: 'article_inserted', payload: JSON.stringify(PAYLOAD), tries: 0, created_at: '2026-01-02T03:04:05.123456' }]];
      }
      return [];
    });
    await server.start();
    sink = await startWebhookSink();
  });
  after(async () => {
    await engine?.kernel.hooks.onEvent.promise({ type: 'shutdown.started', reason: 'test' });
    await engine?.dispose();
    await sink.close();
    await server.stop();
  });

  it('claims, delivers to the webhook and records the outcome in one transaction', async () => {
    engine = await bootTestEngine({
      plugins: [mssql, adminSecret, management, sources, tables, eventTriggers, eventTriggerRunner, apiMetadata, apiGraphql],
      config: { adminSecret: 'tds', eventsFetchInterval: 50 },
    });
    const meta = async (body: unknown): Promise<void> => {
      const res = await engine!.inject<Record<string, unknown>>({ url: '/v1/metadata', headers: { 'x-svc-admin-secret': 'tds' }, body });
      expect(res.body, JSON.stringify(res.body)).to.deep.include({ message: 'success' });
    };
    const connectionString = `Server=127.0.0.1,${server.port};Database=conf;Uid=sa;Pwd=secret;Encrypt=false`;
    await meta({ type: 'sqlb_add_source', args: { name: 'conf', configuration: { connection_info: { connection_string: connectionString, pool_settings: { max_connections: 2 } } } } });
    await meta({ type: 'sqlb_track_table', args: { source: 'conf', table: { schema: 'dbo', name: 'article' }, configuration: { custom_name: 'article' } } });

    const created = server.received.length;
    const controls = server.control.length;
    await meta({ type: 'sqlb_create_event_trigger', args: { source: 'conf', table: { schema: 'dbo', name: 'article' }, name: 'article_inserted', webhook: sink.url, insert: { columns: '*' } } });
    const ddl = server.received.slice(created).map((s) => s.sql);
    expect(ddl.filter((s) => s.startsWith('CREATE OR ALTER TRIGGER'))).to.have.length(1);
    expect(ddl.filter((s) => s.startsWith('EXEC sp_getapplock'))).to.have.length(2);
    // The catalog and the capture each in a transaction of their own, committed.
    expect(server.control.slice(controls).filter((c) => c.startsWith('TM'))).to.deep.equal(['TM begin', 'TM commit', 'TM begin', 'TM commit']);

    await engine.kernel.hooks.onEvent.promise({ type: 'server.started', host: '127.0.0.1', port: 0, background: true });
    await sink.waitFor((r) => r.length > 0, 10000, 'the event at the webhook');
    const delivered = sink.requests[0]!;
    expect(delivered.method).to.equal('POST');
    expect(delivered.json).to.deep.include({
      id: EVENT_ID,
      table: { schema: 'dbo', name: 'article' },
      trigger: { name: 'article_inserted' },
      event: PAYLOAD,
      delivery_info: { current_retry: 0, max_retries: 0 },
      created_at: '2026-01-02T03:04:05.123456',
    });

    const deadline = Date.now() + 10000;
    while (!server.received.some((s) => s.sql === RECORD_STATES_SQL) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const claim = server.received.find((s) => s.sql === CLAIM_SQL)!;
    // The batch size, the lock timeout and the trigger names as one JSON parameter.
    expect(claim.declaration).to.match(/^@p0 int, @p1 int, @p2 nvarchar\(\d+\)$/);
    const invocations = server.received.findIndex((s) => s.sql === RECORD_INVOCATIONS_SQL);
    const states = server.received.findIndex((s) => s.sql === RECORD_STATES_SQL);
    expect(invocations, 'invocation log written').to.be.above(-1);
    expect(states, 'state written after it').to.be.above(invocations);
    expect(server.received[states]!.connection).to.equal(server.received[invocations]!.connection);
  });

  it('cancels a cleanup batch on the server at its timeout: `timeout`, and the connection reused', async () => {
    const attentions = server.attentions;
    const started = Date.now();
    const res = await engine!.inject<Record<string, unknown>>({
      url: '/v1/metadata',
      headers: { 'x-svc-admin-secret': 'tds' },
      body: { type: 'cleanup_event_trigger_logs', args: { source: 'conf', event_trigger_name: 'article_inserted', clear_older_than: 24, timeout: 1 } },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'timeout', error: 'event trigger log cleanup of "article_inserted" stopped: a batch took longer than 1 seconds' });
    expect(Date.now() - started).to.be.below(5000);
    expect(server.attentions, 'the statement cancelled with a TDS attention').to.be.above(attentions);
    const redeliver = await engine!.inject<Record<string, unknown>>({
      url: '/v1/metadata',
      headers: { 'x-svc-admin-secret': 'tds' },
      body: { type: 'sqlb_redeliver_event', args: { source: 'conf', event_id: EVENT_ID } },
    });
    // The stand-in answers the redelivery check with no row: the event is not found, and the pool still serves.
    expect(redeliver.body).to.include({ code: 'not-exists', error: 'event not found' });
  });
});
