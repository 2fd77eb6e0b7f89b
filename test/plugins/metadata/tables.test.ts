import { expect } from 'chai';
import tablesPlugin from '../../../plugins/metadata/tables/index.js';
import type { KernelHooks } from '../../../core/hooks.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import type { DatabaseCatalog } from '../../../core/db/catalog.js';
import { authorArticleCatalog, catalog, table } from '../../helpers/catalog.js';
import { expectEngineError as expectError } from '../../helpers/expect-error.js';
import { hooksWith, makeOperationContext, runOperation, type TestContextOptions } from '../../helpers/operation-context.js';
import sourcesPlugin from '../../../plugins/metadata/sources/index.js';
import { memoryDataFile, memoryKindEngine } from '../../helpers/memory-kind.js';

const pgConfig = { connection_info: { database_url: 'postgres://db/x' } };
const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

const doc = (tables: TableMetadata[], extraSources: MetadataDocument['sources'] = []): MetadataDocument => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: pgConfig }, ...extraSources],
});

function fullCatalog(): DatabaseCatalog {
  const c = authorArticleCatalog();
  c.tables.push(
    table('users address', { columns: ['id:int4'], pk: ['id'], pkName: 'users_address_pkey' }),
    table('bad', { columns: ['id:int4'], pk: ['id'], pkName: 'bad-pkey' }),
    table('color', { columns: ['value', 'comment'], pk: ['value'] }),
    table('t4', { schema: 'pub', columns: ['id:int4'], pk: ['id'] }),
  );
  return c;
}

describe('metadata/tables plugin', () => {
  let hooks: KernelHooks;
  before(async () => {
    hooks = await hooksWith(tablesPlugin);
  });

  const setup = (tables: TableMetadata[] = [], opts: TestContextOptions = {}) =>
    makeOperationContext({ draft: doc(tables), catalogs: { default: fullCatalog() }, enumRows: { 'public.color': [{ value: 'red' }] }, ...opts });

  describe('<prefix>_track_table', () => {
    it('tracks a table with its configuration', async () => {
      const ctx = await setup();
      const configuration = { custom_name: 'writer', custom_root_fields: { select_by_pk: 'writer_one' }, column_config: { name: { custom_name: 'full_name' } } };
      const result = await runOperation(hooks, ctx, 'pg_track_table', { table: 'author', configuration, gateway_federation_config: { enable: 'v1' } });
      expect(result).to.deep.equal({ body: { message: 'success' } });
      expect(ctx.changed).to.equal(true);
      expect(ctx.draft.sources[0]!.tables).to.deep.equal([{ table: author, configuration, apollo_federation_config: { enable: 'v1' } }]);
    });

    it('accepts {schema, name}, an explicit source, and the table name as the args', async () => {
      const ctx = await setup();
      await runOperation(hooks, ctx, 'pg_track_table', { source: 'default', table: { schema: 'pub', name: 't4' } });
      await runOperation(hooks, ctx, 'pg_track_table', { name: 'author' });
      expect(ctx.draft.sources[0]!.tables).to.deep.equal([{ table: { schema: 'pub', name: 't4' } }, { table: author }]);
    });

    it('refuses a tracked table, an unknown source and a table missing from the database', async () => {
      const ctx = await setup([{ table: author }]);
      await expectError(runOperation(hooks, ctx, 'pg_track_table', { table: 'author' }), 'already-tracked', 'view/table already tracked: "author"');
      await expectError(runOperation(hooks, ctx, 'pg_track_table', { table: 'author', source: 'x' }), 'not-exists', 'source with name "x" does not exist');
      const err = await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: { schema: 'pub', name: 'nope' } }),
        'invalid-configuration',
        'Inconsistent object: no such table/view exists in source: "pub.nope"',
      );
      expect(err.internal).to.deep.equal([
        {
          type: 'table',
          name: 'table pub.nope in source default',
          definition: { schema: 'pub', name: 'nope' },
          reason: 'Inconsistent object: no such table/view exists in source: "pub.nope"',
        },
      ]);
      await expectError(runOperation(hooks, ctx, 'pg_track_table', {}), 'parse-failed', 'key "table" not found');
      await expectError(runOperation(hooks, ctx, 'pg_track_table', { table: 3 }), 'parse-failed', 'expecting a string/object for QualifiedObject', '$.args.table');
    });

    it('refuses a table of a source of another kind', async () => {
      const ctx = await setup();
      await expectError(
        runOperation(hooks, ctx, 'sqlb_track_table', { table: 'author' }),
        'not-exists',
        'source with name "default" has backend type "postgres" which does not match the expected type mssql',
      );
    });

    it('needs GraphQL-compliant names: the table (or its custom_name) and its constraints', async () => {
      const ctx = await setup();
      await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: 'users address' }),
        'validation-failed',
        'cannot include "users address" in the GraphQL schema because "users address" is not a valid GraphQL identifier',
      );
      await runOperation(hooks, ctx, 'pg_track_table', { table: 'users address', configuration: { custom_name: 'users_address' } });
      expect(ctx.draft.sources[0]!.tables).to.have.length(1);
      await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: 'bad' }),
        'validation-failed',
        'cannot include "bad-pkey" in the GraphQL schema because it is not a valid GraphQL identifier',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: 'author', configuration: { custom_root_fields: { select: 'all authors' } } }),
        'parse-failed',
        '"all authors" is not a valid GraphQL name',
        '$.args.configuration.custom_root_fields.select',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: 'author', configuration: { custom_root_fields: { select: 'a', insert: 'a' } } }),
        'parse-failed',
        'the following custom root field names are duplicated: "a"',
        '$.args.configuration.custom_root_fields',
      );
    });

    it('refuses a table named like a tracked function or an existing root field', async () => {
      const ctx = await makeOperationContext({
        draft: {
          version: 3,
          sources: [
            { name: 'default', kind: 'postgres', tables: [], functions: [{ function: { schema: 'public', name: 'article' } }], configuration: pgConfig },
            { name: 'other', kind: 'postgres', tables: [{ table: author }], configuration: pgConfig },
          ],
        },
        catalogs: { default: fullCatalog(), other: fullCatalog() },
      });
      await expectError(runOperation(hooks, ctx, 'pg_track_table', { table: 'article' }), 'not-supported', 'function with name "article" already exists');
      await expectError(runOperation(hooks, ctx, 'pg_track_table', { table: 'author' }), 'remote-schema-conflicts', 'node author already exists in current graphql schema');
    });

    it('fails with the inconsistency when the new table clashes or is a bad enum', async () => {
      const ctx = await setup([{ table: author }]);
      await expectError(
        runOperation(hooks, ctx, 'pg_track_table', { table: 'article', configuration: { custom_root_fields: { select_aggregate: 'author_aggregate' } } }),
        'invalid-configuration',
        "Inconsistent object: Encountered conflicting definitions in the selection set for 'query_root' for field 'author_aggregate' defined in [table author in source default, table article in source default]. Fields must not be defined more than once across all sources.",
      );
      const enumCtx = await setup([], { enumRows: { 'public.color': [] } });
      await expectError(
        runOperation(hooks, enumCtx, 'pg_track_table', { table: 'color', is_enum: true }),
        'invalid-configuration',
        'Inconsistent object: the table "color" cannot be used as an enum because the table must have at least one row',
      );
    });
  });

  describe('<prefix>_untrack_table', () => {
    const related = (): TableMetadata[] => [
      { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
      {
        table: article,
        object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
        select_permissions: [{ role: 'user', permission: { columns: '*', filter: { author: { name: { _eq: 'x' } } } } }],
        update_permissions: [{ role: 'user', permission: { columns: '*', filter: { id: { _gt: 0 } } } }],
      },
    ];

    it('untracks a table', async () => {
      const ctx = await setup([{ table: author }]);
      expect(await runOperation(hooks, ctx, 'pg_untrack_table', { table: 'author' })).to.deep.equal({ body: { message: 'success' } });
      expect(ctx.draft.sources[0]!.tables).to.deep.equal([]);
      await expectError(runOperation(hooks, ctx, 'pg_untrack_table', { table: 'author' }), 'already-untracked', 'view/table already untracked: "author"');
    });

    it('lists dependents without cascade and removes them with it', async () => {
      const ctx = await setup(related());
      await expectError(
        runOperation(hooks, ctx, 'pg_untrack_table', { table: 'author' }),
        'dependency-error',
        'cannot drop due to the following dependent objects: relationship article.author in source "default", permission article.user.select in source "default"',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_untrack_table', { table: 'article' }),
        'dependency-error',
        'cannot drop due to the following dependent objects: relationship author.articles in source "default"',
      );
      expect(ctx.changed).to.equal(false);
      await runOperation(hooks, ctx, 'pg_untrack_table', { table: 'author', cascade: true });
      expect(ctx.draft.sources[0]!.tables).to.deep.equal([
        { table: article, update_permissions: [{ role: 'user', permission: { columns: '*', filter: { id: { _gt: 0 } } } }] },
      ]);
    });
  });

  describe('<prefix>_set_table_customization', () => {
    it('replaces the configuration', async () => {
      const ctx = await setup([{ table: author, configuration: { custom_name: 'writer', comment: 'c' } }]);
      await runOperation(hooks, ctx, 'pg_set_table_customization', { table: 'author', configuration: { custom_root_fields: { select: 'writers' } } });
      expect(ctx.draft.sources[0]!.tables[0]).to.deep.equal({ table: author, configuration: { custom_root_fields: { select: 'writers' } } });
      await runOperation(hooks, ctx, 'pg_set_table_customization', { table: 'author', configuration: {} });
      expect(ctx.draft.sources[0]!.tables[0]).to.deep.equal({ table: author });
    });

    it('refuses an untracked table, a missing configuration and a clashing result', async () => {
      const ctx = await setup([{ table: author }, { table: article }]);
      await expectError(
        runOperation(hooks, ctx, 'pg_set_table_customization', { table: 'color', configuration: {} }),
        'not-exists',
        'table "color" does not exist in source: default',
      );
      await expectError(runOperation(hooks, ctx, 'pg_set_table_customization', { table: 'author' }), 'parse-failed', 'key "configuration" not found');
      await expectError(
        runOperation(hooks, ctx, 'pg_set_table_customization', { table: 'article', configuration: { column_config: { nope: { custom_name: 'x' } } } }),
        'invalid-configuration',
        'Inconsistent object: configuration was given for the column "nope", but no such column exists',
      );
    });
  });

  describe('pg_set_table_is_enum', () => {
    it('sets and clears is_enum, validating the enum shape', async () => {
      const ctx = await setup([{ table: { schema: 'public', name: 'color' } }, { table: author }]);
      await runOperation(hooks, ctx, 'pg_set_table_is_enum', { table: 'color', is_enum: true });
      expect(ctx.draft.sources[0]!.tables[0]!.is_enum).to.equal(true);
      await runOperation(hooks, ctx, 'pg_set_table_is_enum', { table: 'color', is_enum: false });
      expect(ctx.draft.sources[0]!.tables[0]).to.not.have.property('is_enum');
      await expectError(
        runOperation(hooks, ctx, 'pg_set_table_is_enum', { table: 'author', is_enum: true }),
        'invalid-configuration',
        'Inconsistent object: the table "author" cannot be used as an enum for the following reasons:\n' +
          '  • the table’s primary key ("id") must have type "text", not type "integer"\n' +
          '  • the table must have exactly one primary key and optionally one comment column, not 3 columns (bio, id, name)\n',
      );
      await expectError(runOperation(hooks, ctx, 'pg_set_table_is_enum', { table: 'color' }), 'parse-failed', 'key "is_enum" not found');
    });
  });

  describe('<prefix>_set_gateway_federation_config', () => {
    it('stores the setting under the exported key and clears it with null', async () => {
      const ctx = await setup([{ table: author }]);
      await runOperation(hooks, ctx, 'pg_set_gateway_federation_config', { table: 'author', gateway_federation_config: { enable: 'v1' } });
      expect(ctx.draft.sources[0]!.tables[0]!.apollo_federation_config).to.deep.equal({ enable: 'v1' });
      await runOperation(hooks, ctx, 'pg_set_gateway_federation_config', { table: 'author', gateway_federation_config: null });
      expect(ctx.draft.sources[0]!.tables[0]).to.deep.equal({ table: author });
      await expectError(
        runOperation(hooks, ctx, 'pg_set_gateway_federation_config', { table: 'author', gateway_federation_config: { enable: 'v2' } }),
        'parse-failed',
        'enable takes the version of gateway federation. Supported value is v1 only.',
        '$.args.gateway_federation_config.enable',
      );
    });
  });

  describe('legacy /v1/query forms', () => {
    const legacy = (tables: TableMetadata[] = []) => setup(tables, { endpoint: 'query' });

    it('track_table takes a table name, {table, is_enum}, or version 2 {table, configuration}', async () => {
      const ctx = await legacy();
      await runOperation(hooks, ctx, 'track_table', 'author');
      await runOperation(hooks, ctx, 'track_table', { schema: 'public', name: 'article' });
      await runOperation(hooks, ctx, 'track_table', { table: 'color', is_enum: true });
      await runOperation(hooks, ctx, 'track_table', { table: { schema: 'pub', name: 't4' }, configuration: { custom_name: 't_four' } }, 2);
      expect(ctx.draft.sources[0]!.tables).to.deep.equal([
        { table: author },
        { table: article },
        { table: { schema: 'public', name: 'color' }, is_enum: true },
        { table: { schema: 'pub', name: 't4' }, configuration: { custom_name: 't_four' } },
      ]);
      await expectError(runOperation(hooks, ctx, 'track_table', { name: 'author' }), 'already-tracked', 'view/table already tracked: "author"');
    });

    it('untrack_table, set_table_customization and set_table_is_enum act on the default source', async () => {
      const ctx = await legacy([{ table: author }, { table: { schema: 'public', name: 'color' } }]);
      await runOperation(hooks, ctx, 'set_table_customization', { table: 'author', configuration: { custom_name: 'writer' } });
      expect(ctx.draft.sources[0]!.tables[0]!.configuration).to.deep.equal({ custom_name: 'writer' });
      await runOperation(hooks, ctx, 'set_table_is_enum', { table: 'color', is_enum: true });
      expect(ctx.draft.sources[0]!.tables[1]!.is_enum).to.equal(true);
      await runOperation(hooks, ctx, 'untrack_table', { table: 'author' });
      expect(ctx.draft.sources[0]!.tables.map((t) => t.table.name)).to.deep.equal(['color']);
    });

    it('set_table_custom_fields replaces the configuration with root fields and column names', async () => {
      const ctx = await legacy([{ table: author, configuration: { custom_name: 'writer' } }]);
      await runOperation(hooks, ctx, 'set_table_custom_fields', {
        table: 'author',
        custom_root_fields: { select: 'writers' },
        custom_column_names: { name: 'full_name' },
      });
      expect(ctx.draft.sources[0]!.tables[0]!.configuration).to.deep.equal({
        custom_root_fields: { select: 'writers' },
        column_config: { name: { custom_name: 'full_name' } },
      });
      await expectError(
        runOperation(hooks, ctx, 'set_table_custom_fields', { table: 'author', custom_column_names: { name: 'full name' } }),
        'parse-failed',
        '"full name" is not a valid GraphQL name',
        '$.args.custom_column_names.name',
      );
    });

    it('legacy forms do not answer on /v1/metadata, nor prefixed forms on /v1/query', async () => {
      const metadata = await setup();
      for (const type of ['track_table', 'untrack_table', 'set_table_custom_fields', 'set_table_customization', 'set_table_is_enum']) {
        expect(await runOperation(hooks, metadata, type, { table: 'author' }), type).to.equal(undefined);
      }
      const query = await legacy();
      expect(await runOperation(hooks, query, 'pg_track_table', { table: 'author' })).to.equal(undefined);
      expect(metadata.changed || query.changed).to.equal(false);
    });
  });

  it('registers every prefix', async () => {
    for (const prefix of ['pg', 'sqlb', 'dist', 'wh']) {
      for (const op of ['track_table', 'untrack_table', 'set_table_customization', 'set_gateway_federation_config']) {
        expect(hooks.onMetadataOperation.get(`${prefix}_${op}`), `${prefix}_${op}`).to.not.equal(undefined);
      }
    }
    expect(hooks.onMetadataOperation.get('pg_set_table_is_enum')).to.not.equal(undefined);
  });

  it('keeps unrelated sources untouched', async () => {
    const ctx = await makeOperationContext({
      draft: doc([], [{ name: 'other', kind: 'postgres', tables: [], configuration: pgConfig }]),
      catalogs: { default: fullCatalog(), other: catalog(table('x', { columns: ['id:int4'] })) },
    });
    await runOperation(hooks, ctx, 'pg_track_table', { table: 'x', source: 'other' });
    expect(ctx.draft.sources[1]!.tables).to.deep.equal([{ table: { schema: 'public', name: 'x' } }]);
    expect(ctx.draft.sources[0]!.tables).to.deep.equal([]);
  });
});

describe('metadata/tables plugin over HTTP (no socket, the memory kind)', () => {
  let engine: Awaited<ReturnType<typeof memoryKindEngine>>;
  before(async () => {
    engine = await memoryKindEngine(sourcesPlugin, tablesPlugin);
    const res = await engine.admin({ type: 'mem_add_source', args: { name: 'library', configuration: { file: memoryDataFile() } } });
    expect(res.status).to.equal(200);
  });
  after(() => engine?.dispose());

  it('tracks tables through <prefix>_track_table and refuses one the source does not have', async () => {
    expect((await engine.admin({ type: 'mem_track_table', args: { source: 'library', table: 'author' } })).body).to.deep.equal({ message: 'success' });
    const missing = await engine.admin({ type: 'mem_track_table', args: { source: 'library', table: 'nope' } });
    expect(missing.status).to.equal(400);
    expect(missing.body.code).to.equal('invalid-configuration');
    expect(engine.ref.current.sources.get('library')!.tables.has('public.author')).to.equal(true);
    expect(engine.ref.current.sources.get('library')!.tables.size).to.equal(1);
  });

  it('has no prefixed operations for the kinds that are not loaded', async () => {
    const res = await engine.admin({ type: 'pg_track_table', args: { source: 'library', table: 'author' } });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.match(/unknown operation type/);
  });
});
