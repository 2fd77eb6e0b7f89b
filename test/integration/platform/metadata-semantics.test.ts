import { expect } from 'chai';
import { call, graphql } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';

/**
 * Metadata semantics users migrating from the reference engine rely on: metadata versions,
 * tables whose names are no GraphQL names, enum tables made inconsistent by data (the reference's
 * `set_table_is_enum/relationship_with_inconsistent_enum_table` case), run_sql with statements that
 * cannot run in a transaction, `dump_internal_state`, and the data operations on `/v2/query`.
 */
describe('metadata semantics (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('compat_meta_sem');
    await f.db.sql(`
      CREATE TABLE "bad-name" (id int PRIMARY KEY);
      CREATE TABLE "Users Address" (id int, street text, CONSTRAINT users_address_pkey PRIMARY KEY (id));
      INSERT INTO "Users Address" VALUES (1, 'Main St');
      CREATE TABLE colors (value text PRIMARY KEY, comment text);
      INSERT INTO colors VALUES ('red', 'Red'), ('green', NULL);
      CREATE TABLE employees (id serial PRIMARY KEY, name text, favorite_color text REFERENCES colors);
    `);
  });
  after(async () => f?.close());

  const meta = (body: unknown, headers: Record<string, string> = {}) => call(f.engine, '/v1/metadata', body, headers);
  const query = (body: unknown, headers: Record<string, string> = {}) => call(f.engine, '/v1/query', body, headers);
  const v2 = (body: unknown, headers: Record<string, string> = {}) => call(f.engine, '/v2/query', body, headers);
  const exported = async () => (await meta({ type: 'export_metadata', args: {} })).body;

  it('refuses a metadata document of an unknown version and keeps the metadata', async () => {
    const before = await exported();
    for (const version of [4, 'x']) {
      const res = await meta({ type: 'replace_metadata', args: { ...before, version } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ code: 'parse-failed', path: '$.args.version' });
    }
    expect(await exported()).to.deep.equal(before);
  });

  it('tracks a table whose name is no GraphQL name under a custom_name, and refuses it without', async () => {
    const refused = await meta({ type: 'pg_track_table', args: { table: 'bad-name' } });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal({
      path: '$.args',
      error: 'cannot include "bad-name" in the GraphQL schema because "bad-name" is not a valid GraphQL identifier',
      code: 'validation-failed',
    });
    // Its primary key constraint is named after it, and constraint names become enum values.
    const pkey = await meta({ type: 'pg_track_table', args: { table: 'bad-name', configuration: { custom_name: 'bad_name' } } });
    expect(pkey.status).to.equal(400);
    expect(pkey.body.error).to.equal('cannot include "bad-name_pkey" in the GraphQL schema because it is not a valid GraphQL identifier');

    const ok = await meta({ type: 'pg_track_table', args: { table: 'Users Address', configuration: { custom_name: 'users_address' } } });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    const res = await graphql(f.engine, '{ users_address { id street } users_address_by_pk(id: 1) { street } }');
    expect(res.body).to.deep.equal({ data: { users_address: [{ id: 1, street: 'Main St' }], users_address_by_pk: { street: 'Main St' } } });
  });

  it('keeps a bulk whose reload finds an enum table made invalid by its run_sql, reporting it inconsistent', async () => {
    const res = await query({
      type: 'bulk',
      args: [
        { type: 'track_table', args: { table: 'colors' } },
        { type: 'track_table', args: { table: 'employees' } },
        { type: 'set_table_is_enum', args: { table: 'colors', is_enum: true } },
        { type: 'create_object_relationship', args: { table: 'employees', name: 'favorite_color_object', using: { foreign_key_constraint_on: 'favorite_color' } } },
        { type: 'run_sql', args: { sql: "INSERT INTO colors (value, comment) VALUES ('illegal+graphql+identifier', '')" } },
        { type: 'reload_metadata', args: {} },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const inconsistent = await query({ type: 'get_inconsistent_metadata', args: {} });
    expect(inconsistent.body.is_consistent).to.equal(false);
    const reasons = inconsistent.body.inconsistent_objects.map((o: { type: string; reason: string }) => [o.type, o.reason]);
    expect(reasons).to.deep.equal([
      ['table', 'Inconsistent object: the table "colors" cannot be used as an enum because the value "illegal+graphql+identifier" is not a valid GraphQL enum value name'],
      ['object_relation', 'Inconsistent object: table "colors" is not tracked'],
    ]);
    // Later changes are still judged: a new inconsistency after the reload is refused.
    const later = await query({ type: 'bulk', args: [{ type: 'reload_metadata', args: {} }, { type: 'track_table', args: { table: 'nowhere' } }] });
    expect(later.status).to.equal(400);

    expect((await query({ type: 'drop_inconsistent_metadata', args: {} })).status).to.equal(200);
    expect((await query({ type: 'get_inconsistent_metadata', args: {} })).body).to.deep.equal({ is_consistent: true, inconsistent_objects: [] });
    await f.db.sql(`DELETE FROM colors WHERE value = 'illegal+graphql+identifier'`);
  });

  it('answers run_sql statements that cannot run in a transaction as the reference: postgres-error, nothing done', async () => {
    for (const args of [
      { sql: 'CREATE INDEX CONCURRENTLY author_name_idx ON author (name)' },
      { sql: 'CREATE INDEX CONCURRENTLY author_name_idx ON author (name)', check_metadata_consistency: false, cascade: true },
      { sql: 'VACUUM author' },
    ]) {
      const res = await v2({ type: 'run_sql', args });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ path: '$.args', error: 'query execution failed', code: 'postgres-error' });
      expect(res.body.internal.error).to.deep.include({ status_code: '25001', exec_status: 'FatalError' });
    }
    expect((await f.db.sql(`SELECT 1 FROM pg_indexes WHERE indexname = 'author_name_idx'`)).rows).to.deep.equal([]);
    const readOnly = await v2({ type: 'run_sql', args: { sql: 'CREATE TABLE ro_t (id int)', read_only: true } });
    expect(readOnly.body.internal.error.status_code).to.equal('25006');
  });

  it('dumps its internal state for admins only, on /v1/query and /v1/metadata', async () => {
    for (const send of [query, meta]) {
      const res = await send({ type: 'dump_internal_state', args: {} });
      expect(res.status).to.equal(200);
      const tables = res.body.sources.default.tables.map((t: { table: { name: string } }) => t.table.name);
      expect(tables).to.include.members(['author', 'article', 'comment', 'Users Address']);
      const author = res.body.sources.default.tables.find((t: { table: { name: string } }) => t.table.name === 'author');
      expect(author.relationships.map((r: { name: string }) => r.name)).to.deep.equal(['articles']);
      expect(res.body.inconsistent_objects).to.deep.equal([]);
    }
    const denied = await query({ type: 'dump_internal_state', args: {} }, { 'x-svc-role': 'user' });
    expect(denied.status).to.equal(400);
    expect(denied.body).to.deep.include({ code: 'access-denied', error: 'restricted access : admin only' });
  });

  it('runs the data operations on /v2/query, alone and in bulks, with the role\'s permissions', async () => {
    const sel = await v2({ type: 'select', args: { table: 'author', columns: ['id', 'name'], where: { id: 1 } } });
    expect(sel.body).to.deep.equal([{ id: 1, name: 'Ada Lovelace' }]);
    const ins = await v2({ type: 'insert', args: { table: 'author', objects: [{ name: 'V2 Author' }], returning: ['name'] } });
    expect(ins.body).to.deep.equal({ affected_rows: 1, returning: [{ name: 'V2 Author' }] });
    const bulk = await v2({
      type: 'bulk',
      args: [
        { type: 'update', args: { table: 'author', where: { name: 'V2 Author' }, $set: { email: 'v2@example.com' } } },
        { type: 'count', args: { table: 'author', where: { email: 'v2@example.com' } } },
        { type: 'delete', args: { table: 'author', where: { name: 'V2 Author' } } },
      ],
    });
    expect(bulk.body).to.deep.equal([{ affected_rows: 1 }, { count: 1 }, { affected_rows: 1 }]);

    await meta({ type: 'pg_create_select_permission', args: { table: 'author', role: 'v2user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } });
    const asUser = await v2({ type: 'select', args: { table: 'author', columns: ['id'] } }, { 'x-svc-role': 'v2user', 'x-svc-user-id': '2' });
    expect(asUser.body).to.deep.equal([{ id: 2 }]);
    // Everything else on /v2/query stays admin-only.
    const sql = await v2({ type: 'run_sql', args: { sql: 'SELECT 1' } }, { 'x-svc-role': 'v2user' });
    expect(sql.body).to.deep.include({ code: 'access-denied' });
  });
});
