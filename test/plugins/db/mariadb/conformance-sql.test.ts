/**
 * The SQL the mariadb kind generates for every query of the conformance suite
 * (test/conformance/sql-cases.ts, the same requests the mssql kind's snapshot asks), through the
 * real engine (metadata API, GraphQL, planner, the kind's compiler and mutation programs) against
 * the machine's MariaDB, in a database of its own seeded with the conformance fixture. Every
 * statement the kind sends during a request is recorded at its pool (reads, and each statement
 * of a mutation program inside its transaction) with the values it binds, and compared with
 * conformance-sql.snap.json (written with SVC_UPDATE_SNAPSHOTS=1, then reviewed). The requests
 * run in order on one fixture, so the mutations' statements (keys found, rows written) are the
 * same every run. Also checked for every statement: values only as `?` parameters, identifiers
 * in backticks.
 */
import { expect } from 'chai';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mariadb from '../../../../plugins/db/mariadb/index.js';
import { MariaPool, type Queryable } from '../../../../plugins/db/mariadb/pool.js';
import adminSecret from '../../../../plugins/auth/admin-secret/index.js';
import management from '../../../../plugins/metadata/management/index.js';
import sources from '../../../../plugins/metadata/sources/index.js';
import tables from '../../../../plugins/metadata/tables/index.js';
import relationships from '../../../../plugins/metadata/relationships/index.js';
import permissions from '../../../../plugins/metadata/permissions/index.js';
import apiMetadata from '../../../../plugins/api/metadata/index.js';
import apiGraphql from '../../../../plugins/api/graphql/index.js';
import { bootTestEngine, type TestEngine } from '../../../helpers/inject.js';
import { createMariaFixture, dropMariaDatabase, MARIA_SERVER } from '../../../conformance/mariadb-fixture.js';
import { type Case, conformanceMetadata, EXTRA, MUTATIONS, PERMISSIONED, READS, SECRET } from '../../../conformance/sql-cases.js';
import { metadataOk, pinStatements, type Recorded } from '../../../conformance/sql-snapshot.js';

const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'conformance-sql.snap.json');
const DATABASE = 'maria_conformance_sql';
const table = (name: string) => ({ schema: DATABASE, name });

/** The operators MariaDB declares beyond SQL Server's (the suite's cases for them). */
const PATTERNS: Case[] = Object.entries({
  _similar: '{title: {_similar: "(A|G)%"}}',
  _nsimilar: '{title: {_nsimilar: "(A|G)%"}}',
  _regex: '{title: {_regex: "^[a-z]"}}',
  _nregex: '{title: {_nregex: "^[a-z]"}}',
  _iregex: '{title: {_iregex: "^(a|b)"}}',
  _niregex: '{title: {_niregex: "^(a|b)"}}',
}).map(([name, where]): Case => ({ name: `where ${name}`, query: `{ article(where: ${where}, order_by: {id: asc}) { id } }` }));

describe('db/mariadb: SQL for the conformance queries (recorded at the pool, on the real server)', function () {
  this.timeout(30000);
  let engine: TestEngine;
  const statements: Recorded[] = [];
  const { rows, transaction } = MariaPool.prototype;
  const meta = (body: unknown): Promise<void> => metadataOk(engine, body);

  before(async () => {
    await createMariaFixture(DATABASE);
    // The pool is the kind's boundary with the server: what passes it is what MariaDB is sent.
    MariaPool.prototype.rows = function (this: MariaPool, sql: string, values: readonly unknown[] = []) {
      statements.push({ sql, params: [...values] });
      return rows.call(this, sql, values);
    };
    MariaPool.prototype.transaction = function <T>(this: MariaPool, fn: (q: Queryable) => Promise<T>): Promise<T> {
      return transaction.call(this, (q) =>
        fn({
          rows: (sql, values = []) => {
            statements.push({ sql, params: [...values] });
            return q.rows(sql, values);
          },
        }),
      ) as Promise<T>;
    };
    engine = await bootTestEngine({ plugins: [mariadb, adminSecret, management, sources, tables, relationships, permissions, apiMetadata, apiGraphql], config: { adminSecret: SECRET } });
    await meta({ type: 'maria_add_source', args: { name: 'conf', configuration: { connection_info: { host: MARIA_SERVER.host, port: MARIA_SERVER.port, user: MARIA_SERVER.user, database: DATABASE } } } });
    for (const name of ['author', 'article']) await meta({ type: 'maria_track_table', args: { source: 'conf', table: table(name), configuration: { custom_name: name } } });
    await conformanceMetadata(meta, 'maria', 'conf', table);
  });

  after(async () => {
    MariaPool.prototype.rows = rows;
    MariaPool.prototype.transaction = transaction;
    await engine?.dispose();
    await dropMariaDatabase(DATABASE);
  });

  pinStatements(SNAPSHOT, [...READS, ...PATTERNS, ...EXTRA, ...PERMISSIONED, ...MUTATIONS], () => engine, () => statements, checkStatement);
});

/** What holds for every statement the kind sends. */
function checkStatement(s: Recorded): void {
  // One value per placeholder (no `?` is written in the kind's literals).
  expect(s.sql.split('?').length - 1, s.sql).to.equal(s.params.length);
  // No value of the requests above is written into the text.
  for (const v of ['Alpha', 'alpha', 'Eps', 'Zeta', 'Mine', 'Dee', 'Eve', "OR '1'='1", '%a', '(A|G)', '^[a-z]']) expect(s.sql, s.sql).to.not.include(v);
  // Every identifier is in backticks: no bare database-qualified name.
  expect(s.sql).to.not.match(new RegExp(`(^|[^\`])${DATABASE}\\.`));
}
