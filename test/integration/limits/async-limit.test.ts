/**
 * A third-party enforcer with an asynchronous tap and no `tapLimit` declaration
 * (test/fixtures/async-limit, loaded by module path beside every built-in plugin) is still
 * enforced now that the built-in limits run as a synchronous pass: the gate sends such requests
 * down the hook's promise path, where the built-in limits still refuse with their own codes and
 * messages, in order, and the fixture's refusal reaches the client.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, graphql, metadata } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import type { AsyncLimitCalls } from '../../fixtures/async-limit/index.js';
import { startLimitsFixture, USER } from './fixture.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURE = resolve(HERE, '..', '..', 'fixtures', 'async-limit', 'index.ts');
const DEFAULT_PLUGINS = resolve(HERE, '..', '..', '..', 'config', 'plugins.json');

const DEEP = '{ author(limit: 1) { articles { id } } }'; // depth 2
const SHALLOW = '{ author(limit: 1) { id name } }';

const errorOf = (res: { body: { errors?: Array<{ message: string; extensions: { code: string } }> } }) => res.body.errors?.[0];

describe('a third-party asynchronous limit enforcer (module path)', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  let calls: AsyncLimitCalls;

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-async-limit-'));
    const pluginConfig = join(dir, 'plugins.json');
    const defaults = JSON.parse(readFileSync(DEFAULT_PLUGINS, 'utf8')) as { plugins: unknown[] };
    writeFileSync(pluginConfig, JSON.stringify({ plugins: [...defaults.plugins, { id: 'limits/async-fixture', module: relative(dir, FIXTURE) }] }));
    f = await startLimitsFixture('async_limit', { pluginConfig });
    calls = f.engine.kernel.container.resolve<AsyncLimitCalls>('asyncLimitCalls');
  });
  after(() => f?.close());

  it('refuses through the hook with no limit set: its code and message reach the client', async () => {
    const before = calls.count;
    expect((await graphql(f.engine, SHALLOW, undefined, USER)).body.data.author).to.have.length(1);
    const blocked = await graphql(f.engine, SHALLOW, undefined, { ...USER, 'x-svc-blocked': 'yes' });
    expect(errorOf(blocked)).to.deep.equal({ extensions: { path: '$', code: 'access-denied' }, message: 'blocked by the asynchronous fixture enforcer' });
    expect(calls.count - before).to.equal(2);
  });

  it('beside built-in limits: each refuses with its own code, the built-in one first (its stage), under-limit passes', async () => {
    const set = await metadata(f.engine, { type: 'set_api_limits', args: { depth_limit: { global: 1 }, batch_limit: { global: 1 }, time_limit: { global: 5 } } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const deep = await graphql(f.engine, DEEP, undefined, USER);
    expect(errorOf(deep)).to.deep.equal({
      extensions: { path: '$', code: 'depth-limit-exceeded' },
      message: 'depth limit exceeded: the operation is nested 2 levels deep, more than the limit of 1',
    });
    // The batch limit taps EARLY: it refuses before the fixture (DEFAULT stage) is asked.
    const before = calls.count;
    const batch = await call(f.engine, '/v1/graphql', [{ query: SHALLOW }, { query: SHALLOW }], { ...USER, 'x-svc-blocked': 'yes' });
    expect(batch.body.map((r: { errors?: Array<{ extensions: { code: string } }> }) => r.errors?.[0]?.extensions.code)).to.deep.equal([
      'batch-limit-exceeded',
      'batch-limit-exceeded',
    ]);
    expect(calls.count).to.equal(before);
    const blocked = await graphql(f.engine, SHALLOW, undefined, { ...USER, 'x-svc-blocked': 'yes' });
    expect(errorOf(blocked)?.extensions.code).to.equal('access-denied');
    expect((await graphql(f.engine, SHALLOW, undefined, USER)).body.data.author).to.have.length(1);
    expect(calls.count - before).to.equal(2);
  });

  it('admin is exempt from the built-in limits but still passes through the enforcer', async () => {
    const before = calls.count;
    expect((await graphql(f.engine, DEEP)).body.data).to.be.an('object');
    expect(calls.count - before).to.equal(1);
  });
});
