import { expect } from 'chai';
import { emptyMetadata, type MetadataDocument } from '../../../../core/metadata/types.js';
import { PgMetadataStore } from '../../../../plugins/db/postgres/metadata-store.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';

/**
 * The metadata document is written whole by every metadata operation (5 MB at 1,000 tables);
 * its UPDATE took twice as long with PostgreSQL's default pglz compression as with lz4, so the
 * store's sessions ask for lz4 where the server has it.
 */
describe('db/postgres metadata store: the document is stored lz4-compressed where the server can', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let store: PgMetadataStore;

  before(async () => {
    db = await createTestDatabase('metadata_lz4');
    store = new PgMetadataStore(() => Promise.resolve({ connectionString: db.url, maxConnections: 2 }));
  });
  after(async () => {
    await store?.close();
    await db?.drop();
  });

  it('writes a large document with lz4 and reads it back unchanged', async function () {
    const lz4 = await db.sql(`SET default_toast_compression = 'lz4'`).then(() => true, () => false);
    if (!lz4) this.skip();
    const version = await store.init(() => emptyMetadata());
    const tables = Array.from({ length: 300 }, (_, i) => ({
      table: { schema: 'public', name: `t${i}` },
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } }],
    }));
    const doc = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables, configuration: {} }] } as unknown as MetadataDocument;
    await store.write(doc, version);
    const { rows } = await db.sql(`SELECT pg_column_compression(metadata) AS method FROM svc_catalog.svc_metadata`);
    expect(rows[0].method).to.equal('lz4');
    expect((await store.read()).metadata).to.deep.equal(doc);
  });
});
