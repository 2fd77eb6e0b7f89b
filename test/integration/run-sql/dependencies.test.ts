/**
 * run_sql against metadata that depends on the schema: changes that would break relationships
 * or permissions are refused with `dependency-error` and rolled back, `cascade` removes the
 * dependents instead, a type change under a permission's literal comparison is refused even with
 * cascade, and `check_metadata_consistency: false` skips the check. Each test starts from a fresh
 * sample database because the cascaded ones change it.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { addToTable, exportMetadata, runSql, tableEntry } from './helpers.js';

const refused = (message: string) => ({ path: '$.args', error: message, code: 'dependency-error' });

describe('run_sql: metadata dependencies', () => {
  let fx: ReadApiFixture;
  beforeEach(async () => {
    fx = await startReadApiFixture('run_sql_deps');
  });
  afterEach(async () => {
    await fx?.close();
  });

  const columns = async (table: string): Promise<string[]> => {
    const res = await runSql(fx.engine, {
      sql: `SELECT column_name FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
    });
    return (res.body as { result: string[][] }).result.slice(1).map((r) => r[0]!);
  };

  it('refuses to drop a column a permission uses, then drops the permission with cascade', async () => {
    await addToTable(fx.engine, 'author', {
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'name', 'email'], filter: {} } }],
    });
    const sql = 'ALTER TABLE author DROP COLUMN email';
    const res = await runSql(fx.engine, { sql });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal(refused('cannot drop due to the following dependent objects: permission author.user.select in source "default"'));
    expect(await columns('author')).to.include('email');

    const ok = await runSql(fx.engine, { sql, cascade: true });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.deep.equal({ result_type: 'CommandOk', result: null });
    expect(await columns('author')).to.not.include('email');
    expect(tableEntry(await exportMetadata(fx.engine), 'author')!.select_permissions).to.equal(undefined);
    const gql = await graphql(fx.engine, '{ author(where: {id: {_eq: 1}}) { name } }');
    expect(gql.body).to.deep.equal({ data: { author: [{ name: 'Ada Lovelace' }] } });
  });

  it('finds a permission filter reaching the column through a relationship', async () => {
    await addToTable(fx.engine, 'comment', {
      select_permissions: [{ role: 'reader', permission: { columns: ['id'], filter: { article: { is_published: { _eq: true } } } } }],
    });
    const res = await runSql(fx.engine, { sql: 'ALTER TABLE article DROP COLUMN is_published' });
    expect(res.body).to.deep.equal(refused('cannot drop due to the following dependent objects: permission comment.reader.select in source "default"'));
  });

  it('refuses to drop a column a relationship maps, then drops the relationship with cascade', async () => {
    const sql = 'ALTER TABLE comment DROP COLUMN author_id';
    const res = await runSql(fx.engine, { sql });
    expect(res.body).to.deep.equal(refused('cannot drop due to the following dependent objects: relationship comment.commenter in source "default"'));
    expect(await columns('comment')).to.include('author_id');
    expect((await runSql(fx.engine, { sql, cascade: true })).status).to.equal(200);
    const comment = tableEntry(await exportMetadata(fx.engine), 'comment')!;
    expect(comment.object_relationships!.map((r) => r.name)).to.deep.equal(['article']);
  });

  it('refuses to drop a tracked table other tables point at, then untracks it with cascade', async () => {
    const res = await runSql(fx.engine, { sql: 'DROP TABLE comment' });
    expect(res.body).to.deep.equal(refused('cannot drop due to the following dependent objects: relationship article.comments in source "default"'));
    expect((await runSql(fx.engine, { sql: 'DROP TABLE comment', cascade: true })).status).to.equal(200);
    const doc = await exportMetadata(fx.engine);
    expect(tableEntry(doc, 'comment')).to.equal(undefined);
    expect(tableEntry(doc, 'article')!.array_relationships).to.equal(undefined);
    const gql = await graphql(fx.engine, '{ comment { id } }');
    expect(gql.body).to.have.nested.property('errors[0].extensions.code', 'validation-failed');
  });

  it('untracks a dropped table nothing else needs, without cascade', async () => {
    expect((await runSql(fx.engine, { sql: 'CREATE TABLE tag_free (id int PRIMARY KEY)' })).status).to.equal(200);
    expect((await metadata(fx.engine, { type: 'pg_track_table', args: { table: 'tag_free' } })).status).to.equal(200);
    expect((await runSql(fx.engine, { sql: 'DROP TABLE tag_free' })).status).to.equal(200);
    expect(tableEntry(await exportMetadata(fx.engine), 'tag_free')).to.equal(undefined);
  });

  it('refuses to drop a foreign key relationships ride on, then drops them with cascade', async () => {
    await addToTable(fx.engine, 'article', {
      select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { author: { id: { _eq: 'X-Svc-User-Id' } } } } }],
    });
    const sql = 'ALTER TABLE article DROP CONSTRAINT article_author_id_fkey';
    const res = await runSql(fx.engine, { sql });
    expect(res.body).to.deep.equal(
      refused(
        'cannot drop due to the following dependent objects: permission article.user.select in source "default", ' +
          'relationship article.author in source "default", relationship author.articles in source "default"',
      ),
    );
    expect((await runSql(fx.engine, { sql, cascade: true })).status).to.equal(200);
    const doc = await exportMetadata(fx.engine);
    expect(tableEntry(doc, 'author')!.array_relationships).to.equal(undefined);
    expect(tableEntry(doc, 'article')!.object_relationships).to.equal(undefined);
    expect(tableEntry(doc, 'article')!.select_permissions).to.equal(undefined);
  });

  it('refuses to change a column type a permission compares with a literal, even with cascade', async () => {
    await addToTable(fx.engine, 'article', {
      select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { rating: { _gt: 3 } } } }],
    });
    const res = await runSql(fx.engine, { sql: 'ALTER TABLE article ALTER COLUMN rating TYPE bigint', cascade: true });
    expect(res.body).to.deep.equal(
      refused('cannot change type of column "rating" in table "article" because of the following dependencies: permission article.user.select in source "default"'),
    );
    const type = await runSql(fx.engine, { sql: "SELECT data_type FROM information_schema.columns WHERE table_name = 'article' AND column_name = 'rating'" });
    expect((type.body as { result: string[][] }).result[1]).to.deep.equal(['integer']);
  });

  it('changes a type nothing pins, and the GraphQL schema follows at once', async () => {
    await addToTable(fx.engine, 'author', {
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'rating'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }],
    });
    expect((await runSql(fx.engine, { sql: 'ALTER TABLE author ALTER COLUMN id TYPE bigint' })).status).to.equal(200);
    const gql = await graphql(fx.engine, '{ __type(name: "author") { fields { name type { ofType { name } } } } }');
    const id = (gql.body as { data: { __type: { fields: Array<{ name: string; type: { ofType: { name: string } } }> } } }).data.__type.fields.find(
      (f) => f.name === 'id',
    );
    expect(id!.type.ofType.name).to.equal('bigint');
  });

  it('check_metadata_consistency false runs the SQL without looking at metadata', async () => {
    await addToTable(fx.engine, 'author', {
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'email'], filter: {} } }],
    });
    const res = await runSql(fx.engine, { sql: 'ALTER TABLE author DROP COLUMN email', check_metadata_consistency: false });
    expect(res.status).to.equal(200);
    expect(await columns('author')).to.not.include('email');
    // The metadata was left as it was: it is now out of step with the database.
    expect(tableEntry(await exportMetadata(fx.engine), 'author')!.select_permissions).to.have.length(1);
  });

  it('leaves resource_version alone for SQL that cannot change the schema', async () => {
    const version = async () => ((await metadata(fx.engine, { type: 'export_metadata', version: 2, args: {} })).body as { resource_version: number }).resource_version;
    const v0 = await version();
    await runSql(fx.engine, { sql: "UPDATE author SET name = name WHERE id = 1; SELECT 'no ddl here'" });
    expect(await version()).to.equal(v0);
    await runSql(fx.engine, { sql: 'ALTER TABLE author ADD COLUMN nickname text' });
    expect(await version()).to.equal(v0 + 1);
  });
});
