import { expect } from 'chai';
import { exportMetadata, runSql } from '../run-sql/helpers.js';
import { dataOf, ok, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Tracked functions and computed fields across database changes (run_sql, reload_metadata). */
describe('functions and computed fields: database changes (integration)', function () {
  let f: FunctionsFixture;
  beforeEach(async () => {
    f = await startFunctionsFixture('fn_change');
    await ok(
      f.meta({
        type: 'bulk',
        args: [
          { type: 'pg_track_function', args: { function: 'search_articles' } },
          { type: 'pg_add_computed_field', args: { table: 'author', name: 'full_name', definition: { function: 'full_name' } } },
          {
            type: 'pg_create_select_permission',
            args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {}, computed_fields: ['full_name'] } },
          },
        ],
      }),
    );
  });
  afterEach(async () => f?.close());

  const fullNameExists = async () => (await f.db.sql(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'full_name'`)).rows[0].n === 1;

  it('refuses to drop the function behind a computed field without cascade, and drops it with its dependents with cascade', async () => {
    const refused = await runSql(f.engine, { sql: 'DROP FUNCTION full_name(author)' });
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.include({
      code: 'dependency-error',
      error:
        'cannot drop due to the following dependent objects: computed field author.full_name in source "default", permission author.user.select in source "default"',
    });
    expect(await fullNameExists()).to.equal(true);

    const done = await runSql(f.engine, { sql: 'DROP FUNCTION full_name(author)', cascade: true });
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    expect(await fullNameExists()).to.equal(false);
    const author = (await exportMetadata(f.engine)).sources[0]!.tables.find((t) => t.table.name === 'author')!;
    expect(author.computed_fields).to.equal(undefined);
    expect(author.select_permissions).to.equal(undefined);
  });

  it('removes a dropped tracked function from the metadata without cascade', async () => {
    const res = await runSql(f.engine, { sql: 'DROP FUNCTION search_articles(text)' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await exportMetadata(f.engine)).sources[0]!.functions).to.equal(undefined);
  });

  it('refuses to overload a tracked function', async () => {
    const res = await runSql(f.engine, { sql: 'CREATE FUNCTION search_articles(n int) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ code: 'not-supported', error: 'the following tracked function(s) cannot be overloaded: search_articles' });
  });

  it('keeps serving a function whose body is replaced', async () => {
    const res = await runSql(f.engine, {
      sql: `CREATE OR REPLACE FUNCTION search_articles(search text) RETURNS SETOF article AS $$ SELECT * FROM article WHERE body ILIKE '%' || search || '%' $$ LANGUAGE sql STABLE`,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(dataOf(await f.gql('{ search_articles(args: {search: "harmful"}) { id } }'))).to.deep.equal({ search_articles: [{ id: 7 }] });
  });

  it('reports a function dropped behind its back as an inconsistent object, until dropped', async () => {
    await f.db.sql('DROP FUNCTION search_articles(text)');
    const reload = await f.meta({ type: 'reload_metadata', args: {} });
    expect(reload.body).to.deep.include({ is_consistent: false });
    const listed = await f.meta({ type: 'get_inconsistent_metadata', args: {} });
    expect((listed.body as { inconsistent_objects: unknown[] }).inconsistent_objects).to.deep.equal([
      {
        type: 'function',
        name: 'function search_articles in source default',
        definition: { schema: 'public', name: 'search_articles' },
        reason: 'Inconsistent object: in function "search_articles": no such function exists: "search_articles"',
      },
    ]);
    await ok(f.meta({ type: 'drop_inconsistent_metadata', args: {} }));
    expect((await exportMetadata(f.engine)).sources[0]!.functions).to.equal(undefined);
    const after = await f.meta({ type: 'get_inconsistent_metadata', args: {} });
    expect(after.body).to.deep.include({ is_consistent: true });
  });
});
