/**
 * The mssql kind through the real mssql/tedious client over TCP, against a stand-in speaking TDS
 * 7.4 (tds-stand-in.ts: it answers statements with given result sets and never runs T-SQL). This
 * covers what the recording driver cannot: the connection string and pool settings reaching
 * tedious, the isolation level set on the connection and the transaction, statements sent as
 * sp_executesql with the parameter types tedious declares, answers read back from the wire,
 * transactions begun and committed or rolled back, a statement cancelled on the server (a TDS
 * attention) at its deadline, and a server error mapped to its code. Then the engine itself:
 * add_source and introspection over the wire, a GraphQL read and a mutation.
 */
import { expect } from 'chai';
import type { DatabaseKind, SourceConnection } from '../../../../core/sdk/index.js';
import { createTestKernel } from '../../../../core/sdk/index.js';
import mssql from '../../../../plugins/db/mssql/index.js';
import { INTROSPECTION_BATCH } from '../../../../plugins/db/mssql/introspect.js';
import type { MssqlStatement } from '../../../../plugins/db/mssql/sql/compile.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import relationships from '../../../../plugins/metadata/relationships/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import { bootTestEngine } from '../../../helpers/inject.js';
import { FIXTURE_RESULT_SETS } from './recording-driver.js';
import { TdsStandIn, type Answer, type ResultSet } from './tds-stand-in.js';

const statement = (text: string, order: MssqlStatement['order'] = []): MssqlStatement => ({ text, params: [], name: text, order });

describe('db/mssql through the real mssql/tedious client, against a TDS stand-in', function () {
  this.timeout(30000);
  let server: TdsStandIn;
  let answer: Answer;
  let connection: SourceConnection;

  const connectionString = (): string => `Server=127.0.0.1,${server.port};Database=conf;Uid=sa;Pwd=secret;Encrypt=false`;

  before(async () => {
    server = new TdsStandIn((s) => answer(s));
    await server.start();
  });
  after(async () => {
    await server.stop();
  });
  afterEach(async () => {
    await connection?.close();
  });

  async function connect(extra: Record<string, unknown> = {}): Promise<SourceConnection> {
    const kernel = await createTestKernel({ plugins: [mssql] });
    const kind = kernel.container.resolve<DatabaseKind>('db.mssql');
    connection = kind.connect('conf', { connection_info: { connection_string: connectionString(), ...extra } });
    return connection;
  }

  it('logs in, sets the isolation level on the connection, and runs a statement with typed parameters', async () => {
    answer = () => [[{ root: '[{"id":1,"title":"Alpha"}]' }]];
    const conn = await connect({ isolation_level: 'snapshot', pool_settings: { max_connections: 2, idle_timeout: 30 } });
    const order: MssqlStatement['order'] = [
      { kind: 'param', index: 0, use: 'value' },
      { kind: 'param', index: 1, use: 'value', boolean: true },
      { kind: 'param', index: 2, use: 'json' },
      { kind: 'session' },
    ];
    const text = 'SELECT ISNULL((SELECT 1 AS [x] WHERE @p0 = 1 AND @p1 = 1 AND @p2 IS NOT NULL AND @p3 IS NOT NULL FOR JSON PATH), N\'[]\') AS [root]';
    const out = await conn.runQuery(statement(text, order), '{"x-svc-role":"user"}', [7, 'true', [1, 2]]);
    expect(out).to.equal('[{"id":1,"title":"Alpha"}]');
    const sent = server.received.find((s) => s.sql === text)!;
    expect(sent.kind).to.equal('rpc');
    expect(sent.declaration).to.equal('@p0 int, @p1 bit, @p2 nvarchar(5), @p3 nvarchar(21)');
    expect(server.control.some((c) => /set transaction isolation level snapshot/i.test(c))).to.equal(true);
    // on_conflict carries on after a duplicate-key error inside the transaction: XACT_ABORT must be off.
    expect(server.control.some((c) => /set xact_abort off/i.test(c))).to.equal(true);
  });

  it('introspects in one round trip', async () => {
    answer = (s) => (s.sql === INTROSPECTION_BATCH ? FIXTURE_RESULT_SETS.map((rows) => rows as ResultSet) : [[{}]]);
    const conn = await connect();
    const before = server.received.length;
    const catalog = await conn.introspect();
    const sent = server.received.slice(before);
    expect(sent.map((s) => s.sql)).to.deep.equal([INTROSPECTION_BATCH]);
    const article = catalog.tables.find((t) => t.name === 'article')!;
    expect(article.primaryKey).to.deep.equal({ name: 'PK__article__3213E83F1A2B3C4D', columns: ['id'] });
    expect(article.columns.map((c) => [c.name, c.type, c.nullable])).to.deep.equal([
      ['id', 'int', false], ['title', 'nvarchar', false], ['author_id', 'int', true], ['published', 'bit', false], ['views', 'int', true],
    ]);
    expect(catalog.serverVersionNum).to.equal(16004135);
  });

  it('cancels a statement on the server at its deadline (a TDS attention) and the connection serves the next one', async () => {
    answer = (s) => (s.sql.includes('slow') ? 'hang' : [[{ root: '[]' }]]);
    const conn = await connect();
    const attentions = server.attentions;
    const started = Date.now();
    const err = await conn.runQuery(statement("SELECT N'slow' AS [root]"), '{}', [], { deadline: Date.now() + 300 }).then(() => null, (e: unknown) => e as { code?: string });
    expect(err?.code).to.equal('time-limit-exceeded');
    expect(Date.now() - started).to.be.below(3000);
    expect(server.attentions).to.equal(attentions + 1);
    expect(await conn.runQuery(statement("SELECT N'fast' AS [root]"), '{}', [])).to.equal('[]');
  });

  it('explains: SHOWPLAN_TEXT around the statement on one connection, in a transaction rolled back', async () => {
    answer = (s) => (s.sql.includes('FOR JSON') ? [[{ StmtText: '  |--Clustered Index Scan(OBJECT:([conf].[dbo].[article].[PK]))' }]] : [[{}]]);
    const conn = await connect({ isolation_level: 'serializable' });
    const controls = server.control.length;
    const text = "SELECT ISNULL((SELECT [_0].[id] AS [id] FROM [dbo].[article] AS [_0] WHERE ([_0].[title] = @p0) FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]') AS [root]";
    const out = await conn.explainQuery!(statement(text, [{ kind: 'param', index: 0, use: 'value' }]), '{}', ["it's"]);
    expect(out).to.deep.equal({
      sql: "SELECT ISNULL((SELECT [_0].[id] AS [id] FROM [dbo].[article] AS [_0] WHERE ([_0].[title] = N'it''s') FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]') AS [root]",
      plan: ['  |--Clustered Index Scan(OBJECT:([conf].[dbo].[article].[PK]))'],
    });
    const flow = server.control.slice(controls).map((c, i) => ({ c: c.trim().toLowerCase(), on: server.controlConnections[controls + i] }));
    const steps = flow.filter((f) => f.c.startsWith('tm') || f.c.startsWith('set showplan'));
    expect(steps.map((f) => f.c)).to.deep.equal(['tm begin', 'set showplan_text on', 'set showplan_text off', 'tm rollback']);
    const explained = server.received.find((r) => r.sql === text)!;
    expect(new Set([...steps.map((f) => f.on), explained.connection]).size, 'one connection').to.equal(1);
    expect(flow.some((f) => f.c.includes('isolation level serializable'))).to.equal(true);
  });

  it('maps a server error to its code', async () => {
    answer = () => Object.assign(new Error("Conversion failed when converting the nvarchar value 'x' to data type int."), { number: 245 });
    const conn = await connect();
    const err = await conn.runQuery(statement('SELECT 1 AS [root]'), '{}', []).then(() => null, (e: unknown) => e as { code?: string });
    expect(err?.code).to.equal('data-exception');
  });

  it('serves the engine: add_source, a GraphQL read and a mutation in a transaction, over the wire', async () => {
    const roots: string[] = [];
    answer = (s) => {
      if (s.sql === INTROSPECTION_BATCH) return FIXTURE_RESULT_SETS.map((rows) => rows as ResultSet);
      if (s.sql.startsWith('DECLARE @svc_out')) return [[{ id: 5 }]];
      if (s.sql.endsWith('AS [root]')) return [[{ root: roots.shift() ?? '[]' }]];
      return [[{}]];
    };
    const engine = await bootTestEngine({
      plugins: [mssql, adminSecret, management, sources, tables, relationships, apiMetadata, apiGraphql],
      config: { adminSecret: 'tds' },
    });
    try {
      const meta = async (body: unknown): Promise<void> => {
        const res = await engine.inject<Record<string, unknown>>({ url: '/v1/metadata', headers: { 'x-svc-admin-secret': 'tds' }, body });
        expect(res.body, JSON.stringify(res.body)).to.deep.include({ message: 'success' });
      };
      const gql = async (query: string): Promise<unknown> => (await engine.inject({ url: '/v1/graphql', headers: { 'x-svc-admin-secret': 'tds' }, body: { query } })).body;
      await meta({ type: 'sqlb_add_source', args: { name: 'conf', configuration: { connection_info: { connection_string: connectionString(), pool_settings: { max_connections: 2 } } } } });
      await meta({ type: 'sqlb_track_table', args: { source: 'conf', table: { schema: 'dbo', name: 'article' }, configuration: { custom_name: 'article' } } });
      roots.push('[{"id":1,"title":"Alpha"}]');
      const before = server.received.length;
      expect(await gql('{ article(where: {id: {_eq: 1}}) { id title } }')).to.deep.equal({ data: { article: [{ id: 1, title: 'Alpha' }] } });
      const read = server.received.slice(before).find((s) => s.sql.endsWith('AS [root]'))!;
      expect(read.sql).to.equal("SELECT ISNULL((SELECT [_0].[id] AS [id], [_0].[title] AS [title] FROM [dbo].[article] AS [_0] WHERE ([_0].[id] = @p0) FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]') AS [root]");
      expect(read.declaration).to.equal('@p0 int');

      roots.push('[{"id":5,"title":"Zeta"}]');
      const controls = server.control.length;
      const written = server.received.length;
      expect(await gql('mutation { insert_article_one(object: {title: "Zeta", published: true}) { id title } }')).to.deep.equal({ data: { insert_article_one: { id: 5, title: 'Zeta' } } });
      expect(server.control.slice(controls).filter((c) => c.startsWith('TM'))).to.deep.equal(['TM begin', 'TM commit']);
      const sent = server.received.slice(written);
      // The session variables go to SESSION_CONTEXT for capture triggers first, and are cleared last.
      expect(sent[0]!.sql).to.equal("EXEC sp_set_session_context @key = N'svc.user', @value = @p0");
      expect(sent[0]!.declaration).to.match(/^@p0 nvarchar\(\d+\)$/);
      expect(sent.at(-1)!.sql).to.equal(sent[0]!.sql);
      const program = sent.filter((s) => !s.sql.startsWith('EXEC sp_set_session_context'));
      // The stand-in sends every value as text: the written key comes back as "5".
      expect(program.map((s) => s.declaration)).to.deep.equal(['@p0 nvarchar(4), @p1 bit', '@p0 nvarchar(7)']);
      expect(program[0]!.sql).to.match(/^DECLARE @svc_out TABLE \(\[id\] int\); INSERT INTO \[dbo\]\.\[article\]/);

      // An update finds, writes and tells its rows' keys in one statement.
      roots.push('[{"id":5,"title":"Zed"}]');
      const updating = server.received.length;
      expect(await gql('mutation { update_article_by_pk(pk_columns: {id: 5}, _set: {title: "Zed"}) { id title } }')).to.deep.equal({ data: { update_article_by_pk: { id: 5, title: 'Zed' } } });
      const update = server.received.slice(updating).filter((s) => !s.sql.startsWith('EXEC sp_set_session_context'));
      expect(update.map((s) => s.sql.slice(0, 40))).to.deep.equal(['DECLARE @svc_out TABLE ([id] int); UPDAT', 'SELECT ISNULL((SELECT [_1].[id] AS [id],']);
      expect(update[0]!.declaration).to.equal('@p0 nvarchar(3), @p1 int');

      // A failing statement rolls the transaction back.
      answer = (s) => (s.sql.startsWith('DECLARE @svc_out') ? Object.assign(new Error('Cannot insert the value NULL into column'), { number: 515 }) : [[{}]]);
      const failed = (await gql('mutation { insert_article_one(object: {title: "Nope", published: true}) { id } }')) as { errors?: Array<{ extensions?: { code?: string } }> };
      expect(failed.errors?.[0]?.extensions?.code).to.equal('constraint-violation');
      expect(server.control.at(-1)).to.equal('TM rollback');
    } finally {
      await engine.dispose();
    }
  });
});
