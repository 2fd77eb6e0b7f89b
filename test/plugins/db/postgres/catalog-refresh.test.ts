import { expect } from 'chai';
import type { DatabaseCatalog, DatabaseKind } from '../../../../core/sdk/index.js';
import { SourceConnections } from '../../../../core/schema-cache/connections.js';
import { PgSourceConnection } from '../../../../plugins/db/postgres/source-connection.js';
import { createTestDatabase, dropTestDatabase, resolvedFor, runScript } from './helpers.js';

/**
 * After DDL, a metadata operation reads only the relations that changed and merges them into the
 * last catalog (issue 12: one new table among 1,000 must not introspect all of them). Whatever the
 * DDL, the merged catalog must be exactly what a whole introspection answers, and changes that
 * cannot be confined to relations (a renamed type or schema) must take the whole path.
 */
describe('db/postgres catalog refresh: only changed relations are read again, and the result equals a whole introspection', function () {
  this.timeout(60_000);
  let dbName: string;
  let connection: PgSourceConnection;
  const connections = new SourceConnections();
  /** What each refresh answered: a catalog (merged) or null (the whole path). */
  const refreshes: Array<'merged' | 'whole'> = [];

  before(async () => {
    dbName = await createTestDatabase('svc_test_catalog_refresh');
    await runScript(
      dbName,
      `CREATE TYPE mood AS ENUM ('sad', 'ok');
       CREATE TABLE author (id int PRIMARY KEY, name text, mood mood);
       CREATE TABLE article (id int PRIMARY KEY, author_id int REFERENCES author(id), title text);
       CREATE VIEW article_titles AS SELECT id, title FROM article;
       CREATE FUNCTION author_label(a author) RETURNS text LANGUAGE sql STABLE AS $$ SELECT a.name $$;`,
    );
    const resolved = resolvedFor(dbName, { pool_settings: { max_connections: 2 } });
    const kind = { kind: 'postgres', connect: () => new PgSourceConnection(resolved) } as unknown as DatabaseKind;
    connection = connections.get('default', kind, { database: dbName }) as PgSourceConnection;
    const refresh = connection.refreshCatalog.bind(connection);
    connection.refreshCatalog = async (...args) => {
      const out = await refresh(...args);
      refreshes.push(out ? 'merged' : 'whole');
      return out;
    };
  });

  after(async () => {
    await connections.closeAll();
    if (dbName) await dropTestDatabase(dbName);
  });

  const read = (): Promise<DatabaseCatalog> => connections.catalog('default', connection, false);
  const table = (c: DatabaseCatalog, name: string, schema = 'public') => c.tables.find((t) => t.name === name && t.schema === schema);

  /** Applies `ddl` and checks the next read against a whole introspection; answers the path taken. */
  async function afterDdl(ddl: string): Promise<{ before: DatabaseCatalog; after: DatabaseCatalog; path: string | undefined }> {
    const before = await read();
    refreshes.length = 0;
    await runScript(dbName, ddl);
    const after = await read();
    expect(after, ddl).to.deep.equal(await connection.introspect());
    expect(refreshes, ddl).to.have.length(1);
    return { before, after, path: refreshes[0] };
  }

  it('merges a new table with a foreign key to an existing table, keeping every other entry as the same object', async () => {
    const { before, after, path } = await afterDdl(`CREATE TABLE comment (id serial PRIMARY KEY, article_id int NOT NULL REFERENCES article(id), body text)`);
    expect(path).to.equal('merged');
    expect(table(after, 'comment')?.foreignKeys.map((fk) => fk.refTable.name)).to.deep.equal(['article']);
    expect(table(after, 'author')).to.equal(table(before, 'author'));
    expect(table(after, 'article')).to.equal(table(before, 'article'));
  });

  it('merges a table whose columns are of a new enum and a new composite type, with the new enum listed', async () => {
    const { after, path } = await afterDdl(
      `CREATE TYPE colour AS ENUM ('red', 'blue');
       CREATE TYPE point2 AS (x int, y int);
       CREATE TABLE paint (id int PRIMARY KEY, colour colour NOT NULL, at point2, colours colour[])`,
    );
    expect(path).to.equal('merged');
    expect(after.enums.map((e) => e.name)).to.include('colour');
    expect(table(after, 'paint')?.columns.map((c) => c.typeKind)).to.deep.equal(['base', 'enum', 'composite', 'array']);
  });

  it('merges a table in a new schema', async () => {
    const { after, path } = await afterDdl(`CREATE SCHEMA shop; CREATE TABLE shop.item (id int PRIMARY KEY, author_id int REFERENCES public.author(id))`);
    expect(path).to.equal('merged');
    expect(table(after, 'item', 'shop')?.foreignKeys[0]?.refTable).to.deep.equal({ schema: 'public', name: 'author' });
  });

  it('merges every change confined to relations, and the functions and enums read whole', async () => {
    const merged = [
      'ALTER TABLE article ADD COLUMN body text',
      'ALTER TABLE article DROP COLUMN body',
      "COMMENT ON COLUMN author.name IS 'the name'",
      "COMMENT ON TABLE author IS 'writers'",
      'ALTER TABLE author ALTER COLUMN name SET NOT NULL',
      'ALTER TABLE author ADD CONSTRAINT author_name UNIQUE (name)',
      // The referencing table and the view over it show the new names.
      'ALTER TABLE article RENAME COLUMN title TO headline',
      'ALTER TABLE author RENAME TO writer',
      'ALTER TABLE shop.item DROP CONSTRAINT item_author_id_fkey',
      "ALTER TYPE mood ADD VALUE 'happy'",
      "COMMENT ON TYPE mood IS 'how they feel'",
      'CREATE FUNCTION writer_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM writer $$',
      'CREATE VIEW writer_names AS SELECT id, name FROM writer',
      'CREATE TABLE part (id int, at date) PARTITION BY RANGE (at)',
      "CREATE TABLE part_2026 PARTITION OF part FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
      'DROP TABLE paint',
      'DROP VIEW writer_names',
    ];
    for (const ddl of merged) expect((await afterDdl(ddl)).path, ddl).to.equal('merged');
  });

  it('reads the whole source when a type or schema that was there changed', async () => {
    for (const ddl of ['ALTER TYPE mood RENAME TO feeling', 'ALTER SCHEMA shop RENAME TO store', 'DROP TYPE point2 CASCADE']) {
      expect((await afterDdl(ddl)).path, ddl).to.equal('whole');
    }
  });

  it('still answers the same catalog object while nothing changed', async () => {
    const first = await read();
    await runScript(dbName, `INSERT INTO writer VALUES (7, 'Zed'); ANALYZE writer;`);
    await runScript(dbName, 'VACUUM writer');
    expect(await read()).to.equal(first);
  });
});
