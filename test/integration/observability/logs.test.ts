import { expect } from 'chai';
import { createServer } from 'node:net';
import { call, graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import { createTestDatabase, urlForDatabase, type TestDatabase } from '../../helpers/database.js';
import { createLogger, redactSecrets } from '../../../core/logger.js';
import { isBootError, type BootError } from '../../../core/errors.js';
import { parseServerConfig } from '../../../core/config/parse.js';
import type { Engine } from '../../../core/engine.js';
import { cli } from '../cli/helpers.js';

const ADMIN_SECRET = 'never-in-a-log-line';

describe('logs: types, metadata query logging, secrets, start-up failures', function () {
  let db: TestDatabase;
  let engine: Engine;
  const lines: Array<{ type: string; level: string; detail: any }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const raw: string[] = [];

  before(async () => {
    db = await createTestDatabase('logs', `CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);`);
    const logger = createLogger({
      level: 'info',
      enabledTypes: ['startup', 'http-log', 'query-log'],
      sink: (l) => {
        raw.push(l);
        lines.push(JSON.parse(l));
      },
    });
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, enableMetadataQueryLogging: true }, { logger });
    await metadata(engine, { type: 'pg_track_table', args: { source: 'default', table: 't' } }, { 'x-svc-admin-secret': ADMIN_SECRET });
  });

  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('writes the enabled types in the {timestamp, level, type, detail} shape', async () => {
    await graphql(engine, 'query Q { t { id } }', { unused: 1 }, { 'x-svc-admin-secret': ADMIN_SECRET });
    const http = lines.filter((l) => l.type === 'http-log' && l.detail.http_info.url === '/v1/graphql');
    expect(http).to.have.length.at.least(1);
    expect(Object.keys(JSON.parse(raw.find((r) => r.includes('"http-log"'))!))).to.deep.equal(['timestamp', 'level', 'type', 'detail']);
    const query = lines.find((l) => l.type === 'query-log' && l.detail.query?.[0]?.query === 'query Q { t { id } }');
    expect(query?.detail.query).to.deep.equal([{ operationName: null, query: 'query Q { t { id } }' }]);
    expect(lines.some((l) => l.type === 'startup' && l.detail.kind === 'server')).to.equal(true);
  });

  it('logs metadata queries with their secrets redacted, and never the admin secret', async () => {
    const url = urlForDatabase(db.name).replace('postgres@', 'postgres:hunter2@');
    await metadata(
      engine,
      { type: 'pg_add_source', args: { name: 'other', configuration: { connection_info: { database_url: url } } } },
      { 'x-svc-admin-secret': ADMIN_SECRET },
    );
    const logged = lines.find((l) => l.type === 'query-log' && l.detail.query?.type === 'pg_add_source');
    expect(logged?.detail.query.args.configuration.connection_info.database_url).to.equal('<redacted>');
    expect(raw.join('\n')).not.to.include('hunter2');
    expect(raw.join('\n')).not.to.include(ADMIN_SECRET);
  });

  it('redacts header values by header name and userinfo in URLs, keeps env references', () => {
    expect(
      redactSecrets({
        headers: [{ name: 'Authorization', value: 'Bearer x' }, { name: 'X-Trace', value: 'keep' }, { name: 'Cookie', value_from_env: 'C' }],
        webhook: 'https://user:pw@hooks.example.com/x',
        database_url: { from_env: 'DB' },
        password: 'p',
      }),
    ).to.deep.equal({
      headers: [{ name: 'Authorization', value: '<redacted>' }, { name: 'X-Trace', value: 'keep' }, { name: 'Cookie', value_from_env: 'C' }],
      webhook: 'https://user:***@hooks.example.com/x',
      database_url: { from_env: 'DB' },
      password: '<redacted>',
    });
  });

  it('refuses an unknown log type', () => {
    expect(() => parseServerConfig({ flags: { 'enabled-log-types': 'startup,http-logs' }, env: {} })).to.throw(/E_OPTION_INVALID.*http-logs/);
  });

  it('a port in use is one coded line, not a stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      let error: unknown;
      await startTestEngine({ databaseUrl: db.url, serverPort: port }).then((e) => e.close(), (e: unknown) => (error = e));
      expect(isBootError(error)).to.equal(true);
      expect((error as BootError).code).to.equal('E_PORT_UNAVAILABLE');
      const r = await cli(['serve', '--server-host', '127.0.0.1', '--server-port', String(port), '--enabled-log-types', 'startup', '--log-level', 'error'], {
        SVC_GRAPHQL_DATABASE_URL: db.url,
      });
      expect(r.code).to.equal(1);
      expect(r.err).to.equal(`E_PORT_UNAVAILABLE: port 127.0.0.1:${port} is already in use (--server-port)\n`);
    } finally {
      blocker.close();
    }
  });

  it('an unreachable database is one coded line', async () => {
    const r = await cli(['serve', '--server-port', '1', '--log-level', 'error'], { SVC_GRAPHQL_DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' });
    expect(r.code).to.equal(1);
    expect(r.err).to.match(/^E_DATABASE_UNAVAILABLE: cannot connect to the metadata database: connect ECONNREFUSED 127\.0\.0\.1:9\n$/);
    expect((await call(engine, '/healthz')).status).to.equal(200);
  });
});
