import { expect } from 'chai';
import { availableParallelism } from 'node:os';
import { workerCount } from '../../core/serve.js';
import { serverOptions } from '../../core/engine.js';

describe('serve: --workers default and the HTTP server timeouts', () => {
  it('uses every core with NODE_ENV=production, one process otherwise, and an explicit --workers as given', () => {
    expect(workerCount({}, { NODE_ENV: 'production' })).to.equal(availableParallelism());
    expect(workerCount({}, { NODE_ENV: 'development' })).to.equal(1);
    expect(workerCount({}, {})).to.equal(1);
    expect(workerCount({ workers: 3 }, { NODE_ENV: 'production' })).to.equal(3);
    expect(workerCount({ workers: 1 }, { NODE_ENV: 'production' })).to.equal(1);
  });

  it('checks slow clients every second and never lets the request timeout undercut the headers timeout', () => {
    expect(serverOptions({ httpHeadersTimeout: 20_000 })).to.deep.equal({ headersTimeout: 20_000, requestTimeout: 300_000, connectionsCheckingInterval: 1_000 });
    expect(serverOptions({ httpHeadersTimeout: 400_000 }).requestTimeout).to.equal(400_000);
  });
});
