/**
 * `npm run bench [-- options]`: the benchmark of docs/performance.md. Options:
 *   --quick                 a few seconds per query, c=10 only, no PostGraphile (the CI smoke run)
 *   --with-peers / --no-peers   run PostGraphile too / not
 *   --database-url <url>    use this (scratch!) database instead of a private cluster; the bench
 *                           drops and recreates the tables author, article and comment in it
 *   --warmup <s> --duration <s> --pgbench-duration <s> --repetitions <n>
 *   --connections 1,10,50   engine connection levels      --peer-connections 10
 *   --only Q1,Q4            run these queries only         --out <dir>
 *   --profile-engine        run the engine with `node --cpu-prof` (profile in <out>/tmp/profile)
 *   --pg-defaults           run only on a cluster with PostgreSQL's default settings (jit on, ...)
 *   --no-defaults-pass      full mode: skip the second pass on PostgreSQL's defaults
 *
 * A full run measures on a tuned private cluster (so the database is not what is measured), then
 * makes a second, engine-only pass at c=10 on PostgreSQL's default settings, which users run.
 */
import { parseArgs } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultOptions, runBench } from './bench.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'with-peers': { type: 'boolean' },
    'no-peers': { type: 'boolean' },
    'database-url': { type: 'string' },
    warmup: { type: 'string' },
    duration: { type: 'string' },
    'pgbench-duration': { type: 'string' },
    repetitions: { type: 'string' },
    connections: { type: 'string' },
    'peer-connections': { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    'profile-engine': { type: 'boolean', default: false },
    'pg-defaults': { type: 'boolean', default: false },
    'no-defaults-pass': { type: 'boolean', default: false },
  },
});

const opts = defaultOptions(values.quick ? 'quick' : 'full', repoRoot);
const num = (s: string | undefined, fallback: number) => (s === undefined ? fallback : Number(s));
if (values['with-peers']) opts.withPeers = true;
if (values['no-peers']) opts.withPeers = false;
if (values['database-url']) opts.databaseUrl = values['database-url'];
opts.warmupSeconds = num(values.warmup, opts.warmupSeconds);
opts.durationSeconds = num(values.duration, opts.durationSeconds);
opts.pgbenchSeconds = num(values['pgbench-duration'], opts.pgbenchSeconds);
opts.repetitions = num(values.repetitions, opts.repetitions);
if (values.connections) opts.connections = values.connections.split(',').map(Number);
opts.peerConnections = num(values['peer-connections'], opts.peerConnections);
if (values.only) opts.only = values.only.split(',');
if (values.out) opts.outDir = resolve(values.out);
if (values['profile-engine']) opts.engineNodeOptions = ['--cpu-prof', '--cpu-prof-dir', join(opts.outDir, 'tmp', 'profile')];

if (values['pg-defaults']) opts.pgSettings = 'defaults';

const runs = [await runBench(opts)];
if (opts.mode === 'full' && opts.pgSettings === 'tuned' && !opts.databaseUrl && !values['no-defaults-pass']) {
  runs.push(await runBench({ ...opts, pgSettings: 'defaults', withPeers: false, connections: [opts.peerConnections] }));
}
const bad = runs.flatMap(({ results }) => results.queries.filter((q) => q.status === 'gate-failed'));
if (bad.length > 0) {
  console.error(`correctness gate failed for ${bad.map((q) => q.id).join(', ')}`);
  process.exitCode = 1;
}
