import { expect } from 'chai';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import type { Engine } from '../../../core/engine.js';

/**
 * PostgreSQL allows dots in schema and table names, so `"a.b"."c"` and `"a"."b.c"` are two tables
 * whose names joined with a dot are the same text. The engine keys tables by schema and name; each
 * must keep its own columns, relationships and permissions.
 */
describe('tables whose schema or name holds a dot (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  before(async () => {
    db = await createTestDatabase(
      'dotted_ids',
      `CREATE SCHEMA "a.b"; CREATE SCHEMA a;
       CREATE TABLE "a.b"."c" (id int PRIMARY KEY, first_only text);
       CREATE TABLE a."b.c" (id int CONSTRAINT second_pkey PRIMARY KEY, second_only text, c_id int CONSTRAINT second_parent_fkey REFERENCES "a.b"."c"(id));
       INSERT INTO "a.b"."c" VALUES (1, 'from a.b / c');
       INSERT INTO a."b.c" VALUES (2, 'from a / b.c', 1);`,
    );
    engine = await startTestEngine({ databaseUrl: db.url });
    const res = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: { schema: 'a.b', name: 'c' }, configuration: { custom_name: 'first' } } },
        { type: 'pg_track_table', args: { table: { schema: 'a', name: 'b.c' }, configuration: { custom_name: 'second' } } },
        {
          type: 'pg_create_object_relationship',
          args: { table: { schema: 'a', name: 'b.c' }, name: 'parent', using: { foreign_key_constraint_on: 'c_id' } },
        },
        {
          type: 'pg_create_select_permission',
          args: { table: { schema: 'a.b', name: 'c' }, role: 'user', permission: { columns: ['id'], filter: {} } },
        },
        {
          type: 'pg_create_select_permission',
          args: { table: { schema: 'a', name: 'b.c' }, role: 'user', permission: { columns: ['id', 'second_only'], filter: {} } },
        },
      ],
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('keeps each table its own columns and rows, and follows a relationship between them', async () => {
    const res = await graphql(engine, '{ first { id first_only } second { id second_only parent { id first_only } } }');
    expect(res.body).to.deep.equal({
      data: {
        first: [{ id: 1, first_only: 'from a.b / c' }],
        second: [{ id: 2, second_only: 'from a / b.c', parent: { id: 1, first_only: 'from a.b / c' } }],
      },
    });
  });

  it("keeps each table its own permissions", async () => {
    const user = { 'x-svc-role': 'user' };
    expect((await graphql(engine, '{ second { id second_only } }', {}, user)).body).to.deep.equal({ data: { second: [{ id: 2, second_only: 'from a / b.c' }] } });
    const hidden = await graphql(engine, '{ first { first_only } }', {}, user);
    expect(hidden.body.errors?.[0]?.extensions?.code).to.equal('validation-failed');
    expect((await graphql(engine, '{ first { id } }', {}, user)).body).to.deep.equal({ data: { first: [{ id: 1 }] } });
  });
});
