/**
 * Incremental metadata operations (copy-on-write drafts, the permission memo, catalog entries
 * kept by identity, the store's reused entry texts) must resolve exactly what a full build of the
 * same metadata resolves: the schema each role sees, the rows it reads, and the inconsistencies.
 * A second engine started on the same stored metadata builds everything from scratch.
 */
import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';

const SETUP = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, rank int NOT NULL DEFAULT 0);
CREATE TABLE article (id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL, owner_id int NOT NULL);
INSERT INTO author (name, rank) VALUES ('ann', 1), ('bob', 2);
INSERT INTO article (author_id, title, owner_id) VALUES (1, 'a1', 1), (2, 'b1', 2), (1, 'a2', 2);
`;

const userHeaders = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

async function ok(engine: Engine, body: unknown): Promise<unknown> {
  const res = await metadata(engine, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

async function schemaText(engine: Engine, headers: Record<string, string>): Promise<string> {
  const res = await graphql<{ data: IntrospectionQuery }>(engine, getIntrospectionQuery(), undefined, headers);
  return printSchema(buildClientSchema(res.body.data));
}

async function inconsistencies(engine: Engine): Promise<unknown[]> {
  const res = await metadata<{ inconsistent_objects: unknown[] }>(engine, { type: 'get_inconsistent_metadata', args: {} });
  return res.body.inconsistent_objects;
}

const ARTICLES = '{ article(order_by: {id: asc}) { id title author { name } } }';

describe('incremental metadata operations resolve as a full build does', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let engine: Engine;
  let fresh: Engine | undefined;

  before(async () => {
    db = await createTestDatabase('incremental', SETUP);
    engine = await startTestEngine({ databaseUrl: db.url });
  });
  afterEach(async () => {
    await fresh?.close();
    fresh = undefined;
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  async function expectSameAsFullBuild(): Promise<void> {
    fresh = await startTestEngine({ databaseUrl: db.url });
    for (const headers of [{}, userHeaders(1)]) expect(await schemaText(engine, headers)).to.equal(await schemaText(fresh, headers));
    for (const headers of [{}, userHeaders(1), userHeaders(2)]) {
      expect((await graphql(engine, ARTICLES, undefined, headers)).body).to.deep.equal((await graphql(fresh, ARTICLES, undefined, headers)).body);
    }
    expect(await inconsistencies(engine)).to.deep.equal(await inconsistencies(fresh));
  }

  it('track, relationships and permissions one by one give the full build\'s schemas and rows', async () => {
    await ok(engine, { type: 'pg_track_table', args: { table: 'author' } });
    await ok(engine, { type: 'pg_track_table', args: { table: 'article' } });
    await ok(engine, { type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
    await ok(engine, {
      type: 'pg_create_array_relationship',
      args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
    });
    await ok(engine, { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } });
    await ok(engine, {
      type: 'pg_create_select_permission',
      args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: { _and: [{ owner_id: { _eq: 'X-Svc-User-Id' } }, { author: { rank: { _gte: 1 } } }] } } },
    });
    const rows = await graphql(engine, ARTICLES, undefined, userHeaders(2));
    expect(rows.body).to.deep.equal({ data: { article: [{ id: 2, title: 'b1', author: { name: 'bob' } }, { id: 3, title: 'a2', author: { name: 'ann' } }] } });
    await expectSameAsFullBuild();
  });

  it('a change to one permission shows at once; the others are unchanged', async () => {
    await ok(engine, { type: 'pg_drop_select_permission', args: { table: 'author', role: 'user' } });
    await ok(engine, { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name', 'rank'], filter: { rank: { _lt: 2 } } } } });
    const rows = await graphql(engine, ARTICLES, undefined, userHeaders(2));
    expect(rows.body).to.deep.equal({ data: { article: [{ id: 2, title: 'b1', author: null }, { id: 3, title: 'a2', author: { name: 'ann' } }] } });
    await expectSameAsFullBuild();
  });

  it('still refuses a permission that does not fit the tables', async () => {
    const res = await metadata(engine, {
      type: 'pg_create_update_permission',
      args: { table: 'article', role: 'user', permission: { columns: ['title'], filter: { author: { no_such_column: { _eq: 1 } } } } },
    });
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.contain('no_such_column');
  });

  it('finds a permission made inconsistent through another table, whose own entry did not change', async () => {
    // article's permission reads author.rank through the relationship: dropping that column must
    // invalidate it although neither article's metadata nor its catalog entry changed.
    await db.sql('ALTER TABLE author DROP COLUMN rank');
    const res = await metadata<{ is_consistent: boolean; inconsistent_objects: Array<{ name: string }> }>(engine, { type: 'reload_metadata', args: {} });
    expect(res.body.is_consistent).to.equal(false);
    const names = res.body.inconsistent_objects.map((o) => o.name).sort();
    expect(names).to.deep.equal(['select_permission user in table article in source default', 'select_permission user in table author in source default']);
    await expectSameAsFullBuild();
    await db.sql('ALTER TABLE author ADD COLUMN rank int NOT NULL DEFAULT 1');
    const back = await metadata<{ is_consistent: boolean }>(engine, { type: 'reload_metadata', args: {} });
    expect(back.body.is_consistent).to.equal(true);
    await expectSameAsFullBuild();
  });

  it('the stored document is the serving one, byte for byte in content', async () => {
    const exported = await ok(engine, { type: 'export_metadata', args: {} });
    fresh = await startTestEngine({ databaseUrl: db.url });
    expect(await ok(fresh, { type: 'export_metadata', args: {} })).to.deep.equal(exported);
  });
});
