import { expect } from 'chai';
import type { CatalogFunction, CatalogTable, DatabaseCatalog } from '../../../core/db/catalog.js';
import { diffCatalogs } from '../../../core/metadata/catalog-diff.js';
import { applySchemaChange } from '../../../core/metadata/schema-change.js';
import type { MetadataDocument } from '../../../core/metadata/types.js';
import { catalog, table } from '../../helpers/catalog.js';
import { EngineError } from '../../../core/errors.js';

/** The EngineError `run` throws, checked for its code. */
async function expectEngineError(run: () => Promise<unknown>, code: string): Promise<EngineError> {
  try {
    await run();
  } catch (e) {
    expect(e).to.be.instanceOf(EngineError);
    expect((e as EngineError).code).to.equal(code);
    return e as EngineError;
  }
  throw new Error(`expected a ${code} error`);
}

const withOid = (oid: number, t: CatalogTable): CatalogTable => ({ ...t, oid });

function fn(oid: number, name: string, volatility: CatalogFunction['volatility'] = 'stable'): CatalogFunction {
  return {
    schema: 'public',
    name,
    oid,
    volatility,
    returnType: 'text',
    returnTypeSchema: 'pg_catalog',
    returnsSet: false,
    returnsTable: null,
    args: [{ name: 'a', type: 'author', hasDefault: false }],
    description: null,
    language: 'sql',
  };
}

const author = (cols = ['id:int4', 'name', 'rating:int4'], name = 'author') => withOid(1, table(name, { columns: cols, pk: ['id'] }));
const article = (fk = true, cols = ['id:int4', 'title', 'author_id:int4']) =>
  withOid(2, table('article', { columns: cols, pk: ['id'], fks: fk ? [{ columns: ['author_id'], ref: 'author', refColumns: ['id'] }] : [] }));

function before(): DatabaseCatalog {
  return { ...catalog(author(), article()), functions: [fn(10, 'author_label')] };
}

function doc(): MetadataDocument {
  return {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: {},
        tables: [
          {
            table: { schema: 'public', name: 'author' },
            configuration: { column_config: { name: { custom_name: 'authorName' } } },
            array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
            computed_fields: [{ name: 'label', definition: { function: { schema: 'public', name: 'author_label' } } }],
            select_permissions: [
              { role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } },
              { role: 'critic', permission: { columns: ['id'], filter: { rating: { _gt: 3 } }, computed_fields: ['label'] } },
            ],
          },
          {
            table: { schema: 'public', name: 'article' },
            object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
            select_permissions: [{ role: 'user', permission: { columns: '*', filter: { author: { id: { _eq: 'X-Svc-User-Id' } } } } }],
          },
        ],
      },
    ],
  };
}

const change = (after: DatabaseCatalog, cascade = false, b = before()) =>
  applySchemaChange({ doc: doc(), sourceName: 'default', before: b, after, cascade, path: '$.args' });

describe('run_sql schema change', () => {
  it('recognises renames by oid and position, and drops and type changes', () => {
    const after = catalog(author(['id:int4', 'full_name', 'rating:int8'], 'writer'), article(false));
    const d = diffCatalogs(before(), after);
    expect(d.droppedTables).to.deep.equal([]);
    expect(d.alteredTables[0]).to.deep.include({
      table: { schema: 'public', name: 'author' },
      renamedTo: { schema: 'public', name: 'writer' },
      droppedColumns: [],
      renamedColumns: [{ from: 'name', to: 'full_name' }],
      retypedColumns: [{ column: 'rating', from: 'int4', to: 'int8' }],
    });
    expect(d.alteredTables[1]!.droppedForeignKeys.map((f) => f.columns)).to.deep.equal([['author_id']]);
    expect(d.droppedFunctions.map((f) => f.name)).to.deep.equal(['author_label']);
    expect(d.changed).to.equal(true);
  });

  it('keeps a foreign key that only changed its name, and sees no change in an equal catalog', () => {
    const renamedFk = withOid(2, table('article', { columns: ['id:int4', 'title', 'author_id:int4'], pk: ['id'], fks: [{ name: 'x', columns: ['author_id'], ref: 'author', refColumns: ['id'] }] }));
    const d = diffCatalogs(before(), { ...catalog(author(), renamedFk), functions: [fn(10, 'author_label')] });
    expect(d.alteredTables).to.deep.equal([]);
    expect(diffCatalogs(before(), before()).changed).to.equal(false);
  });

  it('refuses to drop a foreign key that relationships use, naming them and what traverses them', async () => {
    const after = { ...catalog(author(), article(false)), functions: [fn(10, 'author_label')] };
    const e = await expectEngineError(async () => change(after), 'dependency-error');
    expect(e.message).to.equal(
      'cannot drop due to the following dependent objects: permission article.user.select in source "default", ' +
        'relationship article.author in source "default", relationship author.articles in source "default"',
    );
    const out = change(after, true).metadata.sources[0]!;
    expect(out.tables[0]!.array_relationships).to.equal(undefined);
    expect(out.tables[1]!.object_relationships).to.equal(undefined);
    expect(out.tables[1]!.select_permissions).to.equal(undefined);
  });

  it('refuses a type change that a literal comparison depends on, even with cascade', async () => {
    const after = { ...catalog(author(['id:int4', 'name', 'rating:int8']), article()), functions: [fn(10, 'author_label')] };
    const e = await expectEngineError(async () => change(after, true), 'dependency-error');
    expect(e.message).to.equal(
      'cannot change type of column "rating" in table "author" because of the following dependencies: permission author.critic.select in source "default"',
    );
    // Comparisons with session variables only do not pin the type.
    const idText = { ...catalog(author(['id:text', 'name', 'rating:int4']), article()), functions: [fn(10, 'author_label')] };
    expect(change(idText).metadataChanged).to.equal(false);
  });

  it('drops a dropped column\'s custom name and, with cascade, the permissions listing it', async () => {
    const after = before();
    // Attnums stay: the dropped column leaves a gap.
    after.tables[0]!.columns = after.tables[0]!.columns.filter((c) => c.name !== 'name');
    await expectEngineError(async () => change(after), 'dependency-error');
    const out = change(after, true).metadata.sources[0]!.tables[0]!;
    expect(out.configuration).to.equal(undefined);
    expect(out.select_permissions!.map((p) => p.role)).to.deep.equal(['critic']);
  });

  it('drops a computed field whose function is gone only with cascade, with the permissions using it', async () => {
    const after = catalog(author(), article());
    const e = await expectEngineError(async () => change(after), 'dependency-error');
    expect(e.message).to.contain('computed field author.label in source "default"');
    expect(e.message).to.contain('permission author.critic.select');
    const out = change(after, true).metadata.sources[0]!.tables[0]!;
    expect(out.computed_fields).to.equal(undefined);
  });

  it('refuses an overloaded or volatile computed-field function', async () => {
    const over = { ...catalog(author(), article()), functions: [fn(10, 'author_label'), fn(11, 'author_label')] };
    const e = await expectEngineError(async () => change(over), 'not-supported');
    expect(e.message).to.equal('The function "author_label" associated with computed field"label" of table "author" is being overloaded');
    const vol = { ...catalog(author(), article()), functions: [fn(10, 'author_label', 'volatile')] };
    const v = await expectEngineError(async () => change(vol), 'not-supported');
    expect(v.message).to.equal(
      'The type of function "author_label" associated with computed field "label" of table "author" is being altered to "VOLATILE"',
    );
  });

  it('follows renamed tables and columns everywhere they are referenced', () => {
    const after = {
      ...catalog(author(['aid:int4', 'full_name', 'rating:int4'], 'writer'), article(true, ['id:int4', 'title', 'writer_id:int4'])),
      functions: [fn(10, 'author_label')],
    };
    after.tables[1]!.foreignKeys = [{ name: 'fk', columns: ['writer_id'], refTable: { schema: 'public', name: 'writer' }, refColumns: ['aid'] }];
    const out = change(after).metadata.sources[0]!;
    const [w, a] = out.tables;
    expect(w!.table).to.deep.equal({ schema: 'public', name: 'writer' });
    expect(w!.configuration).to.deep.equal({ column_config: { full_name: { custom_name: 'authorName' } } });
    expect(w!.array_relationships![0]!.using).to.deep.equal({ foreign_key_constraint_on: { table: 'article', column: 'writer_id' } });
    expect(w!.select_permissions![0]!.permission).to.deep.equal({ columns: ['aid', 'full_name'], filter: { aid: { _eq: 'X-Svc-User-Id' } } });
    expect(a!.object_relationships![0]!.using).to.deep.equal({ foreign_key_constraint_on: 'writer_id' });
    // Reached through the renamed relationship's foreign key, resolved as it was before.
    expect(a!.select_permissions![0]!.permission.filter).to.deep.equal({ author: { aid: { _eq: 'X-Svc-User-Id' } } });
  });

  it('untracks a dropped table without cascade when nothing else needs it, and a dropped function', () => {
    const d = doc();
    d.sources[0]!.tables[0]!.array_relationships = undefined;
    d.sources[0]!.functions = [{ function: { schema: 'public', name: 'author_label' } }];
    d.sources[0]!.tables[0]!.computed_fields = undefined;
    const after = catalog(author());
    const out = applySchemaChange({ doc: d, sourceName: 'default', before: before(), after, cascade: false, path: '$.args' }).metadata.sources[0]!;
    expect(out.tables.map((t) => t.table.name)).to.deep.equal(['author']);
    expect(out.functions).to.equal(undefined);
  });

  it('refuses to overload a tracked function', async () => {
    const d = doc();
    d.sources[0]!.functions = [{ function: { schema: 'public', name: 'author_label' } }];
    const after = { ...before(), functions: [fn(10, 'author_label'), fn(12, 'author_label')] };
    const e = await expectEngineError(
      async () => applySchemaChange({ doc: d, sourceName: 'default', before: before(), after, cascade: true, path: '$.args' }),
      'not-supported',
    );
    expect(e.message).to.equal('the following tracked function(s) cannot be overloaded: author_label');
  });
});
