/**
 * CI smoke run of the API-limit bench (`bench:limits --quick`): every scenario serves Q7 with no
 * refused or wrong answer. Timings on a shared CI box mean nothing, so none are asserted; the
 * figures of docs/performance.md come from a full run on a quiet machine.
 */
import { expect } from 'chai';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLimitsBench, type ScenarioResult } from './limits.js';
import { ensureWrk } from './wrk.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('bench:limits --quick (smoke)', function () {
  this.timeout(240_000);
  let db: TestDatabase | undefined;
  let results: ScenarioResult[] = [];

  before(async function () {
    const problem = await ensureWrk(() => undefined);
    if (problem) {
      console.log(`      bench:limits smoke skipped: ${problem}`);
      return this.skip();
    }
    db = await createTestDatabase('bench_limits');
    results = await runLimitsBench({
      databaseUrl: db.url,
      redisUrl: 'redis://127.0.0.1:6379/0',
      rounds: 1,
      durationSeconds: 1,
      connections: 4,
      repoRoot: resolve(dirname(fileURLToPath(import.meta.url)), '../..'),
      log: () => undefined,
    });
  });
  after(() => db?.drop());

  it('serves Q7 in every scenario with limits set, none refused', () => {
    expect(results.map((r) => r.name)).to.deep.equal([
      'no limits',
      'depth+node+batch+time',
      '+ rate per user (metadata database)',
      '+ rate per role (metadata database)',
      '+ rate per user (Redis)',
      '+ rate per role (Redis)',
    ]);
    for (const r of results) expect(r.runs[0]!.requests, r.name).to.be.above(0);
  });
});
