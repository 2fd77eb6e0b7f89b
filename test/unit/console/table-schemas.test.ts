/** The console reads the warehouse kind's `{dataset, name}` tables as `{schema, name}`, and leaves the others alone. */
import { expect } from 'chai';
import { withTableSchemas, type MetadataDocument } from '../../../plugins/api/console/app/src/api/metadata.js';

describe('console: tables named by dataset', () => {
  it('reads a dataset as the schema', () => {
    const md = {
      version: 3,
      sources: [
        { name: 'bq', kind: 'bigquery', configuration: {}, tables: [{ table: { dataset: 'shop', name: 'orders' } }] },
        { name: 'default', kind: 'postgres', configuration: {}, tables: [{ table: { schema: 'public', name: 'author' } }] },
      ],
    } as unknown as MetadataDocument;
    const out = withTableSchemas(md);
    expect(out.sources.map((s) => s.tables[0]!.table)).to.deep.equal([{ schema: 'shop', name: 'orders' }, { schema: 'public', name: 'author' }]);
  });
});
