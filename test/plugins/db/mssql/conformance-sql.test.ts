/**
 * The T-SQL the mssql kind generates for every query of the conformance suite
 * (test/conformance/suite.ts), through the real engine (metadata API, GraphQL, planner, the
 * kind's compiler and mutation programs) down to the driver boundary, where a recording stand-in
 * (recording-driver.ts) takes SQL Server's place. Each request's statements and parameters are
 * compared with conformance-sql.snap.json (written with SVC_UPDATE_SNAPSHOTS=1, then reviewed;
 * test/conformance/sql-snapshot.ts), and every statement is checked for what must always hold:
 * values only as parameters, every parameter numbered in order, identifiers in brackets, paging
 * with ORDER BY, answers built by FOR JSON PATH, and the text parses as T-SQL (sqlparser-rs's MsSql dialect, through
 * @guanmingchiu/sqlparser-ts: a syntax check only, no names or types are resolved).
 */
import { init as initSqlParser, validate as validateSql } from '@guanmingchiu/sqlparser-ts';
import { expect } from 'chai';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMssqlPlugin } from '../../../../plugins/db/mssql/index.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import relationships from '../../../../plugins/metadata/relationships/index.js';
import permissions from '../../../../plugins/metadata/permissions/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import { bootTestEngine, type TestEngine } from '../../../helpers/inject.js';
import { RecordingDriver, type Recorded } from './recording-driver.js';
import { metadataOk, pinStatements } from '../../../conformance/sql-snapshot.js';
import { ADMIN, type Case, conformanceMetadata, EXTRA, MUTATIONS, PERMISSIONED, READS, SECRET } from '../../../conformance/sql-cases.js';

const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'conformance-sql.snap.json');
const table = (name: string) => ({ schema: 'dbo', name });

/** SQL Server's spatial operators, beyond the suite. */
const SPATIAL: Case[] = [
  { name: 'extra: spatial operators', query: '{ place(where: {geo: {_st_intersects: "POINT(1 2)"}, shape: {_st_touches: "LINESTRING(0 0, 1 1)"}}) { id geo shape } }' },
  { name: 'extra: spatial equality', query: '{ place(where: {_or: [{geo: {_eq: "POINT(1 2)"}}, {shape: {_neq: "POINT(0 0)"}}]}) { id } }' },
];

describe('db/mssql: T-SQL for the conformance queries (recorded at the driver boundary)', function () {
  this.timeout(30000);
  let engine: TestEngine;
  let driver: RecordingDriver;
  const meta = (body: unknown): Promise<void> => metadataOk(engine, body);

  before(async () => {
    await initSqlParser();
    driver = new RecordingDriver();
    engine = await bootTestEngine({
      plugins: [createMssqlPlugin(() => driver), adminSecret, management, sources, tables, relationships, permissions, apiMetadata, apiGraphql],
      config: { adminSecret: SECRET },
    });
    await meta({ type: 'sqlb_add_source', args: { name: 'conf', configuration: { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=conf;Uid=sa;Pwd=x' } } } });
    for (const name of ['author', 'article', 'place']) await meta({ type: 'sqlb_track_table', args: { source: 'conf', table: table(name), configuration: { custom_name: name } } });
    await conformanceMetadata(meta, 'sqlb', 'conf', table);
  });

  after(async () => {
    await engine?.dispose();
  });

  it('offers the aggregate predicates the suite expects of the kind (no corr or covar_samp)', async () => {
    const res = await engine.inject<{ data: { __type: { inputFields: Array<{ name: string }> } } }>({
      url: '/v1/graphql',
      headers: ADMIN,
      body: { query: '{ __type(name: "article_aggregate_bool_exp") { inputFields { name } } }' },
    });
    expect(res.body.data.__type.inputFields.map((f) => f.name).sort()).to.deep.equal(['bool_and', 'bool_or', 'count']);
  });

  it('has a T-SQL syntax check that refuses broken T-SQL', () => {
    expect(() => parsesAsTsql('SELECT ISNULL((SELECT [_0].[id] AS [id] FROM [dbo].[t] AS [_0] FOR JSON PATH), N\'[]\') AS [root]')).to.not.throw();
    for (const broken of ['SELECT (SELECT 1 AS [a] FOR JSON PATH AS [root]', 'SELECT [a FROM t', 'SELECT a FROM t AS x OUTER APPLY (SELECT 1) WHERE']) {
      expect(() => parsesAsTsql(broken), broken).to.throw();
    }
  });

  pinStatements(SNAPSHOT, [...READS, ...EXTRA, ...SPATIAL, ...PERMISSIONED, ...MUTATIONS], () => engine, () => driver.statements, checkStatement);
});

/**
 * Throws unless `sql` parses as T-SQL. Two things T-SQL has are rewritten first: the parser
 * takes only literals after FETCH NEXT, where SQL Server also takes a parameter
 * (`offset_row_count_expression`): those are read as 1; and it reads `geography::Method(..)`,
 * a static method call, as PostgreSQL's `::` cast with type modifiers: it is read as a call
 * of a function `geography__Method(..)`.
 */
function parsesAsTsql(sql: string): void {
  validateSql(sql.replace(/FETCH NEXT @p\d+ ROWS/g, 'FETCH NEXT 1 ROWS').replace(/\b(geography|geometry)::(\w+)\(/g, '$1__$2('), 'mssql');
}

/** What holds for every statement the kind sends. */
function checkStatement(s: Recorded): void {
  expect(() => parsesAsTsql(s.sql), s.sql).to.not.throw();
  const numbers = [...s.sql.matchAll(/@p(\d+)\b/g)].map((m) => Number(m[1]));
  // Parameters are numbered 0..n-1 (the mutation programs' statements restart at 0 each).
  expect(Math.max(-1, ...numbers) + 1, s.sql).to.equal(s.params.length);
  // No value of the requests above is written into the text.
  for (const v of ['Alpha', 'alpha', 'Eps', 'Zeta', 'Mine', 'Dee', 'Eve', "OR '1'='1", '%a']) expect(s.sql, s.sql).to.not.include(v);
  // Every identifier is bracketed: no bare schema-qualified name.
  expect(s.sql).to.not.match(/\bdbo\.\w/);
  if (/\bOFFSET\b/.test(s.sql)) expect(s.sql).to.match(/ORDER BY [^]*OFFSET/);
  if (s.sql.endsWith('AS [root]')) expect(s.sql).to.match(/FOR JSON PATH, INCLUDE_NULL_VALUES/);
}
