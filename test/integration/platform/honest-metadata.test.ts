import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { DEFAULT_PLUGIN_CONFIG, loadPlugins } from '../../../core/kernel/loader.js';
import { API_NAMES } from '../../../config/options.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';

const ADMIN = { 'x-svc-admin-secret': 's3cret' };
const LIMITS = { disabled: false, depth_limit: { global: 3 } };

describe('honest metadata: sections nothing would enforce (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;

  before(async () => {
    db = await createTestDatabase('honest');
    // The default preset without the plugins that enforce API limits and introspection control.
    const loaded = await loadPlugins(DEFAULT_PLUGIN_CONFIG, [...API_NAMES]);
    const plugins = loaded.plugins.filter((p) => !(p.provides ?? []).some((f) => f === 'api-limits' || f === 'introspection-control'));
    expect(plugins.length).to.be.lessThan(loaded.plugins.length);
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 's3cret' }, { plugins: { plugins, options: loaded.options } });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('refuses replace_metadata with api_limits while no plugin provides api-limits, and keeps the old metadata', async () => {
    const before = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    const res = await metadata(engine, { type: 'replace_metadata', args: { ...before.body, api_limits: LIMITS } }, ADMIN);
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.contain("no loaded plugin provides the 'api-limits' feature");
    const after = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    expect(after.body).to.deep.equal(before.body);
  });

  it('refuses introspection control the same way', async () => {
    const before = await metadata(engine, { type: 'export_metadata', args: {} }, ADMIN);
    const doc = { ...before.body, graphql_schema_introspection: { disabled_for_roles: ['user'] } };
    const res = await metadata(engine, { type: 'replace_metadata', args: doc }, ADMIN);
    expect(res.status).to.equal(400);
    expect(JSON.stringify(res.body)).to.contain("'introspection-control'");
  });

  it('accepts the same metadata with the default preset, whose limit plugins provide the feature', async () => {
    const db2 = await createTestDatabase('honest2');
    const other = await startTestEngine({ databaseUrl: db2.url, adminSecret: 's3cret' });
    try {
      const before = await metadata(other, { type: 'export_metadata', args: {} }, ADMIN);
      const res = await metadata(other, { type: 'replace_metadata', args: { ...before.body, api_limits: LIMITS } }, ADMIN);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const health = await call(other, '/healthz?strict=true');
      expect(health.status).to.equal(200);
    } finally {
      await other.close();
      await db2.drop();
    }
  });
});
