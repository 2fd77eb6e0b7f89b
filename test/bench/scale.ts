/**
 * `npm run bench:scale [-- options]`: the metadata at scale (issue 12, item 5). A generated schema
 * (test/bench/scale-schema.ts: 1,000 tables with foreign keys, object and array relationships, 20
 * roles with select/insert/update permissions) against a real engine process, measuring:
 *   - replace_metadata with all of it, then reload_metadata (median of 3);
 *   - per role, the first introspection query (builds the role's schema) and, after a reload
 *     (cold schemas again), the first query (schema build + plan + execution) and a second one;
 *   - the engine's RSS once every role's schema is built;
 *   - incremental work: pg_track_table of a new table, an object relationship to it and a select
 *     permission on it, then that role's first query;
 *   - on PostgreSQL's default settings (jit on), the same, plus the plan of the catalog
 *     introspection statement: what JIT would cost it if the engine did not switch it off.
 * Options:
 *   --quick                 100 tables, 3 roles, tuned cluster only (the CI smoke run)
 *   --tables <n> --roles <n>
 *   --passes tuned,defaults which PostgreSQL settings to run on (full default: both)
 *   --profile               run the engine with `node --cpu-prof` (profiles in <out>/tmp/scale-profile)
 *   --out <dir>             results directory (default test/bench/results, tmp/ in quick mode)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startCluster, type ClusterProfile } from './cluster.js';
import { startEngineProcess } from './engine-process.js';
import { runScalePass, type ScalePass } from './scale-pass.js';
import { scaleReport } from './scale-report.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    tables: { type: 'string' },
    roles: { type: 'string' },
    passes: { type: 'string' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const quick = values.quick;
const tables = Number(values.tables ?? (quick ? 100 : 1000));
const roles = Number(values.roles ?? (quick ? 3 : 20));
const passes = (values.passes ?? (quick ? 'tuned' : 'tuned,defaults')).split(',') as ClusterProfile[];
const outDir = values.out ? resolve(values.out) : join(repoRoot, 'test/bench/results', quick ? 'tmp' : '');
const log = (m: string) => console.log(`[bench:scale ${new Date().toISOString().slice(11, 19)}] ${m}`);

const startedAt = new Date().toISOString();
const loadStart = loadavg();
const results: ScalePass[] = [];
const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
try {
  for (const profile of passes) {
    const cluster = await startCluster(log, profile);
    try {
      const nodeOptions = values.profile ? ['--cpu-prof', '--cpu-prof-dir', join(outDir, 'tmp', 'scale-profile')] : [];
      const start = (extra: string[]) => startEngineProcess(repoRoot, cluster.url, workDir, [...nodeOptions, ...extra]);
      results.push(await runScalePass({ profile, databaseUrl: cluster.url, tables, roles, quick, log, startEngine: start }));
    } finally {
      await cluster.stop();
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

const machine = {
  nproc: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  memGb: Math.round(totalmem() / 2 ** 30),
  loadStart,
  loadEnd: loadavg(),
  node: process.version,
};
const run = { startedAt, finishedAt: new Date().toISOString(), mode: quick ? 'quick' : 'full', tables, roles, machine, passes: results };
mkdirSync(outDir, { recursive: true });
const file = join(outDir, `${startedAt.slice(0, 16).replace('T', '-').replace(':', '')}-scale${quick ? '-quick' : ''}`);
writeFileSync(`${file}.json`, JSON.stringify(run, null, 2) + '\n');
writeFileSync(`${file}.md`, scaleReport(run));
log(`results: ${file}.md`);
if (results.some((p) => p.errors.length > 0)) process.exitCode = 1;
