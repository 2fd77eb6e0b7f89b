/**
 * The sqlb_ event-trigger operations through the real engine (metadata API, the event-triggers
 * plugin, the mssql kind's event log) down to the driver boundary, where a recording stand-in
 * takes SQL Server's place: the statements each operation sends are pinned by snapshot
 * (event-triggers.snap.json, written with SVC_UPDATE_SNAPSHOTS=1 and reviewed by hand), every one
 * parses as T-SQL (sqlparser-rs's MsSql dialect: syntax only), values are parameters, and the
 * reference's validation errors come back with nothing sent. The stand-in answers only the shape
 * of what SQL Server would (an OUTPUT id, a lock flag, the triggers present): the data is made up.
 */
import { init as initSqlParser, validate as validateSql } from '@guanmingchiu/sqlparser-ts';
import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMssqlPlugin } from '../../../../plugins/db/mssql/index.js';
import { checkCapturable, createCaptureSql } from '../../../../plugins/db/mssql/event-triggers/capture-sql.js';
import { EXISTING_CAPTURES_SQL, INSERT_MANUAL_SQL, REDELIVER_CHECK_SQL } from '../../../../plugins/db/mssql/event-triggers/catalog-sql.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import permissions from '../../../../plugins/metadata/permissions/index.js';
import eventTriggers from '../../../../plugins/trigger/event-triggers/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import type { CaptureSpec, DatabaseKind } from '../../../../core/sdk/index.js';
import { bootTestEngine, type TestEngine } from '../../../helpers/inject.js';
import { RecordingDriver, type Recorded } from './recording-driver.js';
import type { Row } from '../../../../plugins/db/mssql/pool.js';

const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'event-triggers.snap.json');
const UPDATE = process.env['SVC_UPDATE_SNAPSHOTS'] === '1';
const SECRET = 'sqlb-events';
const ADMIN = { 'x-svc-admin-secret': SECRET };
const CONFIG = { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=conf;Uid=sa;Pwd=x' } };
const table = (name: string) => ({ schema: 'dbo', name });
const EVENT_ID = '6F9619FF-8B86-D011-B42D-00C04FC964FF';

type Body = Record<string, unknown> & { code?: string; error?: string; path?: string; message?: string };

/** The recording stand-in, answering the event log's statements as SQL Server would shape them. */
class EventLogDriver extends RecordingDriver {
  /** Capture triggers "in the database": name → [schema, table, definition]. */
  readonly triggers = new Map<string, [string, string, string]>();
  /** The answer to the redelivery check: absent, busy or free. */
  redeliverable: 'none' | 'busy' | 'free' = 'none';

  override async rows(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    const answer = await super.rows(sql, values);
    if (sql === EXISTING_CAPTURES_SQL) return [...this.triggers].map(([name, [schema, tbl, definition]]) => ({ name, schema, table: tbl, definition }));
    if (sql === INSERT_MANUAL_SQL) return [{ id: EVENT_ID }];
    if (sql === REDELIVER_CHECK_SQL) return this.redeliverable === 'none' ? [] : [{ busy: this.redeliverable === 'busy' }];
    const created = /^CREATE OR ALTER TRIGGER \[([^\]]+)\]\.\[([^\]]+)\] ON \[[^\]]+\]\.\[([^\]]+)\]/.exec(sql);
    if (created) this.triggers.set(created[2]!, [created[1]!, created[3]!, sql]);
    const dropped = /^DROP TRIGGER IF EXISTS \[[^\]]+\]\.\[([^\]]+)\]$/.exec(sql);
    if (dropped) this.triggers.delete(dropped[1]!);
    return answer;
  }
}

/** Throws unless `sql` parses as T-SQL; the parser lacks a trigger's NOT FOR REPLICATION clause, so it is read without it. */
function parsesAsTsql(sql: string): void {
  validateSql(sql.replace(/ NOT FOR REPLICATION AS\n/, ' AS\n'), 'mssql');
}

function checkStatement(s: Recorded): void {
  expect(() => parsesAsTsql(s.sql), s.sql).to.not.throw();
  const numbers = [...s.sql.matchAll(/@p(\d+)\b/g)].map((m) => Number(m[1]));
  expect(Math.max(-1, ...numbers) + 1, s.sql).to.equal(s.params.length);
  for (const v of ['https://', 'hook.example', 'secret-row', EVENT_ID]) expect(s.sql, s.sql).to.not.include(v);
}

describe('db/mssql: sqlb_ event triggers (the recording stand-in in SQL Server\'s place)', function () {
  this.timeout(30000);
  let engine: TestEngine;
  let driver: EventLogDriver;
  const expected: Record<string, Recorded[]> = existsSync(SNAPSHOT) && !UPDATE ? (JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Recorded[]>) : {};
  const recorded: Record<string, Recorded[]> = {};

  const meta = async (body: unknown, headers: Record<string, string> = ADMIN): Promise<{ status: number; body: Body }> => engine.inject<Body>({ url: '/v1/metadata', headers, body });
  const ok = async (body: unknown): Promise<void> => {
    const res = await meta(body);
    expect(res.body, JSON.stringify(body) + JSON.stringify(res.body)).to.deep.include({ message: 'success' });
  };
  /** The statements `fn` sends, checked and compared with the snapshot under `name`. */
  async function statementsOf(name: string, fn: () => Promise<void>): Promise<Recorded[]> {
    const from = driver.statements.length;
    await fn();
    const sent = driver.statements.slice(from);
    recorded[name] = sent;
    for (const s of sent) checkStatement(s);
    if (!UPDATE) expect(sent).to.deep.equal(expected[name], `the snapshot of "${name}" (SVC_UPDATE_SNAPSHOTS=1 to rewrite it)`);
    return sent;
  }

  const create = (args: Record<string, unknown>) => ({
    type: 'sqlb_create_event_trigger',
    args: { source: 'conf', table: table('article'), webhook: 'https://hook.example/article', ...args },
  });

  before(async () => {
    await initSqlParser();
    driver = new EventLogDriver();
    engine = await bootTestEngine({
      plugins: [createMssqlPlugin(() => driver), adminSecret, management, sources, tables, permissions, eventTriggers, apiMetadata, apiGraphql],
      config: { adminSecret: SECRET },
    });
    await ok({ type: 'sqlb_add_source', args: { name: 'conf', configuration: CONFIG } });
    for (const t of ['article', 'author', 'place']) await ok({ type: 'sqlb_track_table', args: { source: 'conf', table: table(t), configuration: { custom_name: t } } });
  });
  after(async () => {
    if (UPDATE) writeFileSync(SNAPSHOT, JSON.stringify(recorded, null, 2) + '\n');
    await engine?.dispose();
  });

  it('creates the event log and one capture trigger per operation, in one locked transaction', async () => {
    const transactions = driver.transactions;
    const sent = await statementsOf('create', () =>
      ok(create({ name: 'article_changes', insert: { columns: '*' }, update: { columns: ['title', 'id'], payload: ['id', 'title'] }, delete: { columns: '*' }, enable_manual: true })),
    );
    expect(driver.transactions - transactions).to.equal(2);
    expect(sent.filter((s) => s.sql.startsWith('EXEC sp_getapplock'))).to.have.length(2);
    expect(sent.map((s) => /^CREATE OR ALTER TRIGGER (\S+)/.exec(s.sql)?.[1]).filter(Boolean)).to.deep.equal([
      '[dbo].[notify_svc_article_changes_INSERT]',
      '[dbo].[notify_svc_article_changes_UPDATE]',
      '[dbo].[notify_svc_article_changes_DELETE]',
    ]);
    const update = sent.find((s) => s.sql.includes('_UPDATE] ON'))!.sql;
    // Paired by primary key, fired only when title or id changed (NULL-safe), old null for a moved key.
    expect(update).to.include('FROM DELETED AS [D] JOIN INSERTED AS [I] ON [I].[id] = [D].[id]');
    expect(update).to.include('WHERE NOT EXISTS (SELECT [D].[title], [D].[id] INTERSECT SELECT [I].[title], [I].[id])');
    expect(update).to.include('FROM INSERTED AS [I] WHERE NOT EXISTS (SELECT 1 FROM DELETED AS [D] WHERE [I].[id] = [D].[id])');
    expect(update).to.not.include('[payload.data.new.views]');
    expect(update).to.include("JSON_QUERY(CAST(SESSION_CONTEXT(N'svc.user') AS NVARCHAR(4000))) AS [payload.session_variables]");
    // trigger_on_replication defaults to true for sqlb_, as in the reference: replicated changes fire too.
    expect(update).to.not.include('NOT FOR REPLICATION');
  });

  it('refuses what the reference refuses, sending nothing', async () => {
    const before = driver.statements.length;
    const again = await meta(create({ name: 'article_changes', insert: { columns: '*' } }));
    expect(again.status).to.equal(400);
    expect(again.body).to.include({ code: 'already-exists', error: 'Event trigger with name "article_changes" already exists' });
    const geo = await meta({ type: 'sqlb_create_event_trigger', args: { source: 'conf', table: table('place'), name: 'places', webhook: 'https://hook.example/p', insert: { columns: '*' } } });
    expect(geo.status).to.equal(400);
    expect(geo.body).to.include({ code: 'not-supported', error: 'Event triggers for MS-SQL sources are not supported on tables having Geometry or Geography column types' });
    const column = await meta(create({ name: 'bad_column', update: { columns: ['nope'] } }));
    expect(column.status).to.equal(400);
    expect(column.body).to.include({ code: 'not-exists', error: 'column "nope" does not exist' });
    const moved = await meta(create({ name: 'article_changes', table: table('author'), replace: true, insert: { columns: '*' } }));
    expect(moved.body).to.include({ code: 'not-supported', error: 'cannot replace table or schema for trigger' });
    const gone = await meta({ type: 'sqlb_delete_event_trigger', args: { source: 'conf', name: 'nope' } });
    expect(gone.body).to.include({ code: 'not-exists', error: 'event trigger "nope" does not exist' });
    expect(driver.statements.slice(before).filter((s) => !s.sql.includes('AS [root]'))).to.deep.equal([]);
    const exported = (await meta({ type: 'export_metadata', args: {} })).body as { sources: Array<{ tables: Array<{ event_triggers?: unknown[] }> }> };
    expect(exported.sources[0]!.tables.flatMap((t) => t.event_triggers ?? [])).to.have.length(1);
  });

  it('refuses an UPDATE capture on a table without a primary key (checked before anything is sent)', () => {
    const spec: CaptureSpec = {
      name: 'keyless',
      table: table('log'),
      operations: { UPDATE: { columns: '*', payload: '*' } },
      triggerOnReplication: true,
      tableColumns: [{ name: 'line', type: 'nvarchar' }],
      stringifyNumeric: false,
    };
    expect(() => checkCapturable(spec, null)).to.throw('Update event triggers for MS-SQL sources are only supported on tables with primary keys');
    expect(() => checkCapturable({ ...spec, operations: { INSERT: { columns: '*', payload: '*' } } }, null)).to.not.throw();
    // Numbers as strings with --stringify-numeric-types; the replication clause when trigger_on_replication is false.
    const sql = createCaptureSql({ ...spec, operations: { INSERT: { columns: '*', payload: '*' } }, tableColumns: [{ name: 'n', type: 'bigint' }], stringifyNumeric: true, triggerOnReplication: false }, 'INSERT', null);
    expect(sql).to.include('CONVERT(NVARCHAR(100), [I].[n]) AS [payload.data.new.n]');
    expect(sql).to.include('AFTER INSERT NOT FOR REPLICATION AS');
    expect(() => parsesAsTsql(sql)).to.not.throw();
  });

  it('replaces a trigger: an unchanged capture is left alone, a dropped operation is dropped', async () => {
    const sent = await statementsOf('replace', () => ok(create({ name: 'article_changes', replace: true, insert: { columns: '*' }, enable_manual: true })));
    expect(sent.filter((s) => s.sql.startsWith('CREATE'))).to.deep.equal([]);
    expect(sent.filter((s) => s.sql.startsWith('DROP TRIGGER')).map((s) => s.sql)).to.deep.equal([
      'DROP TRIGGER IF EXISTS [dbo].[notify_svc_article_changes_UPDATE]',
      'DROP TRIGGER IF EXISTS [dbo].[notify_svc_article_changes_DELETE]',
    ]);
  });

  it('invokes a trigger by hand: a MANUAL event with the caller\'s session variables, its id answered', async () => {
    let res: { status: number; body: Body } | undefined;
    const sent = await statementsOf('invoke', async () => {
      res = await meta({ type: 'sqlb_invoke_event_trigger', args: { source: 'conf', name: 'article_changes', payload: { id: 1, title: 'secret-row' } } });
    });
    expect(res!.body).to.deep.equal({ event_id: EVENT_ID });
    const insert = sent.find((s) => s.sql === INSERT_MANUAL_SQL)!;
    expect(insert.params.slice(0, 3)).to.deep.equal(['dbo', 'article', 'article_changes']);
    expect(JSON.parse(insert.params[3] as string)).to.deep.equal({
      op: 'MANUAL',
      data: { old: null, new: { id: 1, title: 'secret-row' } },
      session_variables: { 'x-svc-role': 'admin' },
      trace_context: null,
    });
    const missing = await meta({ type: 'sqlb_invoke_event_trigger', args: { source: 'conf', name: 'nope', payload: {} } });
    expect(missing.body).to.include({ code: 'not-exists' });
  });

  it('redelivers an event: not found, busy, then reset for delivery', async () => {
    driver.redeliverable = 'none';
    const none = await meta({ type: 'sqlb_redeliver_event', args: { source: 'conf', event_id: 'not-a-guid' } });
    expect(none.body).to.include({ code: 'not-exists', error: 'event not found' });
    driver.redeliverable = 'busy';
    const busy = await meta({ type: 'sqlb_redeliver_event', args: { source: 'conf', event_id: EVENT_ID } });
    expect(busy.body).to.include({ code: 'busy', error: 'event is already being processed' });
    driver.redeliverable = 'free';
    await statementsOf('redeliver', () => ok({ type: 'sqlb_redeliver_event', args: { source: 'conf', event_id: EVENT_ID } }));
  });

  it('puts the session variables of a mutation in SESSION_CONTEXT for the captures, and clears them after', async () => {
    const sent = await statementsOf('mutation session', async () => {
      const res = await engine.inject<{ data?: unknown; errors?: unknown }>({
        url: '/v1/graphql',
        headers: { ...ADMIN, 'x-svc-user-id': '7' },
        body: { query: 'mutation { insert_author(objects: [{id: 9, name: "Ned"}]) { affected_rows } }' },
      });
      expect(res.body.errors, JSON.stringify(res.body.errors)).to.equal(undefined);
    });
    expect(sent[0]!.sql).to.equal("EXEC sp_set_session_context @key = N'svc.user', @value = @p0");
    expect(JSON.parse(sent[0]!.params[0] as string)).to.deep.equal({ 'x-svc-role': 'admin', 'x-svc-user-id': '7' });
    expect(sent.at(-1)).to.deep.equal({ sql: "EXEC sp_set_session_context @key = N'svc.user', @value = @p0", params: [null] });
  });

  it('round-trips through export and replace_metadata with the same captures', async () => {
    const exported = (await meta({ type: 'export_metadata', args: {} })).body;
    const sent = await statementsOf('replace_metadata', () => ok({ type: 'replace_metadata', args: exported }));
    expect(sent.filter((s) => /^(CREATE OR ALTER|DROP) TRIGGER/.test(s.sql))).to.deep.equal([]);
    expect((await meta({ type: 'export_metadata', args: {} })).body).to.deep.equal(exported);
  });

  it('claims, records, releases and cleans up with the statements pinned (the delivery side of the log)', async () => {
    const kind = engine.kernel.container.resolve<DatabaseKind>('db.mssql');
    const cache = engine.ref.current;
    const log = kind.eventTriggers!.eventLog(cache.sources.get('conf')!.connection);
    await statementsOf('delivery', async () => {
      expect(await log.claim(['article_changes', "o'brien"], 10, 1800)).to.deep.equal([]);
      await log.record([
        { eventId: EVENT_ID, triggerName: 'article_changes', status: 200, request: { payload: {} }, response: { type: 'webhook_response' }, next: { state: 'delivered' } },
        { eventId: EVENT_ID, triggerName: 'article_changes', status: 500, request: {}, response: {}, next: { state: 'retry', delaySeconds: 10 } },
      ]);
      await log.release([EVENT_ID]);
      expect(await log.cleanup({ triggerName: 'article_changes', olderThanHours: 24, batchSize: 100, timeoutSeconds: 60, cleanInvocationLogs: true })).to.deep.equal({
        deleted_event_logs: 0,
        deleted_event_invocation_logs: 0,
      });
      expect(await log.claimCleanupRun('article_changes', new Date('2026-01-01T00:00:00Z'))).to.equal(false);
      await log.finishCleanupRun('article_changes', new Date('2026-01-01T00:00:00Z'), { deleted_event_logs: 3, deleted_event_invocation_logs: 2 });
    });
    const claim = driver.statements.find((s) => s.sql.startsWith('UPDATE TOP (@p0) l'))!;
    expect(claim.sql).to.include('WITH (READPAST, UPDLOCK, ROWLOCK)');
    expect(claim.params).to.deep.equal([10, 1800, '["article_changes","o\'brien"]']);
  });

  it('deletes a trigger: its captures dropped and its pending events archived', async () => {
    const sent = await statementsOf('delete', () => ok({ type: 'sqlb_delete_event_trigger', args: { source: 'conf', name: 'article_changes' } }));
    expect(sent.map((s) => s.sql).filter((s) => s.startsWith('DROP') || s.startsWith('UPDATE'))).to.deep.equal([
      'DROP TRIGGER IF EXISTS [dbo].[notify_svc_article_changes_INSERT]',
      'UPDATE svc_catalog.event_log SET archived = 1 WHERE trigger_name = @p0 AND archived = 0',
    ]);
    expect(driver.triggers.size).to.equal(0);
  });
});
