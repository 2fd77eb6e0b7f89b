/**
 * The engine's CPU per request against the Node floor's (and, with --base, against another
 * checkout of the engine), in alternating rounds on one private cluster, for measuring hot-path
 * changes on a shared, loaded machine. Throughput there moves with other work; CPU per request
 * moves much less, and taking every candidate's figure in the same round (in a rotating order)
 * exposes them to the same conditions. The ratio engine ÷ floor is taken per round, then the
 * median over rounds.
 *
 * Usage: tsx test/bench/hotpath-ab.ts [--only Q0,Q1,Q7] [--rounds 5] [--duration 3] [--connections 10]
 *        [--base /path/to/other/checkout] [--profile-engine <dir>] [--engine-node-options '--flag ...']
 * `--base` needs a checkout with node_modules (a symlink is enough); it is built like this one.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';
import { loadDataset } from './dataset.js';
import { ADMIN_HEADERS, configureEngine, startEngineProcess } from './engine-process.js';
import { startFloor } from './floor-process.js';
import { engineSqlTemplate } from './sql-template.js';
import { QUERIES, type BenchQuery } from './queries.js';
import { runWrk, type WrkTarget } from './wrk.js';
import { CLK_TCK, treeCpuMicros } from './proc.js';
import { median } from './results.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'Q0,Q1,Q7' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    base: { type: 'string' },
    'profile-engine': { type: 'string' },
    /** Node options for this checkout's engine only (e.g. a V8 heap setting to try). */
    'engine-node-options': { type: 'string', default: '' },
  },
});
const repoRoot = resolve(import.meta.dirname, '../..');
const rounds = Number(values.rounds);
const seconds = Number(values.duration);
const connections = Number(values.connections);
const queries = QUERIES.filter((q) => values.only.split(',').includes(q.id) && !q.mutation);
const log = (m: string) => console.log(`[ab ${new Date().toISOString().slice(11, 19)}] ${m}`);

interface Candidate {
  name: string;
  pid: number;
  target: (q: BenchQuery) => WrkTarget;
}

/** User-mode CPU of one process (the engine's JavaScript; system time is mostly socket writes). */
function userMicros(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return (Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[11]) * 1e6) / CLK_TCK;
}

const workDir = mkdtempSync(join(tmpdir(), 'svc-hotpath-ab-'));
for (const dir of ['engine', 'base']) mkdirSync(join(workDir, dir));
const stops: Array<() => Promise<void>> = [];
try {
  const cluster = await startCluster(log, 'tuned');
  stops.push(cluster.stop);
  await loadDataset(cluster.url);
  const engineTarget = (url: string) => (q: BenchQuery): WrkTarget => ({
    url: url + '/v1/graphql',
    query: q.graphql,
    vars: q.vars,
    headers: q.userIdVar ? { ...ADMIN_HEADERS, 'x-svc-role': 'user' } : ADMIN_HEADERS,
    ...(q.userIdVar ? { headerFromVar: { header: 'x-svc-user-id', variable: q.userIdVar } } : {}),
  });
  const candidates: Candidate[] = [];
  const profile = values['profile-engine'] ? ['--cpu-prof', '--cpu-prof-dir', values['profile-engine']] : [];
  const extra = values['engine-node-options'].split(' ').filter(Boolean);
  const engine = await startEngineProcess(repoRoot, cluster.url, join(workDir, 'engine'), [...profile, ...extra]);
  stops.push(engine.stop);
  await configureEngine(engine.url, 10);
  candidates.push({ name: 'engine', pid: engine.pid, target: engineTarget(engine.url) });
  if (values.base) {
    const base = await startEngineProcess(resolve(values.base), cluster.url, join(workDir, 'base'));
    stops.push(base.stop);
    await configureEngine(base.url, 10);
    candidates.push({ name: 'base', pid: base.pid, target: engineTarget(base.url) });
  }
  const templates = new Map<string, string>();
  for (const q of queries) if (q.reference !== null) templates.set(q.id, await engineSqlTemplate(engine.url, q));
  const floor = await startFloor(repoRoot, cluster.url, 10, queries, templates, workDir);
  stops.push(floor.stop);
  candidates.push({
    name: 'floor',
    pid: floor.pid,
    target: (q) => ({ url: floor.url + '/v1/graphql', query: q.graphql, vars: q.vars, headers: { 'content-type': 'application/json' } }),
  });

  for (const [qi, q] of queries.entries()) {
    for (const c of candidates) await runWrk(c.target(q), connections, 1, workDir, 99);
    const cpu = new Map<string, number[]>(candidates.map((c) => [c.name, []]));
    const user = new Map<string, number[]>(candidates.map((c) => [c.name, []]));
    const ratios = new Map<string, number[]>(candidates.filter((c) => c.name !== 'floor').map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = candidates.map((_, i) => candidates[(i + round) % candidates.length]!);
      const thisRound = new Map<string, number>();
      for (const c of order) {
        const before = treeCpuMicros(c.pid);
        const userBefore = userMicros(c.pid);
        const r = await runWrk(c.target(q), connections, seconds, workDir, 1000 * qi + round);
        const used = treeCpuMicros(c.pid) - before;
        user.get(c.name)!.push((userMicros(c.pid) - userBefore) / Math.max(r.requests, 1));
        if (r.badStatus || r.badBody || r.socketErrors || r.requests === 0) {
          throw new Error(`${q.id} ${c.name}: ${r.badStatus} non-2xx, ${r.badBody} error bodies, ${r.socketErrors} socket errors, ${r.requests} requests`);
        }
        thisRound.set(c.name, used / r.requests);
        cpu.get(c.name)!.push(used / r.requests);
      }
      for (const [name, list] of ratios) list.push(thisRound.get(name)! / thisRound.get('floor')!);
      log(`${q.id} round ${round + 1}: ${[...thisRound].map(([n, v]) => `${n} ${v.toFixed(1)}`).join(', ')} µs/req (load ${loadavg()[0]!.toFixed(1)})`);
    }
    const summary = candidates.map((c) => `${c.name} ${median(cpu.get(c.name)!).toFixed(1)} (user ${median(user.get(c.name)!).toFixed(1)})`).join(', ');
    const ratioText = [...ratios].map(([n, l]) => `${n} ÷ floor ${median(l).toFixed(2)} (${Math.min(...l).toFixed(2)}–${Math.max(...l).toFixed(2)})`).join(', ');
    log(`${q.id} median CPU µs/req: ${summary}; ${ratioText}`);
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`stop failed: ${String(e)}`));
  rmSync(workDir, { recursive: true, force: true });
}
