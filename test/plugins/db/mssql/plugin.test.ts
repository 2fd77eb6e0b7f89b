/**
 * The mssql kind is built on the SDK alone, costs nothing until used, checks its configuration
 * as the reference does, and drives the real mssql/tedious client up to the connection
 * boundary: no SQL Server runs here, so the client is pointed at a closed port, at a TCP server
 * that never answers, and at one that hangs up, and the kind's answers to each are checked.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseKind } from '../../../../core/sdk/index.js';
import { createTestKernel, TIME_LIMIT_EXCEEDED_MESSAGE } from '../../../../core/sdk/index.js';
import { parseMssqlConfiguration, poolSize, resolveMssqlConfiguration } from '../../../../plugins/db/mssql/config.js';
import { duplicateKeyName, mssqlEngineError } from '../../../../plugins/db/mssql/errors.js';
import { quoteIdent } from '../../../../plugins/db/mssql/sql/quote.js';
import { likePattern } from '../../../../plugins/db/mssql/sql/template.js';
import { inlineValues } from '../../../../plugins/db/mssql/sql/inline.js';
import { catalogFromResultSets, declaredType, INTROSPECTION_BATCH } from '../../../../plugins/db/mssql/introspect.js';
import { init as initSqlParser, validate as validateSql } from '@guanmingchiu/sqlparser-ts';
import { insertSql } from '../../../../plugins/db/mssql/sql/mutation-run.js';
import { compileRootField, type MssqlStatement } from '../../../../plugins/db/mssql/sql/compile.js';
import type { RootFieldIR } from '../../../../core/sdk/index.js';
import mssql from '../../../../plugins/db/mssql/index.js';
import { spatialOperatorSql, spatialTypeOperators } from '../../../../plugins/db/mssql/spatial.js';
import { FIXTURE_RESULT_SETS } from './recording-driver.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const PLUGIN = join(ROOT, 'plugins', 'db', 'mssql');
const SDK = join(ROOT, 'core', 'sdk', 'index');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const parseError = (configuration: unknown): { code: string; path: string } | null => {
  try {
    parseMssqlConfiguration(configuration, '$.args.configuration');
    return null;
  } catch (e) {
    const err = e as { code: string; path: string };
    return { code: err.code, path: err.path };
  }
};

async function kind(): Promise<DatabaseKind> {
  const kernel = await createTestKernel({ plugins: [mssql] });
  return kernel.container.resolve<DatabaseKind>('db.mssql');
}

function listen(onSocket: (s: Socket) => void): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    onSocket(s);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, port: (server.address() as { port: number }).port, sockets })));
}

describe('db/mssql plugin', function () {
  this.timeout(20000);

  it('imports nothing but the SDK, node built-ins, its own files and mssql (types only, or lazily)', () => {
    const offences: string[] = [];
    for (const file of files(PLUGIN)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*(import|export)\b([^;]*?)\bfrom\s*['"]([^'"]+)['"]/gm)) {
        const spec = m[3]!;
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec).replace(/\.(ts|js)$/, '');
          if (target !== SDK && !target.startsWith(PLUGIN + '/')) offences.push(`${relative(ROOT, file)}: ${spec}`);
        } else if (spec === 'mssql') {
          // A static import of the driver would load it with the plugin.
          if (!/^\s*import type\b/.test(m[0])) offences.push(`${relative(ROOT, file)}: a value import of mssql`);
        } else if (!(spec.startsWith('node:') || builtinModules.includes(spec))) offences.push(`${relative(ROOT, file)}: ${spec}`);
      }
      for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) if (m[1] !== 'mssql') offences.push(`${relative(ROOT, file)}: import(${m[1]})`);
    }
    expect(offences).to.deep.equal([]);
  });

  it('loads neither mssql nor tedious until a source connects', () => {
    const script = `
      import { createRequire } from 'node:module';
      import { createTestKernel } from './core/sdk/index.ts';
      import plugin from './plugins/db/mssql/index.ts';
      const kernel = await createTestKernel({ plugins: [plugin] });
      const kind = kernel.container.resolve('db.mssql');
      const conn = kind.connect('x', { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=x' } });
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules\\/(mssql|tedious)\\//.test(f)).length;
      const before = loaded();
      await conn.health(3000);
      console.log(JSON.stringify({ before, after: loaded() }));
      await conn.close();`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--conditions=svc-source', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { before, after } = JSON.parse(out.trim().split('\n').pop()!) as { before: number; after: number };
    expect(before).to.equal(0);
    expect(after).to.be.above(0);
  });

  it('registers the sqlb kind with mutations, remote relationships and event triggers, without connecting', async () => {
    const k = await kind();
    expect(k.kind).to.equal('mssql');
    expect(k.prefix).to.equal('sqlb');
    expect(k.capabilities).to.deep.equal({ mutations: true, remoteRelationships: true, eventTriggers: true });
    expect(k.eventTriggers?.defaultTriggerOnReplication).to.equal(true);
  });

  it('reads the reference configuration and refuses anything else at its path', () => {
    const ok = { connection_info: { connection_string: 'Server=h;Database=d', pool_settings: { max_connections: 5, total_max_connections: 8, idle_timeout: 30 }, isolation_level: 'snapshot' } };
    expect(parseMssqlConfiguration(ok, '$')).to.deep.equal(ok);
    expect(parseMssqlConfiguration({ connection_info: { connection_string: { from_env: 'MSSQL_URL' } } }, '$')).to.deep.equal({ connection_info: { connection_string: { from_env: 'MSSQL_URL' } } });
    const p = '$.args.configuration';
    expect(parseError({ connection_info: { connection_string: 'x', database_url: 'y' } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.database_url` });
    expect(parseError({ connection_info: { connection_string: 'x' }, read_replicas: [] })).to.deep.equal({ code: 'parse-failed', path: `${p}.read_replicas` });
    expect(parseError({ connection_info: {} })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info` });
    expect(parseError({ connection_info: { connection_string: 5 } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.connection_string` });
    expect(parseError({ connection_info: { connection_string: { from_env: '' } } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.connection_string.from_env` });
    expect(parseError({ connection_info: { connection_string: 'x', pool_settings: { retries: 1 } } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.pool_settings.retries` });
    expect(parseError({ connection_info: { connection_string: 'x', pool_settings: { max_connections: 0 } } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.pool_settings.max_connections` });
    expect(parseError({ connection_info: { connection_string: 'x', isolation_level: 'read-committed-snapshot' } })).to.deep.equal({ code: 'parse-failed', path: `${p}.connection_info.isolation_level` });
    expect(parseError(5)).to.deep.equal({ code: 'parse-failed', path: p });
  });

  it('sizes the pool from max_connections and shares total_max_connections among worker processes', () => {
    expect(poolSize(undefined, 1)).to.equal(50);
    expect(poolSize({ max_connections: 7 }, 4)).to.equal(7);
    expect(poolSize({ total_max_connections: 10 }, 4)).to.equal(2);
    expect(poolSize({ max_connections: 3, total_max_connections: 100 }, 2)).to.equal(3);
    expect(poolSize({ total_max_connections: 1 }, 4)).to.equal(1);
    const r = resolveMssqlConfiguration({ connection_info: { connection_string: { from_env: 'MSSQL_URL' }, pool_settings: { idle_timeout: 9 } } }, { MSSQL_URL: 'Server=h' }, 1);
    expect(r).to.deep.equal({ connectionString: 'Server=h', maxConnections: 50, idleTimeoutMs: 9000, isolationLevel: 'read-committed' });
    expect(() => resolveMssqlConfiguration({ connection_info: { connection_string: { from_env: 'NOPE' } } }, {}, 1)).to.throw().with.property('code', 'invalid-configuration');
  });

  it('answers health ERROR and connection-not-established when nothing listens (the real client, a closed port)', async () => {
    const conn = (await kind()).connect('x', { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=x;Uid=sa;Pwd=x;Encrypt=false' } });
    try {
      const health = await conn.health(5000);
      expect(health.status).to.equal('ERROR');
      expect(String(health.error)).to.match(/ECONNREFUSED|Failed to connect/);
      const err = await conn.introspect().then(() => null, (e: unknown) => e as { code?: string });
      expect(err?.code).to.equal('connection-not-established');
    } finally {
      await conn.close();
    }
  });

  it('times out health and a read against a server that never answers the TDS prelogin, and fails one that hangs up', async () => {
    const silent = await listen(() => undefined);
    const rude = await listen((s) => s.destroy());
    try {
      const k = await kind();
      const quiet = k.connect('x', { connection_info: { connection_string: `Server=127.0.0.1,${silent.port};Database=x;Uid=sa;Pwd=x;Encrypt=false` } });
      const started = Date.now();
      const h = await quiet.health(500);
      expect(h.status).to.equal('TIMEOUT');
      expect(Date.now() - started).to.be.below(3000);
      // A read past its deadline fails with time-limit-exceeded, even while the pool is still connecting.
      const read = Date.now();
      const sleepy: MssqlStatement = { text: "SELECT N'[]' AS [root]", params: [], name: 'x', order: [] };
      const late = await quiet.runQuery(sleepy, '{}', [], { deadline: Date.now() + 300 }).then(() => null, (e: unknown) => e as { code?: string });
      expect(late?.code).to.equal('time-limit-exceeded');
      expect(Date.now() - read).to.be.below(2000);
      await quiet.close();
      const hangsUp = k.connect('y', { connection_info: { connection_string: `Server=127.0.0.1,${rude.port};Database=x;Uid=sa;Pwd=x;Encrypt=false` } });
      expect((await hangsUp.health(5000)).status).to.equal('ERROR');
      await hangsUp.close();
    } finally {
      for (const l of [silent, rude]) {
        for (const s of l.sockets) s.destroy();
        l.server.close();
      }
    }
  });

  it('refuses a connection string the driver cannot read, and a missing variable, when the pool opens', async () => {
    const k = await kind();
    const bad = k.connect('x', { connection_info: { connection_string: 'Server=np:\\\\.\\pipe\\sql;Database=x' } });
    expect(await bad.introspect().then(() => null, (e: unknown) => (e as { code?: string }).code)).to.equal('invalid-configuration');
    const missing = k.connect('y', { connection_info: { connection_string: { from_env: 'SVC_TEST_MSSQL_SURELY_UNSET' } } });
    expect(await missing.introspect().then(() => null, (e: unknown) => (e as { code?: string }).code)).to.equal('invalid-configuration');
  });

  it('introspects with five statements that parse as T-SQL (sqlparser-rs MsSql dialect)', async () => {
    await initSqlParser();
    const statements = INTROSPECTION_BATCH.split(';\n');
    expect(statements).to.have.length(5);
    for (const sql of statements) expect(() => validateSql(sql, 'mssql'), sql).to.not.throw();
  });

  it('reads the catalog from sys.* result sets', () => {
    const c = catalogFromResultSets(FIXTURE_RESULT_SETS);
    const article = c.tables.find((t) => t.name === 'article')!;
    expect(article.primaryKey).to.deep.equal({ name: 'PK__article__3213E83F1A2B3C4D', columns: ['id'] });
    expect(article.uniqueConstraints).to.deep.equal([{ name: 'article_title_key', columns: ['title'] }]);
    expect(article.foreignKeys).to.deep.equal([{ name: 'FK__article__author___2C3393D0', columns: ['author_id'], refTable: { schema: 'dbo', name: 'author' }, refColumns: ['id'] }]);
    expect(article.columns[0]).to.include({ name: 'id', type: 'int', isIdentity: true, identityGeneration: 'always', hasDefault: true, nullable: false });
    const author = c.tables.find((t) => t.name === 'author')!;
    expect(author.description).to.equal('People who write');
    expect(author.columns[1]).to.include({ name: 'name', type: 'nvarchar', description: 'Shown on articles' });
    expect(c.serverVersionNum).to.equal(16004135);
  });

  it('maps SQL Server errors to the reference codes', () => {
    const dup = { code: 'EREQUEST', number: 2627, message: "Violation of UNIQUE KEY constraint 'article_title_key'. Cannot insert duplicate key in object 'dbo.article'." };
    expect(mssqlEngineError(dup, 's').code).to.equal('constraint-violation');
    expect(duplicateKeyName(dup)).to.equal('article_title_key');
    expect(duplicateKeyName({ number: 2601, message: "Cannot insert duplicate key row in object 'dbo.t' with unique index 'ix_t'. The duplicate key value is (1)." })).to.equal('ix_t');
    expect(mssqlEngineError({ number: 515, message: 'Cannot insert the value NULL' }, 's').code).to.equal('constraint-violation');
    expect(mssqlEngineError({ number: 547, message: 'The INSERT statement conflicted with the CHECK constraint "c".' }, 's').code).to.equal('permission-error');
    expect(mssqlEngineError({ number: 245, message: 'Conversion failed' }, 's').code).to.equal('data-exception');
    expect(mssqlEngineError({ number: 1205, message: 'deadlock victim' }, 's').code).to.equal('concurrent-update');
    expect(mssqlEngineError({ code: 'ECANCEL', message: 'Canceled.' }, 's')).to.include({ code: 'time-limit-exceeded', message: TIME_LIMIT_EXCEEDED_MESSAGE });
    expect(mssqlEngineError({ code: 'ESOCKET', message: 'x' }, 's').code).to.equal('connection-not-established');
    const other = mssqlEngineError({ number: 207, message: "Invalid column name 'x'." }, 'SELECT x');
    expect(other.code).to.equal('unexpected');
    expect(other.message).to.not.include('Invalid column');
  });

  it('quotes identifiers in brackets, keeps LIKE patterns PostgreSQL-like, and inlines values only for explain', () => {
    expect(quoteIdent('a]b')).to.equal('[a]]b]');
    expect(quoteIdent("x'; DROP TABLE t; --")).to.equal("[x'; DROP TABLE t; --]");
    expect(() => quoteIdent('a\u0001b')).to.throw();
    expect(likePattern('50%[off]')).to.equal('50%\\[off]');
    expect(likePattern('%\\%')).to.equal('%\\%');
    expect(likePattern('a\\')).to.equal('a\\\\');
    expect(inlineValues('SELECT @p0, @p1, @p10, @p3', ["it's", null, 'ten', true, 0, 0, 0, 0, 0, 0, 10])).to.equal("SELECT N'it''s', NULL, 10, 1");
  });

  it('gives numbers as text with every digit when stringifyNumericTypes is on, and sums integers as BIGINT', () => {
    const from = { schema: 'dbo', name: 'm' };
    const ir: RootFieldIR = {
      kind: 'aggregate',
      source: 's',
      aggregate: {
        from, where: null, permissionFilter: null, orderBy: [], distinctOn: [], limit: null, offset: null, permissionLimit: null,
        fields: [
          { kind: 'aggregate', alias: 'aggregate', ops: [
            { kind: 'fn', alias: 'sum', fn: 'sum', fields: [{ kind: 'column', alias: 'n', name: 'n', type: 'int' }, { kind: 'column', alias: 'f', name: 'f', type: 'float' }] },
            { kind: 'fn', alias: 'avg', fn: 'avg', fields: [{ kind: 'column', alias: 'n', name: 'n', type: 'int' }] },
          ] },
          { kind: 'nodes', alias: 'nodes', fields: [
            { kind: 'column', alias: 'f', name: 'f', type: 'float' }, { kind: 'column', alias: 'm', name: 'm', type: 'money' }, { kind: 'column', alias: 'b', name: 'b', type: 'bigint' }, { kind: 'column', alias: 'n', name: 'n', type: 'int' },
          ] },
        ],
      },
    };
    const text = compileRootField(ir, { stringifyNumericTypes: true }).text;
    expect(text).to.include('CAST(SUM(CAST([_0].[n] AS BIGINT)) AS NVARCHAR(64)) AS [sum.n]');
    expect(text).to.include('CONVERT(NVARCHAR(64), SUM([_0].[f]), 3) AS [sum.f]');
    expect(text).to.include('CONVERT(NVARCHAR(64), AVG(CAST([_0].[n] AS FLOAT)), 3) AS [avg.n]');
    expect(text).to.include('CONVERT(NVARCHAR(64), [_1].[f], 3) AS [f], CONVERT(NVARCHAR(64), [_1].[m], 2) AS [m], CAST([_1].[b] AS NVARCHAR(64)) AS [b], [_1].[n] AS [n]');
    const plain = compileRootField(ir, { stringifyNumericTypes: false }).text;
    expect(plain).to.include('SUM(CAST([_0].[n] AS BIGINT)) AS [sum.n], SUM([_0].[f]) AS [sum.f]');
    expect(plain).to.not.include('NVARCHAR(64)');
  });

  it('declares column types for the table variable an INSERT outputs into (SQL Server refuses a bare OUTPUT on tables with triggers)', () => {
    const col = (type: string, max_length: number, precision = 0, scale = 0) => declaredType({ type, max_length, precision, scale });
    expect([col('nvarchar', 100), col('nvarchar', -1), col('varchar', 30), col('decimal', 9, 10, 2), col('datetime2', 8, 27, 7), col('timestamp', 8), col('int', 4)]).to.deep.equal([
      'nvarchar(50)', 'nvarchar(max)', 'varchar(30)', 'decimal(10, 2)', 'datetime2(7)', 'binary(8)', 'int',
    ]);
    const types = new Map([['id', 'int'], ['code', 'nvarchar(10)']]);
    expect(insertSql({ schema: 'dbo', name: 't' }, ['code'], ['id', 'code'], types)).to.equal(
      'DECLARE @svc_out TABLE ([id] int, [code] nvarchar(10)); INSERT INTO [dbo].[t] ([code]) OUTPUT INSERTED.[id], INSERTED.[code] INTO @svc_out VALUES (@p0); SELECT [id], [code] FROM @svc_out',
    );
    expect(insertSql({ schema: 'dbo', name: 't' }, [], ['id'], types)).to.equal('DECLARE @svc_out TABLE ([id] int); INSERT INTO [dbo].[t] OUTPUT INSERTED.[id] INTO @svc_out DEFAULT VALUES; SELECT [id] FROM @svc_out');
    expect(insertSql({ schema: 'dbo', name: 't' }, ['code'], [], types)).to.equal('INSERT INTO [dbo].[t] ([code]) VALUES (@p0)');
  });

  it('reads CLR-typed columns (spatial, hierarchyid) and xml as text, which FOR JSON can serialize', () => {
    const ir: RootFieldIR = {
      kind: 'select',
      source: 's',
      single: false,
      select: {
        from: { schema: 'dbo', name: 'place' }, where: null, permissionFilter: null, orderBy: [], distinctOn: [], limit: null, offset: null, permissionLimit: null,
        fields: [
          { kind: 'column', alias: 'g', name: 'g', type: 'geography' },
          { kind: 'column', alias: 'h', name: 'h', type: 'hierarchyid' },
          { kind: 'column', alias: 'x', name: 'x', type: 'xml' },
        ],
      },
    };
    expect(compileRootField(ir, { stringifyNumericTypes: false }).text).to.include('[_0].[g].STAsText() AS [g], [_0].[h].ToString() AS [h], CAST([_0].[x] AS NVARCHAR(MAX)) AS [x]');
  });

  it("offers the reference's _st_* operators on geometry and geography, with the value as WKT in the column's SRID", () => {
    expect(spatialTypeOperators('geometry')!.operators.map((o) => o.name)).to.deep.equal(['_st_contains', '_st_crosses', '_st_equals', '_st_intersects', '_st_overlaps', '_st_touches', '_st_within']);
    expect(spatialTypeOperators('geography')!.operators.map((o) => o.name)).to.deep.equal(['_st_contains', '_st_equals', '_st_intersects', '_st_overlaps', '_st_within']);
    expect(spatialTypeOperators('geography')!.ordering).to.equal(false);
    expect(spatialTypeOperators('int')).to.equal(undefined);
    expect(spatialOperatorSql('_st_within', '[_0].[g]', 'geometry', '@p0')).to.equal('([_0].[g].STWithin(geometry::STGeomFromText(@p0, [_0].[g].STSrid)) = 1)');
    // Geography has no STTouches.
    expect(spatialOperatorSql('_st_touches', '[_0].[g]', 'geography', '@p0')).to.equal(undefined);
    expect(mssqlEngineError({ number: 6522, message: 'A .NET Framework error occurred: System.FormatException: 24114' }, 's').code).to.equal('data-exception');
  });
});
