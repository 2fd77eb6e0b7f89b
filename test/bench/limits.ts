/**
 * The cost of the API-limit plugins on the pk-lookup hot path (Q7: Q1's query as role `user`,
 * since admin is exempt from every limit). The same engine is timed with wrk with no limit set,
 * with depth, node, batch and time limits set (high enough never to refuse), and with a rate
 * limit added, per user (10,000 keys) and per role (one key), counted in the metadata database,
 * then in Redis by a second engine process, in alternating rounds so that load from other
 * processes falls on every scenario alike. Besides req/s, each run records the CPU per request of
 * the engine, the private PostgreSQL cluster and the Redis server: on a shared machine req/s
 * moves with other work, CPU per request much less.
 *
 *   npm run bench:limits [-- --quick] [--database-url <scratch url>] [--rounds n] [--duration s]
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { externalCluster, startCluster, type Cluster } from './cluster.js';
import { loadDataset } from './dataset.js';
import { ADMIN_HEADERS, configureEngine, postJson, startEngineProcess, type EngineProcess } from './engine-process.js';
import { QUERIES } from './queries.js';
import { ensureWrk, runWrk, type WrkResult } from './wrk.js';
import { processCpuMicros, run, treeCpuMicros } from './proc.js';

export interface LimitsBenchOptions {
  databaseUrl?: string;
  redisUrl?: string;
  rounds: number;
  durationSeconds: number;
  connections: number;
  repoRoot: string;
  log: (m: string) => void;
}

export interface ScenarioRun extends WrkResult {
  /** CPU of the engine process serving the scenario, per request. */
  engineCpuUs: number;
  /** CPU of the private PostgreSQL cluster (queries and, without Redis, the rate counters), per request; 0 on an external database. */
  pgCpuUs: number;
  /** CPU of the Redis server, per request (a shared server: other work shows up too); 0 when not found. */
  redisCpuUs: number;
}

export interface ScenarioResult {
  name: string;
  runs: ScenarioRun[];
  medianRps: number;
  medianP50Us: number;
  medianEngineCpuUs: number;
  medianStoreCpuUs: number;
  /** Median requests per second relative to the no-limits scenario (1 = no cost). */
  relative: number;
  /** Median engine + store CPU per request relative to the no-limits scenario (1 = no cost). */
  relativeCpu: number;
}

const LIMITS = {
  depth_limit: { global: 10 },
  node_limit: { global: 100 },
  batch_limit: { global: 10 },
  time_limit: { global: 30 },
};
// Per user (10,000 users, each a key of its own: the hard case for leases, every key cold at first).
const WITH_RATE = { ...LIMITS, rate_limit: { global: { max_reqs_per_min: 100_000_000, unique_params: ['x-svc-user-id'] } } };
// Per role: one key shared by every request.
const WITH_ROLE_RATE = { ...LIMITS, rate_limit: { global: { max_reqs_per_min: 100_000_000 } } };

async function redisServerPid(): Promise<number | undefined> {
  const r = await run('pidof', ['redis-server'], { allowFail: true }).catch(() => undefined);
  const pid = Number(r?.stdout.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function runLimitsBench(opts: LimitsBenchOptions): Promise<ScenarioResult[]> {
  const problem = await ensureWrk(opts.log);
  if (problem) throw new Error(problem);
  const q7 = QUERIES.find((q) => q.id === 'Q7')!;
  const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-limits-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    const cluster: Cluster = opts.databaseUrl ? externalCluster(opts.databaseUrl) : await startCluster(opts.log);
    stops.push(cluster.stop);
    opts.log('loading the dataset');
    await loadDataset(cluster.url);
    const engine = await startEngineProcess(opts.repoRoot, cluster.url, workDir);
    stops.push(engine.stop);
    await configureEngine(engine.url, 10);
    let redisEngine: EngineProcess | undefined;
    if (opts.redisUrl) {
      process.env['SVC_GRAPHQL_REDIS_URL'] = opts.redisUrl;
      try {
        const redisDir = join(workDir, 'redis');
        mkdirSync(redisDir);
        redisEngine = await startEngineProcess(opts.repoRoot, cluster.url, redisDir);
      } finally {
        delete process.env['SVC_GRAPHQL_REDIS_URL'];
      }
      stops.push(redisEngine.stop);
    }
    const setLimits = async (args: unknown) => {
      const res = await postJson(`${engine.url}/v1/metadata`, args === null ? { type: 'remove_api_limits', args: {} } : { type: 'set_api_limits', args });
      if (res.status !== 200) throw new Error(`set_api_limits failed: ${JSON.stringify(res.body)}`);
    };
    const scenarios: Array<{ name: string; limits: unknown; url: string; pid: number }> = [
      { name: 'no limits', limits: null, url: engine.url, pid: engine.pid },
      { name: 'depth+node+batch+time', limits: LIMITS, url: engine.url, pid: engine.pid },
      { name: '+ rate per user (metadata database)', limits: WITH_RATE, url: engine.url, pid: engine.pid },
      { name: '+ rate per role (metadata database)', limits: WITH_ROLE_RATE, url: engine.url, pid: engine.pid },
    ];
    if (redisEngine) {
      scenarios.push({ name: '+ rate per user (Redis)', limits: WITH_RATE, url: redisEngine.url, pid: redisEngine.pid });
      scenarios.push({ name: '+ rate per role (Redis)', limits: WITH_ROLE_RATE, url: redisEngine.url, pid: redisEngine.pid });
    }
    const redisPid = opts.redisUrl ? await redisServerPid() : undefined;
    const runs = new Map<string, ScenarioRun[]>(scenarios.map((s) => [s.name, []]));
    let seed = 1;
    for (let round = 0; round < opts.rounds; round++) {
      for (const s of scenarios) {
        await setLimits(s.limits);
        // The Redis engine does not poll in the bench: it learns the limits from a reload.
        if (s.url !== engine.url) await postJson(`${s.url}/v1/metadata`, { type: 'reload_metadata', args: {} });
        const target = { url: `${s.url}/v1/graphql`, query: q7.graphql, vars: q7.vars, headers: { ...ADMIN_HEADERS, 'x-svc-role': 'user' }, headerFromVar: { header: 'x-svc-user-id', variable: q7.userIdVar! } };
        const cpu0 = processCpuMicros(s.pid);
        const pg0 = cluster.postmasterPid === undefined ? 0 : treeCpuMicros(cluster.postmasterPid);
        const redis0 = redisPid === undefined ? 0 : processCpuMicros(redisPid);
        const r = await runWrk(target, opts.connections, opts.durationSeconds, workDir, seed++);
        if (r.badStatus || r.badBody || r.socketErrors) throw new Error(`${s.name}: ${r.badStatus} bad statuses, ${r.badBody} bad bodies, ${r.socketErrors} socket errors`);
        const n = Math.max(r.requests, 1);
        const measured: ScenarioRun = {
          ...r,
          engineCpuUs: (processCpuMicros(s.pid) - cpu0) / n,
          pgCpuUs: cluster.postmasterPid === undefined ? 0 : (treeCpuMicros(cluster.postmasterPid) - pg0) / n,
          redisCpuUs: redisPid === undefined ? 0 : (processCpuMicros(redisPid) - redis0) / n,
        };
        runs.get(s.name)!.push(measured);
        opts.log(
          `round ${round + 1} ${s.name}: ${r.rps.toFixed(0)} req/s, p50 ${(r.p50Us / 1000).toFixed(2)} ms, ` +
            `engine ${measured.engineCpuUs.toFixed(0)} µs/req, PostgreSQL ${measured.pgCpuUs.toFixed(0)} µs/req, Redis ${measured.redisCpuUs.toFixed(0)} µs/req`,
        );
      }
    }
    await setLimits(null);
    // The store's CPU counts: a rate counter in PostgreSQL or Redis costs there, not in the engine.
    const total = (r: ScenarioRun) => r.engineCpuUs + r.pgCpuUs + r.redisCpuUs;
    const base = median(runs.get('no limits')!.map((r) => r.rps));
    const baseCpu = median(runs.get('no limits')!.map(total));
    return scenarios.map((s) => {
      const rs = runs.get(s.name)!;
      const rps = median(rs.map((r) => r.rps));
      const cpu = median(rs.map(total));
      return {
        name: s.name,
        runs: rs,
        medianRps: rps,
        medianP50Us: median(rs.map((r) => r.p50Us)),
        medianEngineCpuUs: median(rs.map((r) => r.engineCpuUs)),
        medianStoreCpuUs: median(rs.map((r) => r.pgCpuUs + r.redisCpuUs)),
        relative: rps / base,
        relativeCpu: cpu / baseCpu,
      };
    });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

export function limitsReport(results: ScenarioResult[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.medianRps.toFixed(0)} | ${(r.medianP50Us / 1000).toFixed(2)} | ${r.medianEngineCpuUs.toFixed(0)} | ${r.medianStoreCpuUs.toFixed(0)} | ${pct(1 - r.relative)} | ${pct(r.relativeCpu - 1)} |`,
  );
  return [
    '| scenario (Q7, c=10) | median req/s | median p50 ms | engine CPU µs/req | PostgreSQL + Redis CPU µs/req | cost: req/s | cost: CPU/req |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379/0' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const results = await runLimitsBench({
    databaseUrl: values['database-url'],
    redisUrl: values['redis-url'],
    rounds: Number(values.rounds ?? (values.quick ? 1 : 5)),
    durationSeconds: Number(values.duration ?? (values.quick ? 2 : 10)),
    connections: 10,
    repoRoot,
    log: (m) => console.log(`[bench:limits] ${m}`),
  });
  const report = limitsReport(results);
  console.log(report);
  const out = values.out ?? join(repoRoot, 'test/bench/results', values.quick ? 'tmp' : '');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `limits-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), report + '\n');
}
