/**
 * The conformance suite against the mssql kind, on a real SQL Server given by SVC_TEST_MSSQL_URL
 * (a connection string: `Server=host,1433;Database=db;Uid=sa;Pwd=...;Encrypt=false`), in a schema
 * of its own (`svc_conformance`, dropped and created again). No SQL Server runs on the machine
 * this engine is developed on: without the variable the suite is skipped, and says so. What runs
 * without a server is test/plugins/db/mssql/ (the generated T-SQL of every query here, and the
 * real client up to the connection boundary).
 */
import { ARTICLES, AUTHORS } from './fixture.js';
import { conformanceSuite } from './suite.js';

const URL = process.env['SVC_TEST_MSSQL_URL'];
const SCHEMA = 'svc_conformance';

async function onServer(fn: (run: (sql: string, values?: unknown[]) => Promise<void>) => Promise<void>): Promise<void> {
  const mod = await import('mssql');
  const sql = (mod as unknown as { default?: typeof mod }).default ?? mod;
  const pool = new sql.ConnectionPool({ ...sql.ConnectionPool.parseConnectionString(URL!), pool: { max: 1 } });
  await pool.connect();
  try {
    await fn(async (text, values = []) => {
      const request = pool.request();
      values.forEach((v, i) => request.input(`p${i}`, v));
      await request.query(text);
    });
  } finally {
    await pool.close();
  }
}

async function dropFixture(run: (sql: string) => Promise<void>): Promise<void> {
  await run(`IF OBJECT_ID(N'${SCHEMA}.article', N'U') IS NOT NULL DROP TABLE ${SCHEMA}.article`);
  await run(`IF OBJECT_ID(N'${SCHEMA}.author', N'U') IS NOT NULL DROP TABLE ${SCHEMA}.author`);
  await run(`IF SCHEMA_ID(N'${SCHEMA}') IS NOT NULL DROP SCHEMA ${SCHEMA}`);
}

if (URL === undefined || URL === '') {
  describe('database kind conformance: mssql (integration)', () => {
    it.skip('runs against a real SQL Server only: SVC_TEST_MSSQL_URL is not set (no SQL Server on this machine)');
  });
} else {
  conformanceSuite({
    name: 'mssql',
    prefix: 'sqlb',
    plugin: 'db/mssql',
    titleConstraint: 'article_title_key',
    capabilities: {
      distinctOn: false,
      mutations: true,
      onConflict: true,
      // SQL Server (before 2025) has no regular expressions: _similar and _regex are refused.
      operators: ['_eq', '_neq', '_gt', '_lt', '_gte', '_lte', '_in', '_nin', '_is_null', '_like', '_nlike', '_ilike', '_nilike'],
      aggregatePredicates: ['bool_and', 'bool_or', 'count'],
    },
    async setup() {
      await onServer(async (run) => {
        await dropFixture(run);
        await run(`CREATE SCHEMA ${SCHEMA}`);
        await run(`CREATE TABLE ${SCHEMA}.author (id INT PRIMARY KEY, name NVARCHAR(50) NOT NULL, rating INT NULL)`);
        await run(`CREATE TABLE ${SCHEMA}.article (id INT IDENTITY(1, 1) PRIMARY KEY, title NVARCHAR(100) NOT NULL,
          author_id INT NULL REFERENCES ${SCHEMA}.author (id), published BIT NOT NULL, views INT NULL,
          CONSTRAINT article_title_key UNIQUE (title))`);
        for (const a of AUTHORS) await run(`INSERT INTO ${SCHEMA}.author VALUES (@p0, @p1, @p2)`, [...a]);
        for (const a of ARTICLES) await run(`INSERT INTO ${SCHEMA}.article (title, author_id, published, views) VALUES (@p0, @p1, @p2, @p3)`, [...a]);
      });
      return { configuration: { connection_info: { connection_string: URL, pool_settings: { max_connections: 5 } } }, schema: SCHEMA };
    },
    async teardown() {
      await onServer(dropFixture);
    },
  });
}
