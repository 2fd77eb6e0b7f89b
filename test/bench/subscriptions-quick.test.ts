/**
 * CI smoke run of the live-query benchmark (quick mode, smaller still): every subscriber served,
 * figures produced for each pass. Timings on a shared box mean nothing, so none are asserted;
 * what is asserted is the mechanism: with change tracking on, a write to an unwatched table
 * costs no multiplexed statement.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSubscriptionBench, subsBenchOptions, type PassResult } from './subscriptions.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('bench:subscriptions --quick (smoke)', function () {
  this.timeout(240_000);
  let results: PassResult[];
  const opts = subsBenchOptions('quick', repoRoot);
  opts.subscribers = 300;
  opts.connections = 3;
  opts.windowSeconds = 3;
  opts.outDir = join(repoRoot, 'test/bench/results/tmp', `subs-smoke-${process.pid}`);
  opts.log = () => undefined;

  before(async () => {
    ({ results } = await runSubscriptionBench(opts, repoRoot));
  });
  after(() => rmSync(opts.outDir, { recursive: true, force: true }));

  it('measures every pass', () => {
    expect(results.map((r) => `${r.tracking}/${r.load}`)).to.deep.equal(['false/hot', 'false/cold', 'true/hot', 'true/cold']);
    for (const r of results) expect(r.engineCpuPct).to.be.a('number');
    const hot = results.find((r) => r.tracking && r.load === 'hot')!;
    expect(hot.latencyMs?.samples ?? 0).to.be.greaterThan(0);
  });

  it('runs no multiplexed statement for writes to an unwatched table when change tracking is on', function () {
    const cold = results.find((r) => r.tracking && r.load === 'cold')!;
    if (cold.statementsPerSec === null) return this.skip();
    expect(cold.statementsPerSec).to.equal(0);
    expect(results.find((r) => !r.tracking && r.load === 'cold')!.statementsPerSec).to.be.greaterThan(0);
  });
});
