import { expect } from 'chai';
import relationshipsPlugin from '../../../plugins/metadata/relationships/index.js';
import type { KernelHooks } from '../../../core/hooks.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';
import { expectEngineError as expectError } from '../../helpers/expect-error.js';
import { hooksWith, makeOperationContext, runOperation, type TestContextOptions } from '../../helpers/operation-context.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

const doc = (tables: TableMetadata[]): MetadataDocument => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: { connection_info: { database_url: 'postgres://db/x' } } }],
});

const fkArticles = { foreign_key_constraint_on: { table: 'article', column: 'author_id' } };

describe('metadata/relationships plugin', () => {
  let hooks: KernelHooks;
  before(async () => {
    hooks = await hooksWith(relationshipsPlugin);
  });

  const setup = (tables: TableMetadata[] = [{ table: author }, { table: article }], opts: TestContextOptions = {}) =>
    makeOperationContext({ draft: doc(tables), catalogs: { default: authorArticleCatalog() }, ...opts });
  const tablesOf = (ctx: { draft: MetadataDocument }) => ctx.draft.sources[0]!.tables;

  describe('pg_create_object_relationship / pg_create_array_relationship', () => {
    it('creates relationships with every using form', async () => {
      const ctx = await setup();
      const ok = { body: { message: 'success' } };
      expect(await runOperation(hooks, ctx, 'pg_create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } })).to.deep.equal(ok);
      await runOperation(hooks, ctx, 'pg_create_object_relationship', { table: 'article', name: 'author2', using: { foreign_key_constraint_on: ['author_id'] }, comment: 'by columns' });
      await runOperation(hooks, ctx, 'pg_create_object_relationship', {
        table: 'article',
        name: 'author3',
        using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } },
      });
      await runOperation(hooks, ctx, 'pg_create_array_relationship', { table: 'author', name: 'articles', using: fkArticles });
      await runOperation(hooks, ctx, 'pg_create_array_relationship', {
        table: { schema: 'public', name: 'author' },
        name: 'articles2',
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, columns: ['author_id'] } },
      });
      expect(ctx.changed).to.equal(true);
      expect(tablesOf(ctx)[1]!.object_relationships).to.deep.equal([
        { name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
        { name: 'author2', using: { foreign_key_constraint_on: ['author_id'] }, comment: 'by columns' },
        { name: 'author3', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } },
      ]);
      expect(tablesOf(ctx)[0]!.array_relationships!.map((r) => r.name)).to.deep.equal(['articles', 'articles2']);
    });

    it('refuses a name taken by a column or a relationship, or not a GraphQL name', async () => {
      const ctx = await setup([{ table: author, array_relationships: [{ name: 'articles', using: fkArticles }] }, { table: article }]);
      await expectError(
        runOperation(hooks, ctx, 'pg_create_array_relationship', { table: 'author', name: 'name', using: fkArticles }),
        'already-exists',
        'field with name "name" already exists in table "author"',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_create_array_relationship', { table: 'author', name: 'articles', using: fkArticles }),
        'already-exists',
        'field with name "articles" already exists in table "author"',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_create_array_relationship', { table: 'author', name: 'my articles', using: fkArticles }),
        'validation-failed',
        'cannot include "my articles" in the GraphQL schema because it is not a valid GraphQL identifier',
        '$.args.name',
      );
      expect(ctx.changed).to.equal(false);
    });

    it('reports parse errors at the offending key', async () => {
      const ctx = await setup();
      const create = (args: unknown, type = 'pg_create_object_relationship') => runOperation(hooks, ctx, type, args);
      await expectError(create({ name: 'a', using: {} }), 'parse-failed', 'key "table" not found');
      await expectError(create({ table: 'article', using: {} }), 'parse-failed', 'key "name" not found');
      await expectError(create({ table: 'article', name: 'a' }), 'parse-failed', 'key "using" not found');
      await expectError(
        create({ table: 'article', name: 'a', using: {} }),
        'parse-failed',
        'atleast one of foreign_key_constraint_on/manual_configuration should be present',
        '$.args.using',
      );
      await expectError(
        create({ table: 'article', name: 'a', using: { foreign_key_constraint_on: 'author_id', manual_configuration: {} } }),
        'parse-failed',
        'only one of foreign_key_constraint_on/manual_configuration should be present',
        '$.args.using',
      );
      await expectError(
        create({ table: 'article', name: 'a', using: { foreign_key_constraint_on: { table: 'author' } } }),
        'parse-failed',
        "expected exactly one of 'column' or 'columns'",
        '$.args.using.foreign_key_constraint_on',
      );
      await expectError(
        create({ table: 'author', name: 'a', using: { foreign_key_constraint_on: 'author_id' } }, 'pg_create_array_relationship'),
        'parse-failed',
        'Expecting object { table, columns }.',
        '$.args.using.foreign_key_constraint_on',
      );
      await expectError(
        create({ table: 'article', name: 'a', using: { manual_configuration: { remote_table: 'author' } } }),
        'parse-failed',
        'key "column_mapping" not found',
        '$.args.using.manual_configuration',
      );
      await expectError(create({ table: 'article', name: '', using: {} }), 'parse-failed', 'empty string not allowed', '$.args.name');
    });

    it('refuses an untracked table', async () => {
      const ctx = await setup([{ table: author }]);
      await expectError(
        runOperation(hooks, ctx, 'pg_create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } }),
        'not-exists',
        'table "article" does not exist in source: default',
      );
    });

    it('fails with the relationship inconsistency when it cannot be resolved', async () => {
      const ctx = await setup();
      const err = await expectError(
        runOperation(hooks, ctx, 'pg_create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'published_on' } }),
        'invalid-configuration',
        'Inconsistent object: in table "article": in relationship "author": no foreign constraint exists on the given column(s)',
      );
      expect((err.internal as Array<{ type: string; name: string }>).map((o) => [o.type, o.name])).to.deep.equal([
        ['object_relation', 'object_relation author in table article in source default'],
      ]);
      await expectError(
        runOperation(hooks, ctx, 'pg_create_array_relationship', {
          table: 'author',
          name: 'articles',
          using: { manual_configuration: { remote_table: 'article', column_mapping: { id: 'nope' } } },
        }),
        'invalid-configuration',
        'Inconsistent object: table "article" has no field named "nope"',
      );
      const lonely = await setup([{ table: article }]);
      await expectError(
        runOperation(hooks, lonely, 'pg_create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } }),
        'invalid-configuration',
        'Inconsistent object: table "author" is not tracked',
      );
    });
  });

  const withPermissions = (): TableMetadata[] => [
    {
      table: author,
      array_relationships: [{ name: 'articles', using: fkArticles }],
      select_permissions: [{ role: 'user', permission: { columns: '*', filter: { articles: { author: { id: { _eq: 'X-Svc-User-Id' } } } } } }],
      insert_permissions: [{ role: 'user', permission: { columns: '*', check: { id: { _eq: 1 } } } }],
    },
    {
      table: article,
      object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      update_permissions: [
        {
          role: 'editor',
          permission: { columns: ['title'], filter: { _or: [{ id: { _eq: 1 } }, { author: { name: { _eq: 'x' } } }] } },
        },
      ],
      delete_permissions: [{ role: 'editor', permission: { filter: { _exists: { _table: 'author', _where: { id: { _eq: 1 } } } } } }],
    },
  ];

  describe('pg_drop_relationship', () => {
    it('drops a relationship', async () => {
      const ctx = await setup([{ table: author, array_relationships: [{ name: 'articles', using: fkArticles }] }, { table: article }]);
      await runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'author', relationship: 'articles' });
      expect(tablesOf(ctx)[0]).to.deep.equal({ table: author });
    });

    it('refuses a missing relationship and a column', async () => {
      const ctx = await setup();
      await expectError(runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'author', relationship: 'nope' }), 'not-exists', 'relationship "nope" does not exist');
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'author', relationship: 'name' }),
        'unexpected-payload',
        'expecting a relationship; but, "name" is a postgres column; ',
      );
      await expectError(runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'author' }), 'parse-failed', 'key "relationship" not found');
    });

    it('lists permissions traversing it without cascade and drops them with it', async () => {
      const ctx = await setup(withPermissions());
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'article', relationship: 'author' }),
        'dependency-error',
        'cannot drop due to the following dependent objects: permission author.user.select in source "default", permission article.editor.update in source "default"',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'author', relationship: 'articles' }),
        'dependency-error',
        'cannot drop due to the following dependent objects: permission author.user.select in source "default"',
      );
      expect(ctx.changed).to.equal(false);
      await runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'article', relationship: 'author', cascade: true });
      const [a, b] = tablesOf(ctx);
      expect(a!.select_permissions).to.equal(undefined);
      expect(a!.insert_permissions).to.have.length(1);
      expect(b!.object_relationships).to.equal(undefined);
      expect(b!.update_permissions).to.equal(undefined);
      expect(b!.delete_permissions).to.have.length(1);
    });
  });

  describe('pg_set_relationship_comment', () => {
    it('sets and removes a comment, naming the relationship by `relationship` or `name`', async () => {
      const ctx = await setup([{ table: author, array_relationships: [{ name: 'articles', using: fkArticles }] }, { table: article }]);
      await runOperation(hooks, ctx, 'pg_set_relationship_comment', { table: 'author', relationship: 'articles', comment: 'all of them' });
      expect(tablesOf(ctx)[0]!.array_relationships![0]!.comment).to.equal('all of them');
      await runOperation(hooks, ctx, 'pg_set_relationship_comment', { table: 'author', name: 'articles', comment: null });
      expect(tablesOf(ctx)[0]!.array_relationships![0]).to.not.have.property('comment');
      await expectError(
        runOperation(hooks, ctx, 'pg_set_relationship_comment', { table: 'author', relationship: 'nope', comment: 'x' }),
        'not-exists',
        'relationship "nope" does not exist',
      );
    });
  });

  describe('pg_rename_relationship', () => {
    it('renames and rewrites the permission filters that use it', async () => {
      const ctx = await setup(withPermissions());
      await runOperation(hooks, ctx, 'pg_rename_relationship', { table: 'article', name: 'author', new_name: 'writer' });
      const [a, b] = tablesOf(ctx);
      expect(b!.object_relationships![0]!.name).to.equal('writer');
      expect(a!.select_permissions![0]!.permission.filter).to.deep.equal({ articles: { writer: { id: { _eq: 'X-Svc-User-Id' } } } });
      expect(b!.update_permissions![0]!.permission.filter).to.deep.equal({ _or: [{ id: { _eq: 1 } }, { writer: { name: { _eq: 'x' } } }] });
    });

    it('refuses a taken name and a missing relationship', async () => {
      const ctx = await setup(withPermissions());
      await expectError(
        runOperation(hooks, ctx, 'pg_rename_relationship', { table: 'article', name: 'author', new_name: 'title' }),
        'already-exists',
        'cannot rename relationship "author" to "title" in table "article" as a column/relationship with the name already exists',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_rename_relationship', { table: 'article', name: 'nope', new_name: 'x' }),
        'not-exists',
        'relationship "nope" does not exist',
      );
      await expectError(runOperation(hooks, ctx, 'pg_rename_relationship', { table: 'article', name: 'author' }), 'parse-failed', 'key "new_name" not found');
    });
  });

  describe('legacy /v1/query forms', () => {
    it('answer on /v1/query only, on the default source', async () => {
      const ctx = await setup(undefined, { endpoint: 'query' });
      await runOperation(hooks, ctx, 'create_object_relationship', { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } });
      await runOperation(hooks, ctx, 'create_array_relationship', { table: 'author', name: 'articles', using: fkArticles });
      await runOperation(hooks, ctx, 'set_relationship_comment', { table: 'author', relationship: 'articles', comment: 'c' });
      await runOperation(hooks, ctx, 'rename_relationship', { table: 'article', name: 'author', new_name: 'writer' });
      await runOperation(hooks, ctx, 'drop_relationship', { table: 'author', relationship: 'articles' });
      expect(tablesOf(ctx)).to.deep.equal([
        { table: author },
        { table: article, object_relationships: [{ name: 'writer', using: { foreign_key_constraint_on: 'author_id' } }] },
      ]);
      expect(await runOperation(hooks, ctx, 'pg_drop_relationship', { table: 'article', relationship: 'writer' })).to.equal(undefined);
      const metadata = await setup();
      for (const type of ['create_object_relationship', 'create_array_relationship', 'drop_relationship', 'set_relationship_comment', 'rename_relationship']) {
        expect(await runOperation(hooks, metadata, type, { table: 'author' }), type).to.equal(undefined);
      }
    });
  });
});
