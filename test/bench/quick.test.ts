/**
 * CI smoke run of the bench (`--quick`): everything end to end, a couple of seconds per query.
 * It asserts that every query passed the correctness gate and that the results files exist;
 * timings on a shared CI box mean nothing, so none are asserted.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOptions, runBench } from './bench.js';
import { postgresBinariesAvailable } from './cluster.js';
import { ensureWrk } from './wrk.js';
import { commandExists } from './proc.js';
import type { BenchResults } from './results.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('bench --quick (smoke)', function () {
  this.timeout(180_000);
  let results: BenchResults;
  let files: { json: string; md: string };

  before(async function () {
    const wrkProblem = await ensureWrk(() => undefined);
    const missing = wrkProblem ?? (!postgresBinariesAvailable() || !(await commandExists('pgbench')) || !(await commandExists('psql')) ? 'PostgreSQL server binaries, psql or pgbench are not installed' : null);
    if (missing) {
      console.log(`      bench smoke skipped: ${missing}`);
      return this.skip();
    }
    // The bench runs the compiled engine; a build after a source change takes a while on a
    // loaded machine, so it gets its own time budget before the run's.
    this.timeout(420_000);
    execFileSync(process.execPath, [join(repoRoot, 'scripts/build.js'), '--if-needed'], { cwd: repoRoot, stdio: 'pipe' });
    const opts = defaultOptions('quick', repoRoot);
    opts.outDir = join(repoRoot, 'test/bench/results/tmp', `smoke-${process.pid}`);
    opts.log = () => undefined;
    ({ results, files } = await runBench(opts));
  });

  after(() => {
    if (files) rmSync(dirname(files.json), { recursive: true, force: true });
  });

  it('passes the correctness gate for every query (the writes Q6 and Q8 may wait for mutations)', () => {
    for (const q of results.queries) {
      if (q.status === 'skipped') {
        expect(q.id, `${q.id} skipped: ${q.note}`).to.be.oneOf(['Q6', 'Q8']);
        continue;
      }
      expect(q.status, `${q.id}: ${JSON.stringify(q.gate)}`).to.equal('ok');
      for (const [candidate, gate] of Object.entries(q.gate)) {
        expect(gate, `${q.id} ${candidate}`).to.match(/^(ok|not run|n\/a)/);
      }
    }
    expect(results.queries.map((q) => q.id)).to.include.members(['Q0', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q7', 'Q8']);
  });

  it('writes the results as JSON and markdown', () => {
    expect(existsSync(files.json) && existsSync(files.md)).to.equal(true);
    expect(JSON.parse(readFileSync(files.json, 'utf8')).queries).to.have.length(results.queries.length);
    expect(readFileSync(files.md, 'utf8')).to.include('| Q1 | engine |');
  });
});
