import { expect } from 'chai';
import pg from 'pg';
import type { Engine } from '../../../core/engine.js';
import { definePlugin } from '../../../core/plugin.js';
import { BootError } from '../../../core/errors.js';
import { LATEST_CATALOG_VERSION } from '../../../plugins/db/postgres/catalog-migrations.js';
import { createLogger } from '../../../core/logger.js';
import { loadPlugins, DEFAULT_PLUGIN_CONFIG } from '../../../core/kernel/loader.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine } from '../../helpers/engine.js';

/** A route that answers after a delay, to have a request in flight during shutdown. */
const slowRoute = definePlugin({
  name: 'slow-route',
  kind: 'example',
  register(_c, hooks) {
    hooks.onHttpRoutes.tap('example/slow-route', ({ router }) => {
      router.get('/slow', async (ctx) => {
        await new Promise((r) => setTimeout(r, Number(ctx.query['ms'] ?? 300)));
        ctx.body = 'done';
      });
    });
  },
});

describe('engine lifecycle (integration)', function () {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('lifecycle');
  });
  after(async () => db?.drop());

  it('records the catalog version and refuses a catalog newer than it knows', async () => {
    const engine = await startTestEngine({ databaseUrl: db.url });
    await engine.close();
    const { rows } = await db.sql('SELECT version FROM svc_catalog.svc_version');
    expect(rows[0].version).to.equal(LATEST_CATALOG_VERSION);

    await db.sql('UPDATE svc_catalog.svc_version SET version = version + 1');
    try {
      await startTestEngine({ databaseUrl: db.url });
      expect.fail('expected a boot error');
    } catch (e) {
      expect((e as BootError).code).to.equal('E_CATALOG_MIGRATION');
      expect((e as Error).message).to.contain('newer than this engine supports');
    } finally {
      await db.sql('UPDATE svc_catalog.svc_version SET version = $1', [LATEST_CATALOG_VERSION]);
    }
  });

  it('starts with inconsistent metadata, reporting it instead of refusing to start', async () => {
    const broken = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          tables: [{ table: { schema: 'public', name: 'no_such_table' } }],
          configuration: { connection_info: { database_url: { from_env: 'SVC_GRAPHQL_DATABASE_URL' } } },
        },
        { name: 'gone', kind: 'postgres', tables: [], configuration: { connection_info: { database_url: 'postgres://postgres@127.0.0.1:1/nothing' } } },
      ],
    };
    await db.sql('UPDATE svc_catalog.svc_metadata SET metadata = $1, resource_version = resource_version + 1', [JSON.stringify(broken)]);
    const engine = await startTestEngine({ databaseUrl: db.url });
    try {
      expect((await call(engine, '/healthz')).body).to.equal('WARN: inconsistent objects in schema');
      const inc = await metadata(engine, { type: 'get_inconsistent_metadata', args: {} });
      const names = inc.body.inconsistent_objects.map((o: { name: string }) => o.name);
      expect(names).to.include.members(['table no_such_table in source default', 'source gone']);
      const gql = await call(engine, '/v1/graphql', { query: '{ __typename }' });
      expect(gql.body).to.deep.equal({ data: { __typename: 'query_root' } });
    } finally {
      await metadata(engine, { type: 'clear_metadata', args: {} });
      await engine.close();
    }
  });

  it('drains in-flight requests on shutdown and stops accepting new ones', async () => {
    const loaded = await loadPlugins(DEFAULT_PLUGIN_CONFIG, ['metadata', 'graphql', 'pgdump', 'config']);
    const engine: Engine = await startTestEngine(
      { databaseUrl: db.url, gracefulShutdownTimeout: 5 },
      { plugins: { plugins: [...loaded.plugins, slowRoute] } },
    );
    const inflight = fetch(`${engine.url}/slow?ms=400`).then(async (r) => ({ status: r.status, text: await r.text() }));
    await new Promise((r) => setTimeout(r, 100));
    const closing = engine.close('test');
    await new Promise((r) => setTimeout(r, 50));
    const refused = await fetch(`${engine.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).to.equal('refused');
    expect(await inflight).to.deep.equal({ status: 200, text: 'done' });
    await closing;
  });

  it('cuts requests that outlast the graceful shutdown timeout', async () => {
    const loaded = await loadPlugins(DEFAULT_PLUGIN_CONFIG, ['metadata', 'graphql', 'pgdump', 'config']);
    const engine = await startTestEngine({ databaseUrl: db.url, gracefulShutdownTimeout: 0.2 }, { plugins: { plugins: [...loaded.plugins, slowRoute] } });
    const inflight = fetch(`${engine.url}/slow?ms=3000`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await engine.close('test');
    expect(Date.now() - started).to.be.lessThan(2500);
    expect(await inflight).to.equal('cut');
  });

  it('writes structured JSON logs honouring the level and the enabled log types', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', enabledTypes: ['startup', 'http-log'], sink: (l) => lines.push(l) });
    const engine = await startTestEngine({ databaseUrl: db.url }, { logger });
    await call(engine, '/healthz', undefined, { 'x-request-id': 'log-probe' });
    await engine.close();
    const parsed = lines.map((l) => JSON.parse(l) as { type: string; level: string; timestamp: string; detail: Record<string, unknown> });
    expect(parsed.every((p) => p.timestamp && p.level && p.type)).to.equal(true);
    expect(parsed.some((p) => p.type === 'startup')).to.equal(true);
    const http = parsed.find((p) => p.type === 'http-log' && p.detail['request_id'] === 'log-probe');
    expect(http?.detail['http_info']).to.include({ method: 'GET', url: '/healthz', status: 200 });

    const quiet: string[] = [];
    const warnOnly = createLogger({ level: 'warn', enabledTypes: ['startup'], sink: (l) => quiet.push(l) });
    const e2 = await startTestEngine({ databaseUrl: db.url }, { logger: warnOnly });
    await call(e2, '/healthz');
    await e2.close();
    expect(quiet.filter((l) => JSON.parse(l).type === 'http-log')).to.deep.equal([]);
    expect(quiet.filter((l) => JSON.parse(l).level === 'info')).to.deep.equal([]);
  });

  it('keeps the pg client of the metadata store usable after the database restarts a connection', async () => {
    const engine = await startTestEngine({ databaseUrl: db.url });
    try {
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      await admin.end();
      const res = await metadata(engine, { type: 'export_metadata', args: {} });
      expect(res.status).to.equal(200);
    } finally {
      await engine.close();
    }
  });
});
