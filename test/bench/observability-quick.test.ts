/**
 * CI smoke run of the observability bench (`bench:observability --quick`): every scenario serves
 * Q1 with no wrong answer. Timings on a shared CI box mean nothing, so none are asserted; the
 * "< 3% for metrics on, tracing off" figure comes from a full run on a quiet machine.
 */
import { expect } from 'chai';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runObservabilityBench, type ObservabilityScenario } from './observability.js';
import { ensureWrk } from './wrk.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('bench:observability --quick (smoke)', function () {
  this.timeout(240_000);
  let db: TestDatabase | undefined;
  let results: ObservabilityScenario[] = [];

  before(async function () {
    const problem = await ensureWrk(() => undefined);
    if (problem) {
      console.log(`      bench:observability smoke skipped: ${problem}`);
      return this.skip();
    }
    db = await createTestDatabase('bench_obs');
    results = await runObservabilityBench({
      databaseUrl: db.url,
      rounds: 1,
      durationSeconds: 1,
      connections: 4,
      repoRoot: resolve(dirname(fileURLToPath(import.meta.url)), '../..'),
      log: () => undefined,
    });
  });
  after(() => db?.drop());

  it('serves Q1 with metrics off, metrics on and tracing on', () => {
    expect(results.map((r) => r.name)).to.deep.equal(['off', 'metrics on, tracing off', 'metrics + tracing']);
    for (const r of results) expect(r.runs[0]!.requests, r.name).to.be.above(0);
  });
});
