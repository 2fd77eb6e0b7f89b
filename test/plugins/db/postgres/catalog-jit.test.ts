import { expect } from 'chai';
import { INTROSPECT_SQL } from '../../../../plugins/db/postgres/introspect-sql.js';
import { introspectPostgres } from '../../../../plugins/db/postgres/introspect.js';
import { PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

interface ExplainJson {
  Plan: { 'Total Cost': number };
  JIT?: { Functions: number };
}

const explained = (text: string | null): ExplainJson => (JSON.parse(text ?? 'null') as ExplainJson[])[0]!;
const EXPLAIN_INTROSPECTION = `EXPLAIN (ANALYZE, FORMAT JSON) ${INTROSPECT_SQL}`;

/**
 * With PostgreSQL's default `jit = on`, a big catalog pushes the introspection statement's cost
 * over `jit_above_cost` and compiling it costs seconds. The database here lowers the threshold
 * to 0 so that every statement would be compiled, which a small test catalog cannot reach.
 */
describe('db/postgres catalog statements run without JIT', function () {
  this.timeout(60_000);
  let dbName: string;
  let pool: PgSourcePool;

  before(async function () {
    dbName = await createTestDatabase('svc_test_catalog_jit');
    await runScript(dbName, `CREATE TABLE author (id int PRIMARY KEY, name text);
      ALTER DATABASE ${dbName} SET jit = on;
      ALTER DATABASE ${dbName} SET jit_above_cost = 0;`);
    // As with --pg-jit: source connections otherwise turn JIT off for every statement.
    pool = new PgSourcePool({ ...resolvedFor(dbName), jit: true });
    const { rows } = await pool.query<{ available: boolean }>('SELECT pg_jit_available() AS available');
    if (!rows[0]!.available) this.skip();
  });

  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  it('compiles the introspection when sent plainly (the database setting the test relies on works)', async () => {
    const { rows } = await pool.query<{ 'QUERY PLAN': ExplainJson[] }>(EXPLAIN_INTROSPECTION);
    expect(rows[0]!['QUERY PLAN'][0]!.JIT?.Functions).to.be.greaterThan(0);
  });

  it('does not compile it through the catalog path, outside a transaction', async () => {
    expect(explained(await pool.queryCatalogJson(EXPLAIN_INTROSPECTION))).to.not.have.property('JIT');
    // The setting lasted only for the statement: the connection still compiles other statements.
    const { rows } = await pool.query<{ jit: string }>('SHOW jit');
    expect(rows[0]!.jit).to.equal('on');
  });

  it('does not compile it inside a transaction, and gives the transaction its setting back', async () => {
    await pool.withTransaction('read-committed', false, async (tx) => {
      expect(explained(await tx.queryCatalogJson(EXPLAIN_INTROSPECTION))).to.not.have.property('JIT');
      const { rows } = await tx.query<{ jit: string }>('SHOW jit');
      expect(rows[0]!.jit).to.equal('on');
      const after = await tx.query<{ 'QUERY PLAN': ExplainJson[] }>(EXPLAIN_INTROSPECTION);
      expect(after.rows[0]!['QUERY PLAN'][0]!.JIT?.Functions).to.be.greaterThan(0);
    });
  });

  it('introspects through the catalog path, in and out of transactions', async () => {
    const outside = await introspectPostgres(pool);
    const inside = await pool.withTransaction('read-committed', true, (tx) => introspectPostgres(tx));
    expect(outside.tables.map((t) => t.name)).to.deep.equal(['author']);
    expect(inside).to.deep.equal(outside);
  });
});
