import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { METADATA_STORE_KEY, type MetadataStore } from '../../../core/metadata/store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';

const exportV2 = { type: 'export_metadata', version: 2, args: {} };
const brokenSource = {
  name: 'broken',
  kind: 'postgres',
  tables: [],
  configuration: { connection_info: { database_url: { from_env: 'SVC_TEST_NO_SUCH_VARIABLE' } } },
};

describe('metadata API (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('metadata');
    engine = await startTestEngine({ databaseUrl: db.url });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('exports version 2 with a resource version and the default source', async () => {
    const res = await metadata(engine, exportV2);
    expect(res.status).to.equal(200);
    expect(res.body.resource_version).to.be.a('number');
    expect(res.body.metadata.version).to.equal(3);
    const [source] = res.body.metadata.sources;
    expect(source).to.deep.include({ name: 'default', kind: 'postgres', tables: [] });
    expect(source.configuration.connection_info.database_url).to.deep.equal({ from_env: 'SVC_GRAPHQL_DATABASE_URL' });
  });

  it('exports version 1 as the bare metadata object', async () => {
    const res = await metadata(engine, { type: 'export_metadata', args: {} });
    expect(res.body).to.have.property('version', 3);
    expect(res.body).to.not.have.property('resource_version');
  });

  it('answers 409 conflict on a stale resource_version and changes nothing', async () => {
    const before = await metadata(engine, exportV2);
    const stale = before.body.resource_version - 1;
    const res = await metadata(engine, {
      type: 'replace_metadata',
      version: 2,
      resource_version: stale,
      args: { metadata: { version: 3, sources: [] } },
    });
    expect(res.status).to.equal(409);
    expect(res.body).to.deep.equal({
      path: '$',
      error: `metadata resource version referenced (${stale}) did not match current version`,
      code: 'conflict',
    });
    const after = await metadata(engine, exportV2);
    expect(after.body).to.deep.equal(before.body);
  });

  it('accepts a matching resource_version and increments it', async () => {
    const before = await metadata(engine, exportV2);
    const res = await metadata(engine, {
      type: 'replace_metadata',
      version: 2,
      resource_version: before.body.resource_version,
      args: { metadata: before.body.metadata },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ message: 'success' });
    const after = await metadata(engine, exportV2);
    expect(after.body.resource_version).to.equal(before.body.resource_version + 1);
  });

  it('lets exactly one of two concurrent writers with the same resource_version win', async () => {
    const { body } = await metadata(engine, exportV2);
    const write = () =>
      metadata(engine, { type: 'replace_metadata', version: 2, resource_version: body.resource_version, args: { metadata: body.metadata } });
    const statuses = (await Promise.all([write(), write()])).map((r) => r.status).sort();
    expect(statuses).to.deep.equal([200, 409]);
  });

  it('applies a bulk atomically: one failing operation changes nothing and the error names it', async () => {
    const before = await metadata(engine, exportV2);
    const res = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'clear_metadata', args: {} },
        { type: 'replace_metadata', args: { version: 3, sources: 'nope' } },
      ],
    });
    expect(res.status).to.equal(400);
    expect(res.body.path).to.equal('$.args[1].args.sources');
    expect(res.body.code).to.equal('parse-failed');
    const after = await metadata(engine, exportV2);
    expect(after.body).to.deep.equal(before.body);
  });

  it('answers each operation of a successful bulk in order', async () => {
    const res = await metadata(engine, {
      type: 'bulk',
      args: [
        { type: 'get_inconsistent_metadata', args: {} },
        { type: 'export_metadata', version: 2, args: {} },
      ],
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.length(2);
    expect(res.body[0]).to.deep.equal({ is_consistent: true, inconsistent_objects: [] });
    expect(res.body[1]).to.have.property('metadata');
  });

  it('names an unknown operation type', async () => {
    const res = await metadata(engine, { type: 'no_such_operation', args: {} });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ path: '$.type', error: 'unknown operation type "no_such_operation" on /v1/metadata', code: 'parse-failed' });
  });

  it('refuses non-admin roles', async () => {
    const res = await metadata(engine, exportV2, { 'x-svc-role': 'user' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({ path: '$', error: 'restricted access : admin only', code: 'access-denied' });
  });

  it('refuses inconsistent metadata in replace_metadata unless allowed, with the objects in internal', async () => {
    const current = (await metadata(engine, exportV2)).body.metadata;
    const next = { ...current, sources: [...current.sources, brokenSource] };
    const refused = await metadata(engine, { type: 'replace_metadata', version: 2, args: { metadata: next } });
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('unexpected');
    // The reference's replace_metadata builds strictly: every inconsistency counts, and its message
    // has no "new" (that one belongs to the other operations' check of what they added).
    expect(refused.body.error).to.equal('cannot continue due to inconsistent metadata');
    expect(refused.body.path).to.equal('$.args');
    // The same on the legacy endpoint, with the metadata itself as the arguments (version 1).
    const legacy = await call(engine, '/v1/query', { type: 'replace_metadata', args: next });
    expect(legacy.status).to.equal(400);
    expect(legacy.body).to.deep.include({ code: 'unexpected', error: 'cannot continue due to inconsistent metadata', path: '$.args' });
    expect(refused.body.internal).to.be.an('array').with.length(1);
    expect(refused.body.internal[0]).to.include({ type: 'source', name: 'source broken' });

    const allowed = await metadata(engine, {
      type: 'replace_metadata',
      version: 2,
      args: { allow_inconsistent_metadata: true, metadata: next },
    });
    expect(allowed.status).to.equal(200);
    expect(allowed.body.is_consistent).to.equal(false);
    expect(allowed.body.inconsistent_objects[0].reason).to.contain('SVC_TEST_NO_SUCH_VARIABLE');

    const health = await call(engine, '/healthz?strict=true');
    expect(health.status).to.equal(500);
    expect((await call(engine, '/healthz')).body).to.equal('WARN: inconsistent objects in schema');

    const listed = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(listed.body.is_consistent).to.equal(false);
    const reloaded = await metadata(engine, { type: 'reload_metadata', args: { reload_sources: ['broken'] } });
    expect(reloaded.body).to.include({ is_consistent: false, message: 'success' });

    const dropped = await metadata(engine, { type: 'drop_inconsistent_metadata', args: {} });
    expect(dropped.body).to.deep.equal({ message: 'success' });
    const after = await metadata(engine, exportV2);
    expect(after.body.metadata.sources.map((s: { name: string }) => s.name)).to.deep.equal(['default']);
    expect((await call(engine, '/healthz?strict=true')).status).to.equal(200);
  });

  it('stores a change only once it is accepted: a refused one leaves the stored document and version as they were', async () => {
    // The document is sent to the store before the new schema cache is built (the write overlaps
    // the build) and committed only once the build is accepted.
    const store = engine.kernel.container.resolve<MetadataStore>(METADATA_STORE_KEY);
    const before = await store.read();
    const current = (await metadata(engine, exportV2)).body.metadata;
    const refused = await metadata(engine, { type: 'replace_metadata', version: 2, args: { metadata: { ...current, sources: [...current.sources, brokenSource] } } });
    expect(refused.status).to.equal(400);
    expect(await store.read()).to.deep.equal(before);
    const accepted = await metadata(engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['nobody'] } });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    const stored = await store.read();
    expect(stored.resourceVersion).to.equal(before.resourceVersion + 1);
    expect(stored.metadata).to.deep.equal((await metadata(engine, { type: 'export_metadata', args: {} })).body);
    await metadata(engine, { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: [] } });
  });

  it('reload_metadata answers consistent, and checks its arguments', async () => {
    const ok = await metadata(engine, { type: 'reload_metadata', args: { reload_remote_schemas: true, reload_sources: true, recreate_event_triggers: false } });
    expect(ok.body).to.deep.equal({ is_consistent: true, message: 'success' });
    const bad = await metadata(engine, { type: 'reload_metadata', args: { reload_sources: 3 } });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'parse-failed', path: '$.args.reload_sources' });
  });

  it('clear_metadata keeps only the default source', async () => {
    const res = await metadata(engine, { type: 'clear_metadata', args: {} });
    expect(res.body).to.deep.equal({ message: 'success' });
    const after = await metadata(engine, exportV2);
    expect(after.body.metadata).to.deep.equal({
      version: 3,
      sources: [{ ...after.body.metadata.sources[0], tables: [] }],
    });
  });

  it('answers the same operations on the legacy /v1/query endpoint', async () => {
    const res = await call(engine, '/v1/query', { type: 'export_metadata', args: {} });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.property('sources');
  });
});

describe('metadata in maintenance mode (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  before(async () => {
    db = await createTestDatabase('maint');
    engine = await startTestEngine({ databaseUrl: db.url, enableMaintenanceMode: true });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('reads metadata but refuses changes', async () => {
    expect((await metadata(engine, exportV2)).status).to.equal(200);
    const res = await metadata(engine, { type: 'clear_metadata', args: {} });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'not-supported', error: 'metadata cannot be modified in maintenance mode' });
  });
});

describe('several engines on one metadata database (integration)', function () {
  let db: TestDatabase;
  const engines: Engine[] = [];
  before(async () => {
    db = await createTestDatabase('multi');
  });
  after(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await db?.drop();
  });

  it('start at the same time on a fresh catalog without racing', async () => {
    const started = await Promise.all([0, 1, 2].map(() => startTestEngine({ databaseUrl: db.url, schemaSyncPollInterval: 100 })));
    engines.push(...started);
    const versions = await Promise.all(started.map((e) => metadata(e, exportV2)));
    expect(new Set(versions.map((v) => v.body.resource_version)).size).to.equal(1);
    const { rows } = await db.sql('SELECT count(*)::int AS n FROM svc_catalog.svc_metadata');
    expect(rows[0].n).to.equal(1);
  });

  it("pick up each other's changes within the poll interval", async () => {
    const [a, b] = engines as [Engine, Engine];
    const current = (await metadata(a, exportV2)).body;
    const next = { ...current.metadata, sources: [...current.metadata.sources, brokenSource] };
    const res = await metadata(a, { type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: next } });
    expect(res.status).to.equal(200);
    const deadline = Date.now() + 3000;
    let seen = 0;
    while (Date.now() < deadline) {
      // Read the live cache directly: a metadata request would itself re-read the store.
      seen = b.ref.current.inconsistentObjects.length;
      if (seen > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).to.equal(1);
    expect(b.ref.current.resourceVersion).to.equal(current.resource_version + 1);
  });
});
