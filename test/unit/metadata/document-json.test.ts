import { expect } from 'chai';
import { metadataDocumentJson } from '../../../core/metadata/document-json.js';
import { freezeDocument, MetadataDraft } from '../../../core/metadata/cow-draft.js';
import type { MetadataDocument } from '../../../core/metadata/types.js';

function documentOf(tables: number): MetadataDocument {
  return {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: { connection_info: { database_url: { from_env: 'DB' }, pool_settings: { max_connections: 5 } } },
        tables: Array.from({ length: tables }, (_, i) => ({
          table: { schema: 'public', name: `t${i}` },
          configuration: { custom_name: i % 2 ? `T${i}` : undefined, column_config: { 'a"b': { custom_name: 'ab\u2028' } } },
          select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Hasura-User-Id' } }, limit: 1.5e300 } }],
        })),
        functions: [{ function: { schema: 'public', name: 'f' }, configuration: {} }],
        customization: { root_fields: { prefix: 'p_' } },
      },
      { name: 'other', kind: 'mssql', configuration: {}, tables: [] },
    ],
    actions: [{ name: 'a', definition: { handler: 'http://h', arguments: [undefined, null] } }],
    rest_endpoints: [],
  } as unknown as MetadataDocument;
}

describe('metadataDocumentJson', () => {
  it('is byte-identical to JSON.stringify of the document, frozen or not', () => {
    const plain = documentOf(4);
    expect(metadataDocumentJson(plain)).to.equal(JSON.stringify(plain));
    const frozen = freezeDocument(documentOf(4));
    expect(metadataDocumentJson(frozen)).to.equal(JSON.stringify(frozen));
    // Again, from the remembered entry texts.
    expect(metadataDocumentJson(frozen)).to.equal(JSON.stringify(frozen));
  });

  it('after a change through a draft, gives the changed document, reusing the other entries', () => {
    const base = freezeDocument(documentOf(5));
    metadataDocumentJson(base);
    const draft = new MetadataDraft(base);
    draft.document.sources[0]!.tables[3]!.select_permissions!.push({ role: 'editor', permission: { columns: ['id'], filter: {} } });
    draft.document.sources[0]!.tables.push({ table: { schema: 'public', name: 'new' } });
    const next = draft.current();
    expect(metadataDocumentJson(next)).to.equal(JSON.stringify(next));
    expect(JSON.parse(metadataDocumentJson(next)).sources[0].tables[3].select_permissions[1].role).to.equal('editor');
  });

  it('leaves a mutable entry unremembered: a later change shows', () => {
    const doc = documentOf(1);
    metadataDocumentJson(doc);
    doc.sources[0]!.tables[0]!.is_enum = true;
    expect(metadataDocumentJson(doc)).to.equal(JSON.stringify(doc));
  });
});
