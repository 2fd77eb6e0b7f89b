/**
 * A database kind written outside plugins/ (test/fixtures/memory-kind, the docs/plugins.md
 * tutorial) with its own prefix, loaded by `module` path from a plugin config: it gets the
 * generic metadata operations, takes part in export/replace metadata, and serves GraphQL, with
 * no change to core/ or to the metadata plugins.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';

const FIXTURE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'memory-kind', 'index.ts');
const ADMIN = { 'x-svc-admin-secret': 'secret' };

const DATA = {
  tables: [
    {
      schema: 'public',
      name: 'author',
      columns: { id: 'integer', name: 'text' },
      primary_key: ['id'],
      rows: [
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bo' },
      ],
    },
    {
      schema: 'public',
      name: 'book',
      columns: { id: 'integer', title: 'text', author_id: 'integer', pages: 'integer' },
      primary_key: ['id'],
      foreign_keys: [{ columns: ['author_id'], references: { table: 'author', columns: ['id'] } }],
      rows: [
        { id: 10, title: 'Tide', author_id: 1, pages: 120 },
        { id: 11, title: 'Moss', author_id: 2, pages: 80 },
        { id: 12, title: 'Flint', author_id: 1, pages: 300 },
      ],
    },
  ],
};

describe('a third-party database kind loaded by module path (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  let dataFile: string;

  const ok = async (body: unknown) => {
    const res = await metadata(engine, body, ADMIN);
    expect(res.body, JSON.stringify(body)).to.deep.include({ message: 'success' });
    expect(res.status).to.equal(200);
  };

  before(async () => {
    db = await createTestDatabase('thirdkind');
    const dir = mkdtempSync(join(tmpdir(), 'svc-memory-kind-'));
    dataFile = join(dir, 'library.json');
    writeFileSync(dataFile, JSON.stringify(DATA));
    const pluginConfig = join(dir, 'plugins.json');
    writeFileSync(
      pluginConfig,
      JSON.stringify({
        plugins: [
          'db/postgres',
          { id: 'db/memory', module: relative(dir, FIXTURE) },
          'auth/admin-secret',
          'metadata/management',
          'metadata/sources',
          'metadata/tables',
          'metadata/relationships',
          'metadata/permissions',
          'metadata/functions',
          'api/metadata',
          'api/graphql',
        ],
      }),
    );
    engine = await startTestEngine({ databaseUrl: db.url, pluginConfig, adminSecret: 'secret' });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('gets <prefix>_add_source, _track_table, relationship and permission operations', async () => {
    await ok({ type: 'mem_add_source', args: { name: 'library', configuration: { file: dataFile } } });
    await ok({ type: 'mem_track_table', args: { source: 'library', table: 'author' } });
    await ok({ type: 'mem_track_table', args: { source: 'library', table: { schema: 'public', name: 'book' } } });
    await ok({
      type: 'mem_create_object_relationship',
      args: { source: 'library', table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
    });
    await ok({
      type: 'mem_create_array_relationship',
      args: { source: 'library', table: 'author', name: 'books', using: { foreign_key_constraint_on: { table: 'book', column: 'author_id' } } },
    });
    await ok({
      type: 'mem_create_select_permission',
      args: {
        source: 'library',
        table: 'book',
        role: 'reader',
        permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } },
      },
    });
  });

  it('checks the configuration with the kind, and has no operations for capabilities it lacks', async () => {
    const bad = await metadata(engine, { type: 'mem_add_source', args: { name: 'x', configuration: { file: 3 } } }, ADMIN);
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.include({ code: 'parse-failed', path: '$.args.configuration.file' });
    for (const type of ['mem_track_function', 'mem_set_table_is_enum', 'mem_run_sql']) {
      const res = await metadata(engine, { type, args: { source: 'library' } }, ADMIN);
      expect(res.status, type).to.equal(400);
      expect(res.body.error, type).to.match(/unknown operation type/);
    }
    const other = await metadata(engine, { type: 'pg_track_table', args: { source: 'library', table: 'author' } }, ADMIN);
    expect(other.body.error).to.equal('source with name "library" has backend type "memory" which does not match the expected type postgres');
  });

  it('serves a GraphQL query with relationships, filters, ordering and limits', async () => {
    const res = await graphql(
      engine,
      `query ($min: Int!) {
        author(order_by: {name: desc}) { name books(where: {pages: {_gte: $min}}, order_by: {id: asc}) { title author { name } } }
        book_by_pk(id: 11) { title }
        book_aggregate(where: {author_id: {_eq: 1}}) { aggregate { count } }
      }`,
      { min: 100 },
      ADMIN,
    );
    expect(res.body).to.deep.equal({
      data: {
        author: [
          { name: 'Bo', books: [] },
          { name: 'Ann', books: [{ title: 'Tide', author: { name: 'Ann' } }, { title: 'Flint', author: { name: 'Ann' } }] },
        ],
        book_by_pk: { title: 'Moss' },
        book_aggregate: { aggregate: { count: 2 } },
      },
    });
  });

  it('applies the role permission with the session variable, and offers no mutations', async () => {
    const headers = { ...ADMIN, 'x-svc-role': 'reader', 'x-svc-user-id': '2' };
    const res = await graphql(engine, '{ book { id title } }', undefined, headers);
    expect(res.body).to.deep.equal({ data: { book: [{ id: 11, title: 'Moss' }] } });
    const denied = await graphql(engine, '{ book { pages } }', undefined, headers);
    expect(denied.body.errors[0].extensions.code).to.equal('validation-failed');
    const mutation = await graphql(engine, 'mutation { insert_book(objects: []) { affected_rows } }', undefined, ADMIN);
    expect(mutation.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('appears in export_metadata and comes back through replace_metadata', async () => {
    const exported = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    const library = exported.body.sources.find((s: { name: string }) => s.name === 'library');
    expect(library).to.deep.include({ kind: 'memory', configuration: { file: dataFile } });
    expect(library.tables.map((t: { table: { name: string } }) => t.table.name)).to.deep.equal(['author', 'book']);

    await ok({ type: 'replace_metadata', args: { ...exported.body, sources: exported.body.sources.filter((s: { name: string }) => s.name !== 'library') } });
    const gone = await graphql(engine, '{ book { id } }', undefined, ADMIN);
    expect(gone.body.errors).to.have.length(1);

    const replaced = await metadata(engine, { type: 'replace_metadata', args: exported.body }, ADMIN);
    expect(replaced.body).to.deep.equal({ message: 'success' });
    const again = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    expect(again.body).to.deep.equal(exported.body);
    const res = await graphql(engine, '{ book(limit: 1, order_by: {id: desc}) { title } }', undefined, ADMIN);
    expect(res.body).to.deep.equal({ data: { book: [{ title: 'Flint' }] } });
  });
});
