/**
 * resolveTableBase keeps what it derived from a frozen table entry and copies it for the next
 * resolve while the entry, its catalog entry, the customization and the kind's facts are the same
 * objects (core/schema-cache/resolve/table.ts). Each resolve must still get objects of its own
 * (later steps write into them), and anything else must derive afresh.
 */
import { expect } from 'chai';
import { resolveSource } from '../../../core/schema-cache/resolve/index.js';
import { freezeDocument } from '../../../core/metadata/cow-draft.js';
import type { SourceMetadata } from '../../../core/metadata/types.js';
import { catalog, table } from '../../helpers/catalog.js';
import { FakeConnection } from '../../helpers/fake-connection.js';
import { POSTGRES_SCALAR_TYPES } from '../../../plugins/db/postgres/scalar-types.js';
import { ScalarTypes } from '../../../core/db/scalar-types.js';

const PG = { scalarTypes: new ScalarTypes(POSTGRES_SCALAR_TYPES) };

describe('schema-cache resolver: kept table bases', () => {
  const cat = catalog(table('author', { columns: ['id:int4', 'name:text'], pk: ['id'] }));
  const meta: SourceMetadata = freezeDocument({
    name: 'default',
    kind: 'postgres',
    configuration: {},
    tables: [{ table: { schema: 'public', name: 'author' }, configuration: { custom_column_names: { name: 'fullName' } } }],
  });

  it('gives each resolve objects of its own, equal to a fresh derivation', async () => {
    const first = (await resolveSource(meta, cat, new FakeConnection(), PG)).source.tables.get('public.author')!;
    first.columns[1]!.enumTable = 'public.x';
    first.columnsByName.delete('id');
    first.rootFields.select = 'changed';
    first.relationships.set('r', { name: 'r', kind: 'object', target: 'x', mapping: [], comment: null, insertionOrder: 'after_parent', required: false });
    const second = (await resolveSource(meta, cat, new FakeConnection(), PG)).source.tables.get('public.author')!;
    expect(second).to.not.equal(first);
    expect(second.columns[1]).to.not.equal(first.columns[1]);
    expect(second.columns.map((c) => [c.name, c.graphqlName, c.enumTable])).to.deep.equal([
      ['id', 'id', undefined],
      ['name', 'fullName', undefined],
    ]);
    expect([...second.columnsByName.keys()]).to.deep.equal(['id', 'name']);
    expect(second.columnsByGraphqlName.get('fullName')).to.equal(second.columns[1]);
    expect(second.rootFields.select).to.equal('author');
    expect(second.relationships.size).to.equal(0);
  });

  it('derives afresh for another catalog entry or customization', async () => {
    const other = catalog(table('author', { columns: ['id:int4', 'name:text', 'born:date'], pk: ['id'] }));
    const widened = (await resolveSource(meta, other, new FakeConnection(), PG)).source.tables.get('public.author')!;
    expect(widened.columns.map((c) => c.name)).to.deep.equal(['id', 'name', 'born']);
    const prefixed = freezeDocument({ ...meta, customization: { root_fields: { prefix: 'p_' } } });
    const renamed = (await resolveSource(prefixed, cat, new FakeConnection(), PG)).source.tables.get('public.author')!;
    expect(renamed.rootFields.select).to.equal('p_author');
  });
});
