/**
 * CI smoke run of `npm run bench:workers -- --quick`: the engine runs with 1 and then 2 workers,
 * every timed request succeeds and the results files are written. Timings on a shared box mean
 * nothing, so none is asserted.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { postgresBinariesAvailable } from './cluster.js';
import { ensureWrk } from './wrk.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('bench:workers --quick (smoke)', function () {
  this.timeout(420_000);
  const out = mkdtempSync(join(tmpdir(), 'svc-bench-workers-smoke-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('measures Q1 with 1 and 2 workers, every request answered', async function () {
    const missing = (await ensureWrk(() => undefined)) ?? (postgresBinariesAvailable() ? null : 'PostgreSQL server binaries are not installed');
    if (missing) {
      console.log(`      bench:workers smoke skipped: ${missing}`);
      return this.skip();
    }
    const tsx = join(repoRoot, 'node_modules/.bin/tsx');
    await promisify(execFile)(tsx, ['test/bench/workers.ts', '--quick', '--duration', '1', '--warmup', '1', '--out', out], { cwd: repoRoot });
    const md = readdirSync(out).find((f) => f.endsWith('-workers.md'))!;
    const json = JSON.parse(readFileSync(join(out, md.replace(/\.md$/, '.json')), 'utf8')) as { rows: Array<{ workers: number; m: { status: string } }> };
    expect(json.rows.map((r) => [r.workers, r.m.status])).to.deep.equal([[1, 'ok'], [2, 'ok']]);
    expect(readFileSync(join(out, md), 'utf8')).to.include('| 2 | 10 |');
  });
});
