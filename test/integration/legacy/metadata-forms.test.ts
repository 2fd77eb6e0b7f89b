/**
 * The legacy forms of the metadata operations built so far, each sent to `/v1/query` with the
 * reference's args and checked through the exported metadata (or the data it serves): tables,
 * relationships, permissions, whole-metadata management, run_sql and bulk. Functions and
 * computed fields are covered by their own plugins' tests.
 */
import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';
import { SCHEMA_SQL } from '../read-api/fixture.js';

interface TableEntry {
  table: { schema: string; name: string };
  is_enum?: boolean;
  configuration?: Record<string, unknown>;
  object_relationships?: Array<{ name: string; comment?: string }>;
  array_relationships?: Array<{ name: string; comment?: string }>;
  select_permissions?: Array<{ role: string; comment?: string }>;
  insert_permissions?: Array<{ role: string }>;
  update_permissions?: Array<{ role: string }>;
  delete_permissions?: Array<{ role: string }>;
}

describe('legacy metadata forms on /v1/query', function () {
  this.timeout(60000);
  let db: TestDatabase;
  let engine: Engine;
  const v1 = (type: string, args: unknown, extra: Record<string, unknown> = {}) => call<any>(engine, '/v1/query', { type, args, ...extra }); // eslint-disable-line @typescript-eslint/no-explicit-any
  const ok = async (type: string, args: unknown, extra: Record<string, unknown> = {}) => {
    const res = await v1(type, args, extra);
    expect(res.status, `${type}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  };
  const tables = async (): Promise<TableEntry[]> => (await ok('export_metadata', {})).sources[0].tables;
  const table = async (name: string): Promise<TableEntry | undefined> => (await tables()).find((t) => t.table.name === name);

  before(async () => {
    db = await createTestDatabase('legacy_forms', SCHEMA_SQL);
    engine = await startTestEngine({ databaseUrl: db.url });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('tracks tables: track_table (v1 shapes and v2), add_existing_table_or_view, untrack_table', async () => {
    expect(await ok('track_table', { table: 'author' })).to.deep.equal({ message: 'success' });
    await ok('track_table', { schema: 'public', name: 'article' });
    await ok('add_existing_table_or_view', { schema: 'public', name: 'comment' });
    expect((await tables()).map((t) => t.table.name).sort()).to.deep.equal(['article', 'author', 'comment']);

    await ok('untrack_table', { table: { schema: 'public', name: 'comment' }, cascade: true });
    expect(await table('comment')).to.equal(undefined);
    await ok('track_table', { table: 'comment', configuration: { custom_name: 'remark' } }, { version: 2 });
    expect((await table('comment'))?.configuration).to.deep.include({ custom_name: 'remark' });
  });

  it('customizes tables: set_table_customization, set_table_custom_fields (v2), set_table_is_enum', async () => {
    await ok('set_table_customization', { table: 'comment', configuration: { custom_root_fields: { select: 'remarks' } } });
    expect((await table('comment'))?.configuration).to.deep.include({ custom_root_fields: { select: 'remarks' } });
    await ok('set_table_custom_fields', { table: 'author', custom_root_fields: { select: 'writers' }, custom_column_names: { name: 'fullName' } }, { version: 2 });
    const author = await table('author');
    expect(author?.configuration).to.deep.include({ custom_root_fields: { select: 'writers' } });
    expect(JSON.stringify(author?.configuration)).to.include('fullName');

    await ok('run_sql', { sql: "CREATE TABLE status (value text PRIMARY KEY, comment text); INSERT INTO status VALUES ('draft', 'not yet'), ('live', NULL);" });
    await ok('track_table', { table: 'status' });
    await ok('set_table_is_enum', { table: 'status', is_enum: true });
    expect((await table('status'))?.is_enum).to.equal(true);
  });

  it('manages relationships: create_object/array_relationship, set_relationship_comment, rename_relationship, drop_relationship', async () => {
    await ok('create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } });
    await ok('create_array_relationship', {
      table: 'author',
      name: 'articles',
      using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } },
    });
    await ok('create_object_relationship', {
      table: 'comment',
      name: 'commenter',
      using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } },
    });
    await ok('set_relationship_comment', { table: 'author', relationship: 'articles', comment: 'what they wrote' });
    expect((await table('author'))?.array_relationships).to.deep.equal([
      { name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } }, comment: 'what they wrote' },
    ]);
    await ok('rename_relationship', { table: 'author', name: 'articles', new_name: 'writings' });
    expect((await table('author'))?.array_relationships?.map((r) => r.name)).to.deep.equal(['writings']);
    await ok('drop_relationship', { table: 'author', relationship: 'writings' });
    expect((await table('author'))?.array_relationships).to.equal(undefined);
    expect((await table('article'))?.object_relationships?.map((r) => r.name)).to.deep.equal(['author']);
  });

  it('manages permissions: create_*_permission, set_permission_comment, drop_*_permission', async () => {
    const filter = { author_id: { _eq: 'X-Svc-User-Id' } };
    await ok('create_select_permission', { table: 'article', role: 'user', permission: { columns: '*', filter }, comment: 'own rows' });
    await ok('create_insert_permission', { table: 'article', role: 'user', permission: { check: filter, columns: ['title', 'author_id'] } });
    await ok('create_update_permission', { table: 'article', role: 'user', permission: { columns: ['title'], filter } });
    await ok('create_delete_permission', { table: 'article', role: 'user', permission: { filter } });
    await ok('set_permission_comment', { table: 'article', role: 'user', type: 'select', comment: 'mine' });
    let article = await table('article');
    expect(article?.select_permissions).to.deep.equal([{ role: 'user', permission: { columns: '*', filter }, comment: 'mine' }]);
    for (const kind of ['insert', 'update', 'delete'] as const) expect(article?.[`${kind}_permissions`]?.map((p) => p.role)).to.deep.equal(['user']);

    // The permissions are live: the role reads its own rows through the legacy select.
    const rows = await call(engine, '/v1/query', { type: 'select', args: { table: 'article', columns: ['id'] } }, { 'x-svc-role': 'user', 'x-svc-user-id': '4' });
    expect(rows.body).to.deep.equal((await db.sql('SELECT id FROM article WHERE author_id = 4 ORDER BY id')).rows);

    for (const kind of ['insert', 'update', 'delete', 'select']) await ok(`drop_${kind}_permission`, { table: 'article', role: 'user' });
    article = await table('article');
    for (const kind of ['select', 'insert', 'update', 'delete'] as const) expect(article?.[`${kind}_permissions`]).to.equal(undefined);
  });

  it('manages the whole metadata: export, replace, reload, inconsistencies, clear', async () => {
    const exported = await ok('export_metadata', {});
    const v2 = await ok('export_metadata', {}, { version: 2 });
    expect(v2.metadata).to.deep.equal(exported);
    expect(v2.resource_version).to.be.a('number');
    expect(await ok('replace_metadata', exported)).to.deep.equal({ message: 'success' });
    expect(await ok('replace_metadata', { metadata: exported }, { version: 2 })).to.deep.equal({ message: 'success' });
    expect(await ok('reload_metadata', { reload_sources: true })).to.deep.equal({ is_consistent: true, message: 'success' });

    await db.sql('ALTER TABLE comment RENAME TO note');
    expect(await ok('reload_metadata', {})).to.include({ is_consistent: false });
    const inconsistent = await ok('get_inconsistent_metadata', {});
    expect(inconsistent.is_consistent).to.equal(false);
    expect(inconsistent.inconsistent_objects.map((o: { type: string }) => o.type)).to.include('table');
    expect(await ok('drop_inconsistent_metadata', {})).to.deep.equal({ message: 'success' });
    expect(await ok('get_inconsistent_metadata', {})).to.deep.equal({ is_consistent: true, inconsistent_objects: [] });
    expect(await table('comment')).to.equal(undefined);

    expect(await ok('clear_metadata', {})).to.deep.equal({ message: 'success' });
    expect(await tables()).to.deep.equal([]);
  });

  it('runs bulks of legacy forms atomically', async () => {
    const res = await ok('bulk', [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'select', args: { table: 'author', columns: ['id', { name: 'articles', columns: ['id'] }], where: { id: 3 } } },
    ]);
    expect(res).to.deep.equal([{ message: 'success' }, { message: 'success' }, { message: 'success' }, [{ id: 3, articles: [{ id: 6 }] }]]);

    const failed = await v1('bulk', [
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {} } } },
      { type: 'track_table', args: { table: 'nope' } },
    ]);
    expect(failed.status).to.equal(400);
    expect(failed.body.path).to.match(/^\$\.args\[1\]/);
    expect((await table('author'))?.select_permissions).to.equal(undefined);
  });

  it('keeps metadata forms admin-only, and legacy names off /v1/metadata', async () => {
    const asUser = await call(engine, '/v1/query', { type: 'track_table', args: { table: 'comment' } }, { 'x-svc-role': 'user' });
    expect(asUser.status).to.equal(400);
    expect(asUser.body).to.deep.equal({ path: '$', error: 'restricted access : admin only', code: 'access-denied' });
    const onMetadata = await metadata(engine, { type: 'track_table', args: { table: 'comment' } });
    expect(onMetadata.body).to.deep.equal({ path: '$.type', error: 'unknown operation type "track_table" on /v1/metadata', code: 'parse-failed' });
  });
});
