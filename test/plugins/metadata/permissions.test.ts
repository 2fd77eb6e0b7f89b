import { expect } from 'chai';
import permissionsPlugin from '../../../plugins/metadata/permissions/index.js';
import type { KernelHooks } from '../../../core/hooks.js';
import type { InconsistentObject, MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import type { DatabaseCatalog } from '../../../core/db/catalog.js';
import { catalog, table } from '../../helpers/catalog.js';
import { expectEngineError as expectError } from '../../helpers/expect-error.js';
import { hooksWith, makeOperationContext, runOperation, type TestContextOptions } from '../../helpers/operation-context.js';
import sourcesPlugin from '../../../plugins/metadata/sources/index.js';
import tablesPlugin from '../../../plugins/metadata/tables/index.js';
import relationshipsPlugin from '../../../plugins/metadata/relationships/index.js';
import { memoryDataFile, memoryKindEngine } from '../../helpers/memory-kind.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const OK = { body: { message: 'success' } };

const doc = (tables: TableMetadata[]): MetadataDocument => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: { connection_info: { database_url: 'postgres://db/x' } } }],
});

function blogCatalog(): DatabaseCatalog {
  return catalog(
    table('author', { columns: ['id:int4', 'name', 'meta:json', 'data:jsonb', 'tags:_text', 'active:bool'], pk: ['id'] }),
    table('article', {
      columns: ['id:int4', 'title', { name: 'author_id', type: 'int4', nullable: false }, 'rating:int4', 'published_on:date'],
      pk: ['id'],
      fks: [{ columns: ['author_id'], ref: 'author', refColumns: ['id'] }],
    }),
    table('untracked', { columns: ['id:int4'], pk: ['id'] }),
  );
}

const tracked = (): TableMetadata[] => [
  { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
  { table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
];

describe('metadata/permissions plugin', () => {
  let hooks: KernelHooks;
  before(async () => {
    hooks = await hooksWith(permissionsPlugin);
  });

  const setup = (tables: TableMetadata[] = tracked(), opts: TestContextOptions = {}) =>
    makeOperationContext({ draft: doc(tables), catalogs: { default: blogCatalog() }, ...opts });
  const tableOf = (ctx: { draft: MetadataDocument }, name: string) => ctx.draft.sources[0]!.tables.find((t) => t.table.name === name)!;

  it('registers every prefix, and the legacy forms only on /v1/query', async () => {
    for (const prefix of ['pg', 'sqlb', 'dist', 'wh']) {
      for (const op of ['create_select_permission', 'drop_select_permission', 'set_permission_comment']) {
        expect(hooks.onMetadataOperation.get(`${prefix}_${op}`), `${prefix}_${op}`).to.not.equal(undefined);
      }
      // Insert, update and delete permissions exist only for kinds with mutations (here the pg stand-in).
      for (const op of ['create_insert_permission', 'drop_update_permission', 'create_delete_permission']) {
        expect(hooks.onMetadataOperation.get(`${prefix}_${op}`) !== undefined, `${prefix}_${op}`).to.equal(prefix === 'pg');
      }
    }
    const ctx = await setup();
    const args = { table: 'author', role: 'user', permission: { columns: '*', filter: {} } };
    expect(await runOperation(hooks, ctx, 'create_select_permission', args)).to.equal(undefined);
    const legacy = await setup(tracked(), { endpoint: 'query' });
    expect(await runOperation(hooks, legacy, 'create_select_permission', args)).to.deep.equal(OK);
    expect(await runOperation(hooks, legacy, 'pg_create_select_permission', args)).to.equal(undefined);
    expect(tableOf(legacy, 'author').select_permissions).to.deep.equal([{ role: 'user', permission: { columns: '*', filter: {} } }]);
  });

  describe('create', () => {
    it('stores each kind in the reference export shape, defaults left out', async () => {
      const ctx = await setup();
      const filter = { author_id: { _eq: 'X-Svc-User-Id' } };
      expect(
        await runOperation(hooks, ctx, 'pg_create_select_permission', {
          table: 'article',
          role: 'user',
          comment: 'own rows',
          permission: { filter, allow_aggregations: true, limit: 10, columns: ['id', 'title'], computed_fields: [] },
        }),
      ).to.deep.equal(OK);
      await runOperation(hooks, ctx, 'pg_create_select_permission', {
        table: 'article',
        role: 'guest',
        permission: { columns: ['id'], filter: {}, allow_aggregations: false, limit: null },
      });
      await runOperation(hooks, ctx, 'pg_create_insert_permission', {
        table: 'article',
        role: 'user',
        permission: { columns: ['title', 'author_id'], set: { author_id: 'x-svc-user-id' }, check: filter, backend_only: false },
      });
      await runOperation(hooks, ctx, 'pg_create_update_permission', {
        table: 'article',
        role: 'user',
        permission: { columns: ['title'], filter, set: {} },
      });
      await runOperation(hooks, ctx, 'pg_create_delete_permission', { table: 'article', role: 'user', permission: { filter, backend_only: true } });
      const t = tableOf(ctx, 'article');
      expect(t.select_permissions).to.deep.equal([
        { role: 'user', permission: { columns: ['id', 'title'], filter, limit: 10, allow_aggregations: true }, comment: 'own rows' },
        { role: 'guest', permission: { columns: ['id'], filter: {} } },
      ]);
      expect(Object.keys(t.select_permissions![0]!.permission)).to.deep.equal(['columns', 'filter', 'limit', 'allow_aggregations']);
      expect(t.insert_permissions).to.deep.equal([
        { role: 'user', permission: { check: filter, set: { author_id: 'x-svc-user-id' }, columns: ['title', 'author_id'] } },
      ]);
      expect(t.update_permissions).to.deep.equal([{ role: 'user', permission: { columns: ['title'], filter, check: null } }]);
      expect(t.delete_permissions).to.deep.equal([{ role: 'user', permission: { filter, backend_only: true } }]);
      expect(ctx.changed).to.equal(true);
    });

    it('refuses a second permission of a kind for a role, and the admin role', async () => {
      const ctx = await setup();
      const args = { table: 'author', role: 'user', permission: { columns: '*', filter: {} } };
      await runOperation(hooks, ctx, 'pg_create_select_permission', args);
      await expectError(
        runOperation(hooks, ctx, 'pg_create_select_permission', args),
        'already-exists',
        'select permission already defined on table "author" with role "user"',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_create_select_permission', { ...args, role: 'admin' }),
        'already-exists',
        'select permission already defined on table "author" with role "admin"',
      );
      // Another kind for the same role is fine.
      expect(await runOperation(hooks, ctx, 'pg_create_delete_permission', { table: 'author', role: 'user', permission: { filter: {} } })).to.deep.equal(OK);
    });

    it('refuses an untracked table and an unknown source', async () => {
      const ctx = await setup();
      const permission = { columns: '*', filter: {} };
      await expectError(
        runOperation(hooks, ctx, 'pg_create_select_permission', { table: 'untracked', role: 'user', permission }),
        'not-exists',
        'table "untracked" does not exist in source: default',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_create_select_permission', { table: 'author', role: 'user', permission, source: 'x' }),
        'not-exists',
        'source with name "x" does not exist',
      );
    });

    it('reports shape errors as parse-failed at the offending key', async () => {
      const ctx = await setup();
      const create = (permission: unknown, type = 'pg_create_select_permission', extra: object = {}) =>
        runOperation(hooks, ctx, type, { table: 'author', role: 'user', permission, ...extra });
      await expectError(runOperation(hooks, ctx, 'pg_create_select_permission', { role: 'user' }), 'parse-failed', 'key "table" not found');
      await expectError(runOperation(hooks, ctx, 'pg_create_select_permission', { table: 'author' }), 'parse-failed', 'key "role" not found');
      await expectError(create(undefined), 'parse-failed', 'key "permission" not found');
      await expectError(create({ filter: {} }), 'parse-failed', 'key "columns" not found', '$.args.permission');
      await expectError(create({ columns: '*' }), 'parse-failed', 'key "filter" not found', '$.args.permission');
      await expectError(create({ columns: 'name', filter: {} }), 'parse-failed', 'expected Array, but encountered String', '$.args.permission.columns');
      await expectError(create({ columns: [1], filter: {} }), 'parse-failed', 'expected String, but encountered Number', '$.args.permission.columns[0]');
      await expectError(create({ columns: '*', filter: 1 }), 'parse-failed', 'expected Object, but encountered Number', '$.args.permission.filter');
      await expectError(
        create({ columns: '*', filter: { _and: {} } }),
        'parse-failed',
        'expected Array, but encountered Object',
        '$.args.permission.filter._and',
      );
      await expectError(
        create({ columns: '*', filter: { _or: [{ _exists: { _where: {} } }] } }),
        'parse-failed',
        'key "_table" not found',
        '$.args.permission.filter._or[0]._exists',
      );
      await expectError(create({ columns: '*', filter: {}, limit: '1' }), 'parse-failed', 'expected Number, but encountered String', '$.args.permission.limit');
      await expectError(create({ columns: '*', filter: {}, allow_aggregations: 1 }), 'parse-failed', 'expected Boolean, but encountered Number', '$.args.permission.allow_aggregations');
      await expectError(create({ columns: '*' }, 'pg_create_insert_permission'), 'parse-failed', 'key "check" not found', '$.args.permission');
      await expectError(create({ check: {}, set: [] }, 'pg_create_insert_permission'), 'parse-failed', 'expected Object, but encountered Array', '$.args.permission.set');
      await expectError(create({ filter: {} }, 'pg_create_update_permission'), 'parse-failed', 'key "columns" not found', '$.args.permission');
      await expectError(create({}, 'pg_create_delete_permission'), 'parse-failed', 'key "filter" not found', '$.args.permission');
      await expectError(create({ columns: '*', filter: {} }, 'pg_create_select_permission', { role: '' }), 'parse-failed', 'empty string not allowed', '$.args.role');
      expect(ctx.changed).to.equal(false);
    });
  });

  describe('validation against the database', () => {
    const invalid = async (type: string, table: string, permission: unknown, reason: string, role = 'user') => {
      const ctx = await setup();
      const err = await expectError(
        runOperation(hooks, ctx, `pg_create_${type}_permission`, { table, role, permission }),
        'invalid-configuration',
        `Inconsistent object: in table "${table}": in permission for role "${role}": ${reason}`,
      );
      const objects = err.internal as InconsistentObject[];
      expect(objects).to.have.length(1);
      expect(objects[0]).to.include({ type: `${type}_permission`, name: `${type}_permission ${role} in table ${table} in source default` });
      return objects[0]!;
    };

    it('checks columns, relationships (recursively) and _exists tables', async () => {
      const obj = await invalid('select', 'article', { columns: '*', filter: { nope: { _eq: 1 } } }, '"nope" does not exist');
      expect(obj.definition).to.deep.equal({
        source: 'default',
        table: article,
        role: 'user',
        permission: { columns: '*', filter: { nope: { _eq: 1 } } },
        comment: null,
      });
      await invalid('select', 'article', { columns: '*', filter: { author: { nope: { _eq: 1 } } } }, '"nope" does not exist');
      await invalid('select', 'author', { columns: '*', filter: { articles: { author: { articles: { x: 1 } } } } }, '"x" does not exist');
      await invalid('select', 'article', { columns: '*', filter: { author: 3 } }, 'expected Object, but encountered Number');
      await invalid('select', 'article', { columns: '*', filter: { _exists: { _table: 'untracked', _where: {} } } }, 'table "untracked" does not exist');
      await invalid('select', 'article', { columns: '*', filter: { _exists: { _table: 'author', _where: { title: { _eq: 'x' } } } } }, '"title" does not exist');
      await invalid('select', 'article', { columns: ['id', 'nope'], filter: {} }, 'column "nope" does not exist');
      await invalid(
        'select',
        'article',
        { columns: ['id', 'author'], filter: {} },
        'expecting a database column; but, "author" is a relationship; permissions for relationships are automatically inferred',
      );
      await invalid('select', 'article', { columns: '*', filter: {}, computed_fields: ['nope'] }, 'computed field "nope" does not exist');
      await invalid('select', 'article', { columns: '*', filter: {}, computed_fields: ['title'] }, 'expecting a computed field; but, "title" is a column');
      await invalid('select', 'article', { columns: '*', filter: {}, limit: -1 }, 'unexpected negative value');
    });

    it('checks operators against the column type, and values', async () => {
      await invalid('select', 'article', { columns: '*', filter: { id: { _foo: 1 } } }, 'Unknown operator: _foo');
      await invalid(
        'select',
        'article',
        { columns: '*', filter: { id: { _like: '%a' } } },
        ' is of type "integer"; this operator works only on columns of type "varchar", "text", "citext", "bpchar"',
      );
      await invalid('select', 'author', { columns: '*', filter: { name: { _has_key: 'a' } } }, ' is of type "text"; this operator works only on columns of type "jsonb"');
      await invalid('select', 'author', { columns: '*', filter: { name: { _contains: 'a' } } }, ' is of type "text"; this operator works only on columns of type an array or JSONB');
      await invalid('select', 'author', { columns: '*', filter: { meta: { _is_null: true } } }, 'JSON column can not be part of boolean expression');
      await invalid('select', 'article', { columns: '*', filter: { id: { _eq: 'abc' } } }, 'expected Number, but encountered String');
      await invalid('select', 'article', { columns: '*', filter: { id: 'abc' } }, 'expected Number, but encountered String');
      await invalid('select', 'article', { columns: '*', filter: { id: { _in: 3 } } }, 'expected Array, but encountered Number');
      await invalid('select', 'article', { columns: '*', filter: { id: { _is_null: 'yes' } } }, 'expected Boolean, but encountered String');
      await invalid('select', 'author', { columns: '*', filter: { name: { _cast: { String: { _eq: 'a' } } } } }, 'cannot cast column of type "text" to type "String"');
    });

    it('checks column comparison operators and their operand columns', async () => {
      await invalid('select', 'article', { columns: '*', filter: { id: { _ceq: 'nope' } } }, 'column "nope" does not exist');
      await invalid(
        'select',
        'article',
        { columns: '*', filter: { id: { _ceq: 'title' } } },
        'incompatible column types: "id" has type "integer", but "title" has type "text"',
      );
      await invalid(
        'select',
        'article',
        { columns: '*', filter: { id: { _ceq: 'author' } } },
        'expecting a database column; but, "author" is a relationship; column operators can only compare postgres columns',
      );
      await invalid('select', 'article', { columns: '*', filter: { id: { _ceq: [] } } }, 'path cannot be empty');
      await invalid('select', 'article', { columns: '*', filter: { id: { _ceq: ['author', 'id'] } } }, 'Relationship references are not supported in column comparison RHS');
      // `$` is the permission's own table: article.title is not a column of author.
      await invalid('select', 'article', { columns: '*', filter: { author: { name: { _ceq: ['$', 'nope'] } } } }, 'column "nope" does not exist');
    });

    it('checks presets, insert/update columns and checks', async () => {
      await invalid('insert', 'article', { check: {}, set: { nope: 1 } }, 'column "nope" does not exist');
      await invalid(
        'insert',
        'article',
        { check: {}, set: { author: 1 } },
        'expecting a database column; but, "author" is a relationship; column "author" not found in table "article"',
      );
      await invalid('insert', 'article', { check: {}, set: { rating: 'high' } }, 'expected Number, but encountered String');
      await invalid('insert', 'article', { check: {}, columns: ['author'] }, 'expecting a database column; but, "author" is a relationship; ');
      await invalid('insert', 'article', { check: { nope: 1 } }, '"nope" does not exist');
      await invalid('update', 'article', { columns: ['author'], filter: {} }, 'expecting a database column; but, "author" is a relationship; relationships can\'t be used in update');
      await invalid('update', 'article', { columns: ['title'], filter: {}, check: { nope: 1 } }, '"nope" does not exist');
      await invalid('delete', 'article', { filter: { _not: { nope: 1 } } }, '"nope" does not exist');
    });

    it('accepts the reference forms: $-operators, shorthand, session variables, _ceq with $, _exists', async () => {
      const ctx = await setup();
      const filter = {
        $or: [
          { author_id: 'X-SVC-USER-ID' },
          { author_id: { $eq: 'req_user_id' } },
          { id: { _in: 'x-svc-allowed-ids' } },
          { id: { _nin: [1, 2] } },
          { rating: { _gt: 3, _lte: 'x-svc-max' } },
          { title: { _ilike: '%a%', _neq: null } },
          { author: { name: { _ceq: ['$', 'title'] }, data: { _has_keys_any: ['a'], _contains: { a: 1 } }, tags: { _contains: ['x'] } } },
          { _exists: { _table: { schema: 'public', name: 'author' }, _where: { active: { _eq: true } } } },
          { _not: { published_on: { _is_null: true } } },
          { author: { data: { _cast: { text: { _like: '%x%' } } } } },
        ],
      };
      expect(await runOperation(hooks, ctx, 'pg_create_select_permission', { table: 'article', role: 'user', permission: { columns: '*', filter } })).to.deep.equal(OK);
    });
  });

  describe('drop and comment', () => {
    const withPermissions = (): TableMetadata[] => {
      const [a, b] = tracked();
      return [
        { ...a!, select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} }, comment: 'c' }] },
        { ...b!, update_permissions: [{ role: 'user', permission: { columns: ['title'], filter: {}, check: null } }] },
      ];
    };

    it('drops a permission, removing the emptied list', async () => {
      const ctx = await setup(withPermissions());
      expect(await runOperation(hooks, ctx, 'pg_drop_select_permission', { table: 'author', role: 'user' })).to.deep.equal(OK);
      expect(tableOf(ctx, 'author')).to.not.have.property('select_permissions');
    });

    it('refuses to drop a permission that is not defined', async () => {
      const ctx = await setup(withPermissions());
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_update_permission', { table: 'author', role: 'user' }),
        'bad-request',
        'update permission on "author" for role "user" does not exist',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_select_permission', { table: 'untracked', role: 'user' }),
        'not-exists',
        'table "untracked" does not exist in source: default',
      );
    });

    it('sets and removes a comment', async () => {
      const ctx = await setup(withPermissions());
      await runOperation(hooks, ctx, 'pg_set_permission_comment', { table: 'article', role: 'user', type: 'update', comment: 'mine' });
      expect(tableOf(ctx, 'article').update_permissions![0]!.comment).to.equal('mine');
      await runOperation(hooks, ctx, 'pg_set_permission_comment', { table: 'author', role: 'user', type: 'select', comment: null });
      expect(tableOf(ctx, 'author').select_permissions![0]).to.not.have.property('comment');
      await expectError(
        runOperation(hooks, ctx, 'pg_set_permission_comment', { table: 'author', role: 'user', type: 'insert', comment: 'x' }),
        'permission-denied',
        `'insert' permission on "author" for role "user" does not exist`,
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_set_permission_comment', { table: 'author', role: 'user', type: 'read' }),
        'parse-failed',
        'expected one of "insert", "select", "update", "delete", but encountered "read"',
        '$.args.type',
      );
    });
  });
});

describe('metadata/permissions and relationships plugins over HTTP (no socket, the memory kind)', () => {
  let engine: Awaited<ReturnType<typeof memoryKindEngine>>;
  before(async () => {
    engine = await memoryKindEngine(sourcesPlugin, tablesPlugin, relationshipsPlugin, permissionsPlugin);
    const setup = [
      { type: 'mem_add_source', args: { name: 'library', configuration: { file: memoryDataFile() } } },
      { type: 'mem_track_table', args: { source: 'library', table: 'author' } },
      { type: 'mem_track_table', args: { source: 'library', table: 'book' } },
    ];
    for (const op of setup) expect((await engine.admin(op)).status, op.type).to.equal(200);
  });
  after(() => engine?.dispose());

  it('creates a relationship and a permission that filters through it', async () => {
    const rel = await engine.admin({
      type: 'mem_create_object_relationship',
      args: { source: 'library', table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
    });
    expect(rel.body).to.deep.equal({ message: 'success' });
    const perm = await engine.admin({
      type: 'mem_create_select_permission',
      args: { source: 'library', table: 'book', role: 'reader', permission: { columns: ['id', 'title'], filter: { author: { name: { _eq: 'Ann' } } } } },
    });
    expect(perm.body).to.deep.equal({ message: 'success' });
    const book = engine.ref.current.sources.get('library')!.tables.get('public.book')!;
    expect(book.relationships.get('author')!.mapping).to.deep.equal([['author_id', 'id']]);
    expect(book.permissions.select.get('reader')!.columns).to.deep.equal(['id', 'title']);
  });

  it('refuses a permission on an unknown column, leaving the metadata as it was', async () => {
    const res = await engine.admin({
      type: 'mem_create_select_permission',
      args: { source: 'library', table: 'author', role: 'reader', permission: { columns: ['id', 'nope'], filter: {} } },
    });
    expect(res.status).to.equal(400);
    expect(engine.ref.current.sources.get('library')!.tables.get('public.author')!.permissions.select.has('reader')).to.equal(false);
  });
});
