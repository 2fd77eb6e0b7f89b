import { expect } from 'chai';
import sourcesPlugin from '../../../plugins/metadata/sources/index.js';
import { EngineError } from '../../../core/errors.js';
import type { KernelHooks } from '../../../core/hooks.js';
import type { MetadataDocument, SourceMetadata } from '../../../core/metadata/types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';
import { hooksWith, makeOperationContext, runOperation, type TestContextOptions } from '../../helpers/operation-context.js';
import { expectEngineError } from '../../helpers/expect-error.js';
import managementPlugin from '../../../plugins/metadata/management/index.js';
import { memoryDataFile, memoryKindEngine } from '../../helpers/memory-kind.js';

const pgConfig = { connection_info: { database_url: 'postgres://db/x' } };

const defaultSource = (extra: Partial<SourceMetadata> = {}): SourceMetadata => ({
  name: 'default',
  kind: 'postgres',
  tables: [{ table: { schema: 'public', name: 'author' } }],
  configuration: pgConfig,
  ...extra,
});

const expectError = expectEngineError;

describe('metadata/sources plugin', () => {
  let hooks: KernelHooks;
  before(async () => {
    hooks = await hooksWith(sourcesPlugin);
  });

  const setup = (opts: TestContextOptions = {}) =>
    makeOperationContext({ draft: { version: 3, sources: [defaultSource()] }, catalogs: { default: authorArticleCatalog() }, ...opts });

  describe('<prefix>_add_source', () => {
    it('adds a source of the prefix kind', async () => {
      const ctx = await setup({ catalogs: { default: authorArticleCatalog(), other: authorArticleCatalog() } });
      const customization = { root_fields: { namespace: 'other_ns', prefix: 'o_' }, type_names: { suffix: '_o' }, naming_convention: 'graphql-default' };
      const result = await runOperation(hooks, ctx, 'pg_add_source', { name: 'other', configuration: pgConfig, customization });
      expect(result).to.deep.equal({ body: { message: 'success' } });
      expect(ctx.changed).to.equal(true);
      expect(ctx.draft.sources[1]).to.deep.equal({ name: 'other', kind: 'postgres', tables: [], configuration: pgConfig, customization });
    });

    it('stores the kind name of each prefix', async () => {
      for (const [prefix, kind] of [['sqlb', 'mssql'], ['dist', 'citus'], ['wh', 'bigquery']] as const) {
        const ctx = await setup({ catalogs: { default: authorArticleCatalog(), s: authorArticleCatalog() } });
        await runOperation(hooks, ctx, `${prefix}_add_source`, { name: 's', configuration: pgConfig });
        expect(ctx.draft.sources[1]!.kind).to.equal(kind);
      }
    });

    it('refuses an existing name unless replace_configuration is set', async () => {
      const ctx = await setup();
      await expectError(runOperation(hooks, ctx, 'pg_add_source', { name: 'default', configuration: pgConfig }), 'already-exists', 'source with name "default" already exists');
      const other = { connection_info: { database_url: 'postgres://db/y' } };
      const replaced = await setup({ draft: { version: 3, sources: [defaultSource({ customization: { type_names: { prefix: 'x_' } } })] } });
      await runOperation(hooks, replaced, 'pg_add_source', { name: 'default', configuration: other, replace_configuration: true });
      expect(replaced.draft.sources[0]!.configuration).to.deep.equal(other);
      expect(replaced.draft.sources[0]!.customization).to.equal(undefined);
      expect(replaced.draft.sources[0]!.tables).to.have.length(1);
    });

    it('reports missing and malformed arguments', async () => {
      const ctx = await setup();
      await expectError(runOperation(hooks, ctx, 'pg_add_source', { configuration: pgConfig }), 'parse-failed', 'key "name" not found');
      await expectError(runOperation(hooks, ctx, 'pg_add_source', { name: 'x' }), 'parse-failed', 'key "configuration" not found');
      await expectError(runOperation(hooks, ctx, 'pg_add_source', { name: 1, configuration: pgConfig }), 'parse-failed', 'expected String, but encountered Number', '$.args.name');
      await expectError(
        runOperation(hooks, ctx, 'pg_add_source', { name: 'x', configuration: {} }),
        'parse-failed',
        'key "connection_info" not found',
        '$.args.configuration',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_add_source', { name: 'x', configuration: pgConfig, customization: { naming_convention: 'kebab' } }),
        'parse-failed',
        'naming_convention can either be "svc-default" or "graphql-default"',
        '$.args.customization.naming_convention',
      );
      await expectError(
        runOperation(hooks, ctx, 'pg_add_source', { name: 'x', configuration: pgConfig, customization: { root_fields: { prefix: 'a b' } } }),
        'parse-failed',
        '"a b" is not a valid GraphQL name',
        '$.args.customization.root_fields.prefix',
      );
      expect(ctx.changed).to.equal(false);
    });

    it('passes on the kind plugin error for an unserved prefix', async () => {
      const ctx = await setup();
      ctx.dbKind = () => {
        throw new EngineError('not-supported', 'no database kind plugin serves "wh"; loaded kinds: postgres (pg_)');
      };
      await expectError(
        runOperation(hooks, ctx, 'wh_add_source', { name: 'x', configuration: pgConfig }),
        'not-supported',
        'no database kind plugin serves "wh"; loaded kinds: postgres (pg_)',
        '$',
      );
    });

    it('fails with the source inconsistency when the database cannot be used', async () => {
      const ctx = await setup();
      const err = await expectError(
        runOperation(hooks, ctx, 'pg_add_source', { name: 'broken', configuration: pgConfig }),
        'invalid-configuration',
        'Inconsistent object: connection to the source failed',
      );
      expect((err.internal as Array<{ name: string }>)[0]!.name).to.equal('source broken');
    });
  });

  describe('<prefix>_update_source', () => {
    it('changes only the given keys', async () => {
      const customization = { root_fields: { prefix: 'p_' } };
      const ctx = await setup({ draft: { version: 3, sources: [defaultSource({ customization })] } });
      const other = { connection_info: { database_url: 'postgres://db/y' } };
      await runOperation(hooks, ctx, 'pg_update_source', { name: 'default', configuration: other });
      expect(ctx.draft.sources[0]!.configuration).to.deep.equal(other);
      expect(ctx.draft.sources[0]!.customization).to.deep.equal(customization);
      await runOperation(hooks, ctx, 'pg_update_source', { name: 'default', customization: { type_names: { prefix: 't_' } } });
      expect(ctx.draft.sources[0]!.configuration).to.deep.equal(other);
      expect(ctx.draft.sources[0]!.customization).to.deep.equal({ type_names: { prefix: 't_' } });
      expect(ctx.changed).to.equal(true);
    });

    it('refuses an unknown source and one of another kind', async () => {
      const ctx = await setup();
      await expectError(runOperation(hooks, ctx, 'pg_update_source', { name: 'nope' }), 'not-exists', 'source with name "nope" does not exist');
      await expectError(
        runOperation(hooks, ctx, 'sqlb_update_source', { name: 'default' }),
        'not-exists',
        'source with name "default" has backend type "postgres" which does not match the expected type mssql',
      );
    });
  });

  describe('<prefix>_drop_source', () => {
    const withRemote = (): MetadataDocument => ({
      version: 3,
      sources: [
        defaultSource(),
        {
          name: 'other',
          kind: 'postgres',
          configuration: pgConfig,
          tables: [
            {
              table: { schema: 'public', name: 'author' },
              remote_relationships: [
                { name: 'twin', definition: { to_source: { source: 'default', table: 'author', relationship_type: 'object', field_mapping: { id: 'id' } } } },
              ],
            },
          ],
        },
      ],
    });

    it('drops a source with its tables', async () => {
      const ctx = await setup();
      const result = await runOperation(hooks, ctx, 'pg_drop_source', { name: 'default' });
      expect(result).to.deep.equal({ body: { message: 'success' } });
      expect(ctx.draft.sources).to.deep.equal([]);
      expect(ctx.changed).to.equal(true);
    });

    it('refuses an unknown source', async () => {
      const ctx = await setup();
      await expectError(runOperation(hooks, ctx, 'pg_drop_source', { name: 'nope' }), 'not-exists', 'source with name "nope" does not exist');
    });

    it('needs cascade when other sources depend on it, and then removes the dependents', async () => {
      const ctx = await setup({ draft: withRemote(), catalogs: { default: authorArticleCatalog(), other: authorArticleCatalog() } });
      await expectError(
        runOperation(hooks, ctx, 'pg_drop_source', { name: 'default' }),
        'dependency-error',
        'cannot drop due to the following dependent objects: remote relationship author.twin in source "other"',
      );
      expect(ctx.draft.sources).to.have.length(2);
      await runOperation(hooks, ctx, 'pg_drop_source', { name: 'default', cascade: true });
      expect(ctx.draft.sources.map((s) => s.name)).to.deep.equal(['other']);
      expect(ctx.draft.sources[0]!.tables[0]!.remote_relationships).to.equal(undefined);
    });

    it('drops a source whose tables only point at other sources, without cascade', async () => {
      const doc = withRemote();
      const ctx = await setup({ draft: doc, catalogs: { default: authorArticleCatalog(), other: authorArticleCatalog() } });
      await runOperation(hooks, ctx, 'pg_drop_source', { name: 'other' });
      expect(ctx.draft.sources.map((s) => s.name)).to.deep.equal(['default']);
    });
  });

  describe('rename_source', () => {
    it('renames, keeping every setting, and follows references to it', async () => {
      const doc: MetadataDocument = {
        version: 3,
        sources: [
          defaultSource({ customization: { root_fields: { prefix: 'd_' } } }),
          {
            name: 'other',
            kind: 'postgres',
            configuration: pgConfig,
            tables: [{ table: { schema: 'public', name: 'article' }, remote_relationships: [{ name: 'r', definition: { to_source: { source: 'default', table: 'author' } } }] }],
          },
        ],
      };
      const ctx = await setup({ draft: doc, catalogs: { default: authorArticleCatalog(), renamed: authorArticleCatalog(), other: authorArticleCatalog() } });
      await runOperation(hooks, ctx, 'rename_source', { name: 'default', new_name: 'renamed' });
      expect(ctx.draft.sources[0]).to.deep.equal({ ...defaultSource({ customization: { root_fields: { prefix: 'd_' } } }), name: 'renamed' });
      expect((ctx.draft.sources[1]!.tables[0]!.remote_relationships![0]!.definition as { to_source: { source: string } }).to_source.source).to.equal('renamed');
    });

    it('refuses an unknown source and a taken name', async () => {
      const ctx = await setup({ draft: { version: 3, sources: [defaultSource(), defaultSource({ name: 'b' })] } });
      await expectError(runOperation(hooks, ctx, 'rename_source', { name: 'nope', new_name: 'x' }), 'not-exists', 'Could not find source with name "nope"');
      await expectError(runOperation(hooks, ctx, 'rename_source', { name: 'default', new_name: 'b' }), 'already-exists', 'Source with name "b" already exists');
      await expectError(runOperation(hooks, ctx, 'rename_source', { name: 'default' }), 'parse-failed', 'key "new_name" not found');
    });
  });

  it('answers only on /v1/metadata', async () => {
    const ctx = await setup({ endpoint: 'query' });
    expect(await runOperation(hooks, ctx, 'pg_add_source', { name: 'x', configuration: pgConfig })).to.equal(undefined);
    expect(await runOperation(hooks, ctx, 'rename_source', { name: 'default', new_name: 'x' })).to.equal(undefined);
    expect(ctx.changed).to.equal(false);
  });
});

describe('metadata/sources plugin over HTTP (no socket, the memory kind)', () => {
  let engine: Awaited<ReturnType<typeof memoryKindEngine>>;
  const file = memoryDataFile();
  before(async () => {
    engine = await memoryKindEngine(sourcesPlugin, managementPlugin);
  });
  after(() => engine?.dispose());

  it('adds a source of a kind known only by its prefix, and exports it', async () => {
    const added = await engine.admin({ type: 'mem_add_source', args: { name: 'library', configuration: { file } } });
    expect(added).to.deep.include({ status: 200, body: { message: 'success' } });
    const exported = await engine.admin({ type: 'export_metadata', args: {} });
    expect(exported.body.sources).to.deep.equal([{ name: 'library', kind: 'memory', tables: [], configuration: { file } }]);
  });

  it('answers a bad configuration with the kind\'s own error and changes nothing', async () => {
    const res = await engine.admin({ type: 'mem_add_source', args: { name: 'other', configuration: {} } });
    expect(res).to.deep.include({ status: 400 });
    expect(res.body).to.deep.include({ code: 'parse-failed', path: '$.args.configuration.file' });
    const sources = (await engine.admin({ type: 'export_metadata', args: {} })).body.sources;
    expect(sources.map((s: { name: string }) => s.name)).to.deep.equal(['library']);
  });

  it('runs the real request listener: request id, 401 without the secret, 404 elsewhere', async () => {
    const denied = await engine.inject({ url: '/v1/metadata', body: { type: 'export_metadata', args: {} } });
    expect(denied.status).to.equal(401);
    expect(denied.headers['x-request-id']).to.be.a('string');
    expect((await engine.inject({ url: '/v1/graphql', body: { query: '{ x }' } })).status).to.equal(404);
  });
});
