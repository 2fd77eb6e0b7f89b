/**
 * CI smoke run of `npm run bench:scale -- --quick` (100 tables, 3 roles): the whole run completes
 * against a real engine and PostgreSQL, every operation and query answers without errors, and the
 * figures are sane (positive, finite, in the order the phases ran). Speed is measured by the bench,
 * not asserted here: the goals are not checked on a shared box.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { postgresBinariesAvailable } from './cluster.js';
import type { Timed } from './scale-pass.js';
import type { ScaleRun } from './scale-report.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('bench:scale --quick (smoke)', function () {
  this.timeout(180_000);
  const out = mkdtempSync(join(tmpdir(), 'svc-bench-scale-smoke-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('tracks 100 tables for 3 roles, answers every role, and tracks one more table incrementally', async function () {
    if (!postgresBinariesAvailable()) {
      console.log('      bench:scale smoke skipped: PostgreSQL server binaries are not installed');
      return this.skip();
    }
    const tsx = join(repoRoot, 'node_modules/.bin/tsx');
    await promisify(execFile)(tsx, ['test/bench/scale.ts', '--quick', '--out', out], { cwd: repoRoot });
    const md = readdirSync(out).find((f) => f.endsWith('-scale-quick.md'))!;
    const run = JSON.parse(readFileSync(join(out, md.replace(/\.md$/, '.json')), 'utf8')) as ScaleRun;
    expect(run.passes).to.have.length(1);
    const pass = run.passes[0]!;
    expect(pass.errors).to.deep.equal([]);
    expect([pass.tables, pass.roles]).to.deep.equal([100, 3]);
    // 100 tables with three permissions each cannot be smaller than this much JSON.
    expect(pass.metadataBytes).to.be.greaterThan(100 * 3 * 100);
    const positive = (x: number) => Number.isFinite(x) && x > 0;
    const sane = (t: Timed) => positive(t.ms) && Number.isFinite(t.cpuMs) && t.cpuMs >= 0;
    expect([pass.replace, ...pass.reload].every(sane)).to.equal(true);
    expect(pass.roleTimings.map((r) => r.role)).to.deep.equal(['role_01', 'role_02', 'role_03']);
    for (const r of pass.roleTimings) expect([r.introspection, r.firstQuery, r.secondQuery].every(sane)).to.equal(true);
    expect(pass.incremental).to.have.length(1);
    const inc = pass.incremental[0]!;
    expect([inc.track, inc.relationship, inc.permission, inc.firstQuery].every(sane)).to.equal(true);
    // Replacing the whole metadata does work in the engine: its CPU time cannot be nil.
    expect(pass.replace.cpuMs).to.be.greaterThan(0);
    // Building every role's schema cannot shrink the process, and an engine is not a few MB.
    expect(pass.rssAfterReplaceMb).to.be.greaterThan(30);
    expect(pass.rssRolesWarmMb).to.be.at.least(pass.rssAfterReplaceMb * 0.9);
    expect(pass.rssRolesWarmAfterGcMb).to.be.greaterThan(30);
    expect(pass.catalogPlan!.totalCost).to.be.greaterThan(0);
    expect(readFileSync(join(out, md), 'utf8')).to.include('| replace_metadata |');
  });
});
