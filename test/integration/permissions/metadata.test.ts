/**
 * Permission operations over HTTP against a real database: export shape, errors as the reference
 * reports them, the legacy `/v1/query` forms, permissions that a database change breaks, and
 * cascades from relationship and table drops.
 */
import { expect } from 'chai';
import { call, metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { as, queryAs } from './fixture.js';

const articleOf = (exported: any) => exported.metadata.sources[0].tables.find((t: any) => t.table.name === 'article'); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('permission operations over HTTP (integration)', function () {
  let f: ReadApiFixture;
  beforeEach(async () => {
    f = await startReadApiFixture('perm_meta');
  });
  afterEach(async () => f?.close());

  const exportMetadata = async () => (await metadata(f.engine, { type: 'export_metadata', version: 2, args: {} })).body;

  it('creates, exports, comments and drops permissions', async () => {
    const create = await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: { table: 'article', role: 'user', comment: 'own', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: false } },
    });
    expect(create).to.deep.include({ status: 200, body: { message: 'success' } });
    expect(articleOf(await exportMetadata()).select_permissions).to.deep.equal([
      { role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } }, comment: 'own' },
    ]);
    const comment = await metadata(f.engine, { type: 'pg_set_permission_comment', args: { table: 'article', role: 'user', type: 'select', comment: null } });
    expect(comment.status).to.equal(200);
    expect(articleOf(await exportMetadata()).select_permissions[0]).to.not.have.property('comment');
    expect((await queryAs(f, as('user', 1), '{ article { id } }')).data.article).to.have.length(2);

    expect((await metadata(f.engine, { type: 'pg_drop_select_permission', args: { table: 'article', role: 'user' } })).status).to.equal(200);
    expect(articleOf(await exportMetadata())).to.not.have.property('select_permissions');
    expect((await queryAs(f, as('user', 1), '{ article { id } }')).errors![0]!.message).to.equal("field 'article' not found in type: 'query_root'");
  });

  it('answers errors in the reference shape', async () => {
    const permission = { columns: '*', filter: {} };
    await metadata(f.engine, { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission } });
    expect(await metadata(f.engine, { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission } })).to.deep.include({
      status: 400,
      body: { path: '$.args', error: 'select permission already defined on table "author" with role "user"', code: 'already-exists' },
    });
    const invalid = await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: { table: 'article', role: 'user', permission: { columns: '*', filter: { author: { nope: { _eq: 1 } } } } },
    });
    expect(invalid.status).to.equal(400);
    expect(invalid.body).to.deep.include({
      path: '$.args',
      error: 'Inconsistent object: in table "article": in permission for role "user": "nope" does not exist',
      code: 'invalid-configuration',
    });
    const inBulk = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'pg_create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: {} } } },
        { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: 'x', filter: {} } } },
      ],
    });
    expect(inBulk.body).to.deep.equal({ path: '$.args[1].args.permission.columns', error: 'expected Array, but encountered String', code: 'parse-failed' });
    expect(articleOf(await exportMetadata())).to.not.have.property('delete_permissions');
    expect(await metadata(f.engine, { type: 'pg_drop_insert_permission', args: { table: 'article', role: 'user' } })).to.deep.include({
      status: 400,
      body: { path: '$.args', error: 'insert permission on "article" for role "user" does not exist', code: 'bad-request' },
    });
  });

  it('answers the legacy forms on /v1/query only', async () => {
    const args = { table: 'author', role: 'user', permission: { columns: ['id'], filter: {} } };
    expect((await call(f.engine, '/v1/query', { type: 'create_select_permission', args })).body).to.deep.equal({ message: 'success' });
    expect((await metadata(f.engine, { type: 'create_select_permission', args })).body.code).to.equal('parse-failed');
    expect((await call(f.engine, '/v1/query', { type: 'drop_select_permission', args: { table: 'author', role: 'user' } })).body).to.deep.equal({
      message: 'success',
    });
  });

  it('reports a permission broken by a database change as inconsistent, and stops serving it', async () => {
    await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: { score: { _gt: 0 } } } },
    });
    await f.db.sql('ALTER TABLE article DROP COLUMN score');
    const reload = await metadata(f.engine, { type: 'reload_metadata', args: {} });
    expect(reload.body.is_consistent).to.equal(false);
    const inconsistent = await metadata(f.engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(inconsistent.body.inconsistent_objects).to.deep.equal([
      {
        type: 'select_permission',
        name: 'select_permission user in table article in source default',
        definition: {
          source: 'default',
          table: { schema: 'public', name: 'article' },
          role: 'user',
          permission: { columns: ['id', 'title'], filter: { score: { _gt: 0 } } },
          comment: null,
        },
        reason: 'Inconsistent object: in table "article": in permission for role "user": "score" does not exist',
      },
    ]);
    expect((await queryAs(f, as('user', 1), '{ article { id } }')).errors![0]!.extensions.code).to.equal('validation-failed');
    expect((await metadata(f.engine, { type: 'drop_inconsistent_metadata', args: {} })).status).to.equal(200);
    expect(articleOf(await exportMetadata())).to.not.have.property('select_permissions');
  });

  it('needs cascade to drop a relationship or untrack a table that permissions use, and then removes them', async () => {
    await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: { table: 'comment', role: 'user', permission: { columns: ['id'], filter: { article: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
    });
    await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: { articles: { comments: { id: { _gt: 0 } } } } } },
    });
    const refused = await metadata(f.engine, { type: 'pg_drop_relationship', args: { table: 'comment', relationship: 'article' } });
    expect(refused.body).to.deep.equal({
      path: '$.args',
      error: 'cannot drop due to the following dependent objects: permission comment.user.select in source "default"',
      code: 'dependency-error',
    });
    expect((await metadata(f.engine, { type: 'pg_drop_relationship', args: { table: 'comment', relationship: 'article', cascade: true } })).status).to.equal(200);
    const untrack = await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'comment' } });
    expect(untrack.body.code).to.equal('dependency-error');
    expect(untrack.body.error).to.contain('permission author.user.select in source "default"');
    expect((await metadata(f.engine, { type: 'pg_untrack_table', args: { table: 'comment', cascade: true } })).status).to.equal(200);
    const tables = (await exportMetadata()).metadata.sources[0].tables;
    expect(tables.find((t: { table: { name: string } }) => t.table.name === 'author')).to.not.have.property('select_permissions');
  });
});
