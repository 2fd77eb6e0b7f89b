/**
 * The bound on prepared statements per connection (plugins/db/postgres/prepared-statements.ts):
 * statements are named after their text, so many shapes would otherwise pile up on a connection.
 * One connection (max_connections 1), so the count read from pg_prepared_statements is the one
 * connection's every statement ran on.
 */
import { expect } from 'chai';
import { PgSourcePool } from '../../../../plugins/db/postgres/pool.js';
import { statementName } from '../../../../plugins/db/postgres/sql/statement-name.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

const BOUND = 5;

describe('db/postgres: prepared statements per connection are bounded', function () {
  this.timeout(30_000);
  let dbName: string;
  let pool: PgSourcePool;

  before(async () => {
    dbName = await createTestDatabase('svc_test_prepared_bound');
    await runScript(dbName, `CREATE TABLE item (id integer PRIMARY KEY, label text NOT NULL); INSERT INTO item SELECT g, 'item ' || g FROM generate_series(1, 50) g;`);
    pool = new PgSourcePool(resolvedFor(dbName, { pool_settings: { max_connections: 1 }, use_prepared_statements: true }), { preparedStatementsPerConnection: BOUND });
  });
  after(async () => {
    await pool?.close();
    if (dbName) await dropTestDatabase(dbName);
  });

  /** A read of one more shape: each `n` is a distinct text, so a distinct statement. */
  const shape = (n: number): string => `SELECT json_build_object('id', id, 'n', ${n})::text FROM item WHERE id = $1`;
  const read = async (n: number, id = 1): Promise<unknown> => JSON.parse((await pool.queryJsonText(statementName(shape(n)), shape(n), [id]))!);
  /** Unnamed, simple protocol: the count itself prepares nothing. */
  const prepared = async (): Promise<string[]> =>
    (await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);

  it('keeps at most the bound after many shapes, each answering correctly', async () => {
    for (let n = 0; n < 40; n++) expect(await read(n, (n % 50) + 1)).to.deep.equal({ id: (n % 50) + 1, n });
    const names = await prepared();
    expect(names).to.have.length(BOUND);
    // The most recent shapes are the ones kept.
    expect(names).to.have.members([35, 36, 37, 38, 39].map((n) => statementName(shape(n))));
  });

  it('keeps a statement used often while other shapes come and go, and prepares an evicted one again', async () => {
    const hot = 1000;
    for (let n = 100; n < 130; n++) {
      expect(await read(hot, 2)).to.deep.equal({ id: 2, n: hot });
      await read(n);
    }
    const names = await prepared();
    expect(names.length).to.be.at.most(BOUND);
    expect(names).to.include(statementName(shape(hot)));
    // Shape 100 was deallocated long ago: pg must prepare it again rather than bind a name the
    // server no longer knows (or parse one it still knows).
    expect(names).to.not.include(statementName(shape(100)));
    expect(await read(100, 3)).to.deep.equal({ id: 3, n: 100 });
    expect(await prepared()).to.include(statementName(shape(100)));
  });

  it('bounds the statements of one-trip transactions too, and keeps them working', async () => {
    for (let n = 0; n < 20; n++) {
      const text = `UPDATE item SET label = $2 || ' ${n}' WHERE id = $1 RETURNING label`;
      const rows = await pool.transactionInOneTrip('read-committed', [{ text, values: [n + 1, 'write'], name: statementName(text) }]);
      expect(rows).to.deep.equal([[[`write ${n}`]]]);
    }
    const names = await prepared();
    expect(names.length).to.be.at.most(BOUND);
    // The pipeline serialises its own Binds: its uses count too, so the newest shapes stay
    // (BEGIN/COMMIT are not sent once the connection's default isolation is known).
    expect(names).to.include(statementName(`UPDATE item SET label = $2 || ' 19' WHERE id = $1 RETURNING label`));
    expect(names).to.not.include(statementName(`UPDATE item SET label = $2 || ' 0' WHERE id = $1 RETURNING label`));
  });

  it('a failed statement does not leave the connection unusable or the bound broken', async () => {
    const bad = `SELECT json_build_object('x', no_such_column)::text FROM item WHERE id = $1`;
    let failed = false;
    await pool.queryJsonText(statementName(bad), bad, [1]).catch(() => (failed = true));
    expect(failed).to.equal(true);
    for (let n = 200; n < 210; n++) await read(n);
    expect((await prepared()).length).to.be.at.most(BOUND);
    expect(await read(209, 4)).to.deep.equal({ id: 4, n: 209 });
  });
});
