/**
 * /healthz/sources: per-source health checks from the source's `health_check` metadata, with
 * statuses OK, ERROR (unreachable), FAILED (bad test SQL) and TIMEOUT, timestamps, admin only,
 * and the configuration surviving export/replace.
 */
import { expect } from 'chai';
import { call, metadata } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { USER, eventually, startLimitsFixture } from './fixture.js';

describe('source health checks', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startLimitsFixture('source_health');
  });
  after(() => f?.close());

  const report = async () => (await call(f.engine, '/healthz/sources')).body as Record<string, { status: string; error: unknown; timestamp: string }>;
  const statusOf = (name: string, status: string) =>
    eventually(async () => {
      const r = (await report())[name];
      return r?.status === status ? r : undefined;
    }, 20000, `${name} to be ${status}`);

  it('reports nothing for sources without a health check', async () => {
    expect(await report()).to.deep.equal({});
  });

  it('checks a source on its interval: OK, then FAILED for a bad test statement, TIMEOUT past the timeout', async () => {
    const update = (health_check: unknown) =>
      metadata(f.engine, { type: 'pg_update_source', args: { name: 'default', health_check } });
    expect((await update({ interval: 1, test: { sql: 'SELECT 1' } })).status).to.equal(200);
    const ok = await statusOf('default', 'OK');
    expect(ok.error).to.equal(null);
    expect(new Date(ok.timestamp).toISOString()).to.equal(ok.timestamp);
    expect((await update({ interval: 1, retries: 0, test: { sql: 'SELECT * FROM no_such_table' } })).status).to.equal(200);
    const failed = await statusOf('default', 'FAILED');
    expect(failed.error).to.be.a('string').and.to.contain('no_such_table');
    expect((await update({ interval: 1, retries: 0, timeout: 0.3, test: { sql: 'SELECT pg_sleep(3)' } })).status).to.equal(200);
    expect((await statusOf('default', 'TIMEOUT')).error).to.equal(null);
    const exported = (await metadata(f.engine, { type: 'export_metadata', args: {} })).body;
    expect(exported.sources[0].health_check).to.deep.equal({ interval: 1, retries: 0, timeout: 0.3, test: { sql: 'SELECT pg_sleep(3)' } });
    expect((await update(null)).status).to.equal(200);
    await eventually(async () => ((await report())['default'] === undefined ? true : undefined), 5000, 'the check to stop');
  });

  it('reports ERROR for a source that cannot be reached', async () => {
    const res = await metadata(f.engine, {
      type: 'replace_metadata',
      version: 2,
      args: {
        allow_inconsistent_metadata: true,
        metadata: {
          ...(await metadata(f.engine, { type: 'export_metadata', args: {} })).body,
          sources: [
            ...(await metadata(f.engine, { type: 'export_metadata', args: {} })).body.sources,
            {
              name: 'down',
              kind: 'postgres',
              tables: [],
              configuration: { connection_info: { database_url: 'postgres://postgres@127.0.0.1:1/none', pool_settings: { retries: 0 } } },
              health_check: { interval: 1, retries: 1, retry_interval: 0.2, timeout: 2 },
            },
          ],
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const down = await statusOf('down', 'ERROR');
    expect(down.error).to.have.property('message');
  });

  it('refuses a malformed health check and non-admin callers', async () => {
    const bad = await metadata(f.engine, { type: 'pg_update_source', args: { name: 'default', health_check: { retries: 1 } } });
    expect(bad.body).to.deep.include({ code: 'parse-failed', error: 'key "interval" not found', path: '$.args.health_check' });
    expect((await call(f.engine, '/healthz/sources', undefined, USER)).body.code).to.equal('access-denied');
  });
});
