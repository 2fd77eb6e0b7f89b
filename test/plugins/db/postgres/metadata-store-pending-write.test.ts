/**
 * The metadata store's write sent ahead of its decision (`beginWrite`): a metadata operation sends
 * the document and builds the new schema cache while the database stores it. Nobody may see the
 * document before `commit`, `abort` must leave everything as it was, and the version check must
 * hold against another engine's write exactly as a plain `write` does.
 */
import { expect } from 'chai';
import { EngineError } from '../../../../core/errors.js';
import { emptyMetadata, type MetadataDocument } from '../../../../core/metadata/types.js';
import { PgMetadataStore } from '../../../../plugins/db/postgres/metadata-store.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { rejection } from '../../../helpers/rejection.js';

const docNamed = (name: string): MetadataDocument =>
  ({ version: 3, sources: [{ name, kind: 'postgres', tables: [], configuration: {} }] }) as unknown as MetadataDocument;


describe('db/postgres metadata store: writes sent ahead', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let store: PgMetadataStore;
  let other: PgMetadataStore;

  before(async () => {
    db = await createTestDatabase('metadata_pending');
    store = new PgMetadataStore(() => Promise.resolve({ connectionString: db.url, maxConnections: 2 }));
    other = new PgMetadataStore(() => Promise.resolve({ connectionString: db.url, maxConnections: 2 }));
    await store.init(() => emptyMetadata());
    await other.init(() => emptyMetadata());
  });
  after(async () => {
    await store?.close();
    await other?.close();
    await db?.drop();
  });

  it('is unseen until commit, which answers the new version', async () => {
    const before = await store.read();
    const pending = await store.beginWrite(docNamed('ahead'), before.resourceVersion)!;
    expect(pending).to.not.equal(undefined);
    // Sent, not committed: other sessions still read the old document and version.
    await new Promise((r) => setTimeout(r, 50));
    expect(await other.read()).to.deep.equal(before);
    const version = await pending.commit();
    expect(version).to.equal(before.resourceVersion + 1);
    expect(await other.read()).to.deep.equal({ metadata: docNamed('ahead'), resourceVersion: version });
  });

  it('abort leaves the document and its version as they were, and frees the row', async () => {
    const before = await store.read();
    const pending = await store.beginWrite(docNamed('dropped'), before.resourceVersion)!;
    await pending.abort();
    expect(await store.read()).to.deep.equal(before);
    // The row lock is gone: a plain write goes through at once.
    expect(await other.write(docNamed('after-abort'), before.resourceVersion)).to.equal(before.resourceVersion + 1);
  });

  it("holds another engine's write until commit, which then fails its version check with 409", async () => {
    const before = await store.read();
    const pending = await store.beginWrite(docNamed('first'), before.resourceVersion)!;
    await new Promise((r) => setTimeout(r, 50));
    let settled = false;
    const second = other.write(docNamed('second'), before.resourceVersion).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(settled, 'the second write waits for the first one\'s row lock').to.equal(false);
    await pending.commit();
    const err = await rejection(second);
    expect(err).to.be.instanceOf(EngineError);
    expect((err as EngineError).code).to.equal('conflict');
    expect((await store.read()).metadata).to.deep.equal(docNamed('first'));
  });

  it('a stale expected version fails at commit with 409 and changes nothing', async () => {
    const before = await store.read();
    const pending = await store.beginWrite(docNamed('stale'), before.resourceVersion - 1)!;
    const err = await rejection(pending.commit());
    expect((err as EngineError).code).to.equal('conflict');
    expect(await store.read()).to.deep.equal(before);
    // The connection went back to the pool usable.
    expect(await store.write(docNamed('next'), before.resourceVersion)).to.equal(before.resourceVersion + 1);
  });

  it('is not offered with a single connection in all (the embedded database), which the build may need', async () => {
    const single = new PgMetadataStore(() => Promise.resolve({ connectionString: db.url, maxConnections: 1 }));
    try {
      await single.init(() => emptyMetadata());
      expect(single.beginWrite(docNamed('x'), 1)).to.equal(undefined);
    } finally {
      await single.close();
    }
  });
});
