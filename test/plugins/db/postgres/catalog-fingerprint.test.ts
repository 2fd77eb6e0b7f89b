import { expect } from 'chai';
import type { DatabaseCatalog, DatabaseKind } from '../../../../core/sdk/index.js';
import { SourceConnections } from '../../../../core/schema-cache/connections.js';
import { PgSourceConnection } from '../../../../plugins/db/postgres/source-connection.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

/**
 * A metadata operation reuses the source's last catalog while the catalog fingerprint has not
 * moved (introspecting 1,000 tables costs hundreds of milliseconds per operation). Each kind of
 * DDL the introspection can see must move it; reading data and ANALYZE must not; a fresh read
 * (reload_metadata, run_sql) always introspects.
 */
describe('db/postgres catalog fingerprint: the last catalog is reused only while the database catalog is unchanged', function () {
  this.timeout(60_000);
  let dbName: string;
  let connection: PgSourceConnection;
  const connections = new SourceConnections();

  before(async () => {
    dbName = await createTestDatabase('svc_test_catalog_fp');
    await runScript(
      dbName,
      `CREATE TABLE author (id int PRIMARY KEY, name text);
       CREATE TABLE article (id int PRIMARY KEY, author_id int, title text);
       INSERT INTO author VALUES (1, 'Ann');`,
    );
    const resolved = resolvedFor(dbName, { pool_settings: { max_connections: 2 } });
    const kind = { kind: 'postgres', connect: () => new PgSourceConnection(resolved) } as unknown as DatabaseKind;
    connection = connections.get('default', kind, { database: dbName }) as PgSourceConnection;
  });

  after(async () => {
    await connections.closeAll();
    if (dbName) await dropTestDatabase(dbName);
  });

  const read = (fresh = false): Promise<DatabaseCatalog> => connections.catalog('default', connection, fresh);
  const table = (c: DatabaseCatalog, name: string) => c.tables.find((t) => t.name === name);

  it('answers the same catalog object while nothing changed, even after writes to data and ANALYZE', async () => {
    const first = await read();
    expect(await read()).to.equal(first);
    await runScript(dbName, `INSERT INTO author VALUES (2, 'Bo'); UPDATE author SET name = 'Al' WHERE id = 1; ANALYZE author;`);
    await runScript(dbName, 'VACUUM author');
    expect(await read()).to.equal(first);
  });

  it('introspects again after every kind of DDL the catalog shows', async () => {
    const changes: Array<[string, (c: DatabaseCatalog) => unknown]> = [
      ['CREATE TABLE tag (id int PRIMARY KEY)', (c) => table(c, 'tag')?.name],
      ['ALTER TABLE article ADD COLUMN body text', (c) => table(c, 'article')?.columns.map((col) => col.name).includes('body')],
      ['ALTER TABLE article DROP COLUMN body', (c) => !table(c, 'article')?.columns.map((col) => col.name).includes('body')],
      ['ALTER TABLE article ADD CONSTRAINT article_author FOREIGN KEY (author_id) REFERENCES author(id)', (c) => table(c, 'article')?.foreignKeys.length === 1],
      ["COMMENT ON COLUMN author.name IS 'the name'", (c) => table(c, 'author')?.columns.find((col) => col.name === 'name')?.description === 'the name'],
      ['ALTER TABLE author ALTER COLUMN name SET NOT NULL', (c) => table(c, 'author')?.columns.find((col) => col.name === 'name')?.nullable === false],
      ["CREATE TYPE mood AS ENUM ('sad', 'ok')", (c) => c.enums.some((e) => e.name === 'mood')],
      ["ALTER TYPE mood ADD VALUE 'happy'", (c) => c.enums.find((e) => e.name === 'mood')?.values.includes('happy')],
      ['CREATE FUNCTION author_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM author $$', (c) => c.functions.some((f) => f.name === 'author_count')],
      ['CREATE VIEW author_names AS SELECT id, name FROM author', (c) => table(c, 'author_names')?.name],
      ['ALTER TABLE tag RENAME TO label', (c) => table(c, 'label') !== undefined && table(c, 'tag') === undefined],
      ['DROP TABLE label', (c) => table(c, 'label') === undefined],
    ];
    for (const [ddl, visible] of changes) {
      const before = await read();
      await runScript(dbName, ddl);
      const after = await read();
      expect(after, ddl).to.not.equal(before);
      expect(visible(after), ddl).to.be.ok;
      expect(await read(), `${ddl}, read again`).to.equal(after);
    }
  });

  it('introspects again when asked for a fresh read, changed or not', async () => {
    const before = await read();
    const fresh = await read(true);
    expect(fresh).to.not.equal(before);
    expect(fresh).to.deep.equal(before);
    expect(await read()).to.equal(fresh);
  });

  it('keeps no catalog for a connection it does not hold (a replaced configuration)', async () => {
    const other = new PgSourceConnection(resolvedFor(dbName, { pool_settings: { max_connections: 1 } }));
    try {
      const a = await connections.catalog('default', other, false);
      const b = await connections.catalog('default', other, false);
      expect(a).to.not.equal(b);
    } finally {
      await other.close();
    }
  });
});
