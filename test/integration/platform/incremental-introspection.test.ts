/**
 * Tracking a new table reads only the relations that changed and merges them into the last
 * catalog (plugins/db/postgres/catalog-refresh.ts). What each role sees afterwards must be exactly
 * what it sees after reload_metadata, which introspects the whole source again; and a change the
 * merge cannot confine to relations must take the whole path.
 */
import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import type { Engine } from '../../../core/engine.js';
import type { DatabaseCatalog, SourceConnection } from '../../../core/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';

const SETUP = `
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, mood mood);
CREATE TABLE article (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL, owner_id int NOT NULL);
INSERT INTO author (name, mood) VALUES ('ann', 'ok'), ('bob', 'sad');
INSERT INTO article (author_id, title, owner_id) VALUES (1, 'a1', 1), (2, 'b1', 2);
`;

const roles: Array<Record<string, string>> = [{}, { 'x-svc-role': 'user', 'x-svc-user-id': '1' }];

async function ok(engine: Engine, body: unknown): Promise<void> {
  const res = await metadata(engine, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

async function schemaText(engine: Engine, headers: Record<string, string>): Promise<string> {
  const res = await graphql<{ data: IntrospectionQuery }>(engine, getIntrospectionQuery(), undefined, headers);
  return printSchema(buildClientSchema(res.body.data));
}

async function snapshot(engine: Engine): Promise<unknown> {
  const inconsistent = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
  return { schemas: await Promise.all(roles.map((h) => schemaText(engine, h))), inconsistent: inconsistent.body };
}

describe('tracking a new table reads only the changed relations, and every role sees what a full introspection gives', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let engine: Engine;
  /** The path each catalog refresh took: merged, or the whole source read again. */
  const paths: string[] = [];

  before(async () => {
    db = await createTestDatabase('incr_introspection', SETUP);
    engine = await startTestEngine({ databaseUrl: db.url });
    // The engine's own connection object: the plugin module the engine loaded is not this file's.
    const connection = engine.ref.current.sources.get('default')!.connection as SourceConnection & {
      refreshCatalog(earlier: DatabaseCatalog, earlierToken: string, token: string): Promise<DatabaseCatalog | null>;
    };
    const refresh = connection.refreshCatalog.bind(connection);
    connection.refreshCatalog = async (...args) => {
      const out = await refresh(...args);
      paths.push(out ? 'merged' : 'whole');
      return out;
    };
    await ok(engine, { type: 'pg_track_table', args: { table: 'author' } });
    await ok(engine, { type: 'pg_track_table', args: { table: 'article' } });
    await ok(engine, { type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await ok(engine, { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name', 'mood'], filter: {} } } });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  /** Runs `ddl`, then `operations`; answers the refresh paths taken, after checking against reload_metadata. */
  async function trackAfter(ddl: string, operations: unknown[]): Promise<string[]> {
    await db.sql(ddl);
    paths.length = 0;
    for (const op of operations) await ok(engine, op);
    const taken = [...paths];
    const incremental = await snapshot(engine);
    await ok(engine, { type: 'reload_metadata', args: {} });
    expect(incremental, ddl).to.deep.equal(await snapshot(engine));
    return taken;
  }

  it('merges a new table with a foreign key to a tracked table, its relationship and permission', async () => {
    const taken = await trackAfter('CREATE TABLE comment (id serial PRIMARY KEY, article_id int NOT NULL REFERENCES article(id), body text)', [
      { type: 'pg_track_table', args: { table: 'comment' } },
      { type: 'pg_create_object_relationship', args: { table: 'comment', name: 'article', using: { foreign_key_constraint_on: 'article_id' } } },
      { type: 'pg_create_select_permission', args: { table: 'comment', role: 'user', permission: { columns: ['id', 'body'], filter: { article: { owner_id: { _eq: 'X-Svc-User-Id' } } } } } },
    ]);
    expect(taken[0]).to.equal('merged');
  });

  it('merges a new table whose columns are of a new enum and a new composite type', async () => {
    const taken = await trackAfter(
      `CREATE TYPE colour AS ENUM ('red', 'blue');
       CREATE TYPE point2 AS (x int, y int);
       CREATE TABLE paint (id int PRIMARY KEY, colour colour NOT NULL, at point2, author_mood mood)`,
      [
        { type: 'pg_track_table', args: { table: 'paint' } },
        { type: 'pg_create_select_permission', args: { table: 'paint', role: 'user', permission: { columns: ['id', 'colour', 'author_mood'], filter: {} } } },
      ],
    );
    expect(taken[0]).to.equal('merged');
  });

  it('merges a new table in another schema with a foreign key into public', async () => {
    const taken = await trackAfter('CREATE SCHEMA shop; CREATE TABLE shop.item (id int PRIMARY KEY, author_id int REFERENCES public.author(id))', [
      { type: 'pg_track_table', args: { table: { schema: 'shop', name: 'item' } } },
      { type: 'pg_create_object_relationship', args: { table: { schema: 'shop', name: 'item' }, name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    ]);
    expect(taken[0]).to.equal('merged');
  });

  it('reads the whole source when an unrelated change came with the new table (a renamed type)', async () => {
    const taken = await trackAfter("CREATE TYPE spare AS ENUM ('x'); CREATE TABLE note (id int PRIMARY KEY)", []);
    expect(taken).to.deep.equal([]);
    const fallback = await trackAfter('ALTER TYPE spare RENAME TO unused; CREATE TABLE tag (id int PRIMARY KEY, note_id int REFERENCES note(id))', [
      { type: 'pg_track_table', args: { table: 'tag' } },
    ]);
    expect(fallback[0]).to.equal('whole');
  });
});
