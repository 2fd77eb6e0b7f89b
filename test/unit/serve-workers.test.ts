import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { workerCount } from '../../core/serve.js';
import { serverOptions } from '../../core/engine.js';
import { engineWorkerCount } from '../../core/workers/messages.js';
import { poolConfigFor } from '../../plugins/db/postgres/pool.js';
import { resolvePgSourceConfiguration } from '../../plugins/db/postgres/connection-info.js';

describe('serve: --workers default and the HTTP server timeouts', () => {
  const url = { databaseUrl: 'postgres://x@127.0.0.1/db' };

  it('uses every core with NODE_ENV=production, one process otherwise, and an explicit --workers as given', () => {
    expect(workerCount(url, { NODE_ENV: 'production' })).to.equal(availableParallelism());
    expect(workerCount(url, { NODE_ENV: 'development' })).to.equal(1);
    expect(workerCount(url, {})).to.equal(1);
    expect(workerCount({ ...url, workers: 3 }, { NODE_ENV: 'production' })).to.equal(3);
    expect(workerCount({ ...url, workers: 1 }, { NODE_ENV: 'production' })).to.equal(1);
    expect(workerCount({ metadataDatabaseUrl: 'postgres://x@127.0.0.1/md', workers: 2 }, {})).to.equal(2);
  });

  it('runs one process on the embedded database, and refuses more with a coded error', () => {
    expect(workerCount({}, { NODE_ENV: 'production' })).to.equal(1);
    expect(workerCount({ workers: 1 }, {})).to.equal(1);
    expect(() => workerCount({ workers: 2 }, {})).to.throw(/--workers 2 \(SVC_GRAPHQL_WORKERS\) needs a database URL/).with.property('code', 'E_OPTION_INVALID');
  });

  it('checks slow clients every second and never lets the request timeout undercut the headers timeout', () => {
    expect(serverOptions({ httpHeadersTimeout: 20_000 })).to.deep.equal({ headersTimeout: 20_000, requestTimeout: 300_000, connectionsCheckingInterval: 1_000 });
    expect(serverOptions({ httpHeadersTimeout: 400_000 }).requestTimeout).to.equal(400_000);
  });

  it('splits each pool between the workers, so max_connections bounds the whole engine', () => {
    expect(engineWorkerCount({})).to.equal(1);
    expect(engineWorkerCount({ SVC_GRAPHQL_WORKER_COUNT: '4' })).to.equal(4);
    expect(engineWorkerCount({ SVC_GRAPHQL_WORKER_COUNT: 'x' })).to.equal(1);
    const conn = resolvePgSourceConfiguration({ connection_info: { database_url: 'postgres://x@127.0.0.1/db', pool_settings: { max_connections: 10 } } }, {});
    const before = process.env['SVC_GRAPHQL_WORKER_COUNT'];
    try {
      expect(poolConfigFor(conn).max).to.equal(10);
      process.env['SVC_GRAPHQL_WORKER_COUNT'] = '4';
      expect(poolConfigFor(conn).max).to.equal(3);
      process.env['SVC_GRAPHQL_WORKER_COUNT'] = '16';
      expect(poolConfigFor(conn).max).to.equal(1);
    } finally {
      if (before === undefined) delete process.env['SVC_GRAPHQL_WORKER_COUNT'];
      else process.env['SVC_GRAPHQL_WORKER_COUNT'] = before;
    }
  });
});
