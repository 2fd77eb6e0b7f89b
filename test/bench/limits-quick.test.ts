/**
 * CI smoke runs of the API-limit benches (`bench:limits --quick`, and `bench:limits:paired` on
 * two scenarios): every scenario serves Q7 with no refused or wrong answer. Timings on a shared CI
 * box mean nothing, so none are asserted; the figures of docs/performance.md come from full runs.
 */
import { expect } from 'chai';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLimitsBench, type ScenarioResult } from './limits.js';
import { runPairedLimitsBench, type PairedResult } from './limits-paired.js';
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
      'rate per user only (metadata database)',
      'no limits (Redis engine)',
      '+ rate per user (Redis)',
      '+ rate per role (Redis)',
      'rate per user only (Redis)',
    ]);
    for (const r of results) expect(r.runs[0]!.requests, r.name).to.be.above(0);
  });
});

/** Low enough for any host to keep, so that the schedule, not the engines, sets the rate. */
const RATE = 250;

describe('bench:limits:paired (smoke)', function () {
  this.timeout(240_000);
  let db: TestDatabase | undefined;
  let results: PairedResult[] = [];

  before(async function () {
    const problem = await ensureWrk(() => undefined);
    if (problem) {
      console.log(`      bench:limits:paired smoke skipped: ${problem}`);
      return this.skip();
    }
    db = await createTestDatabase('bench_limits_paired');
    results = await runPairedLimitsBench({
      databaseUrl: db.url,
      redisUrl: 'redis://127.0.0.1:6379/0',
      rounds: 1,
      durationSeconds: 2,
      connections: 4,
      ratePerSecond: RATE,
      scenarios: ['user-md', 'user-redis'],
      repoRoot: resolve(dirname(fileURLToPath(import.meta.url)), '../..'),
      log: () => undefined,
    });
  });
  after(() => db?.drop());

  it('serves Q7 on both engines of each pair, limited and not, in both phases', () => {
    expect(results.map((r) => r.name)).to.deep.equal(['+ rate per user (metadata database)', '+ rate per user (Redis)']);
    for (const r of results) {
      expect(r.phases, r.name).to.have.length(2);
      for (const p of r.phases) {
        expect(p.limited.requests, r.name).to.be.above(0);
        expect(p.unlimited.requests, r.name).to.be.above(0);
        // The fixed schedule: each engine is sent the rate asked for, whatever its latency.
        for (const side of [p.limited, p.unlimited]) expect(side.rps, r.name).to.be.within(0.85 * RATE, 1.1 * RATE);
        // The user and system parts make up the engine's CPU, on both sides.
        for (const side of [p.limited, p.unlimited]) {
          expect(side.userUs, r.name).to.be.at.least(0);
          expect(side.systemUs, r.name).to.be.at.least(0);
          expect(side.userUs + side.systemUs, r.name).to.be.closeTo(side.cpuUs, 1e-9);
        }
      }
      // One round: its two phases averaged.
      const phaseCosts = r.phases.map((p) => p.limited.cpuUs / p.unlimited.cpuUs - 1);
      expect(r.engineCostByRound.mean, r.name).to.be.closeTo((phaseCosts[0]! + phaseCosts[1]!) / 2, 1e-12);
    }
  });
});
