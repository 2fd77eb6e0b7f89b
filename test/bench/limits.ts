/**
 * The cost of the API-limit plugins on the pk-lookup hot path (Q7: Q1's query as role `user`,
 * since admin is exempt from every limit). The same engine is timed with wrk with no limit set,
 * with depth, node, batch and time limits set (high enough never to refuse), and with a rate
 * limit added, per user (10,000 keys) and per role (one key), counted in the metadata database,
 * then in Redis by a second engine process, in alternating rounds so that load from other
 * processes falls on every scenario alike. Besides req/s, each run records the CPU per request of
 * the engine, the private PostgreSQL cluster and the Redis server: on a shared machine req/s
 * moves with other work, CPU per request much less. Each scenario's cost is against the no-limits
 * run of the same engine process in the same round (two processes' heaps and code caches differ
 * by more than the few percent measured here).
 *
 *   npm run bench:limits [-- --quick] [--database-url <scratch url>] [--rounds n] [--duration s]
 *                        [--only <substring>,...]   (scenarios whose name holds one; baselines always run)
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_HEADERS, configureEngine, postJson, startEngineProcess, type EngineProcess } from './engine-process.js';
import { QUERIES } from './queries.js';
import type { WrkResult } from './wrk.js';
import { processCpuMicros, redisServerPid, treeCpuMicros } from './proc.js';
import { benchArgs, isMain, median, repoRootOf, runRoundRobin, withBenchDatabase, writeBenchReport, type RoundRobinOptions, type RoundRobinScenario } from './round-robin.js';

export interface LimitsBenchOptions extends RoundRobinOptions {
  redisUrl?: string | undefined;
  repoRoot: string;
  /** Only the scenarios whose name contains one of these (the no-limits baselines always run). */
  only?: string[] | undefined;
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
  /**
   * Requests per second relative to the no-limits scenario of the same engine process (1 = no
   * cost): the median over rounds of each round's ratio to that baseline's run of the same round.
   * Pairing by round keeps the host's drift between rounds (other work on a shared machine) out
   * of the ratio.
   */
  relative: number;
  /** Engine + store CPU per request relative to the no-limits scenario (1 = no cost), paired by round as `relative`. */
  relativeCpu: number;
}

/** Depth, node, batch and time limits, high enough never to refuse (shared with limits-paired.ts). */
export const LIMITS = {
  depth_limit: { global: 10 },
  node_limit: { global: 100 },
  batch_limit: { global: 10 },
  time_limit: { global: 30 },
};
// Per user (10,000 users, each a key of its own: the hard case for leases, every key cold at first).
export const WITH_RATE = { ...LIMITS, rate_limit: { global: { max_reqs_per_min: 100_000_000, unique_params: ['x-svc-user-id'] } } };
// Per role: one key shared by every request.
export const WITH_ROLE_RATE = { ...LIMITS, rate_limit: { global: { max_reqs_per_min: 100_000_000 } } };
// The per-user rate limit alone: its cost without the static limits' (which also take the executor
// off its no-limit fast path).
export const RATE_ONLY = { rate_limit: WITH_RATE.rate_limit };

const NO_LIMITS = 'no limits';
const NO_LIMITS_REDIS = 'no limits (Redis engine)';

export async function runLimitsBench(opts: LimitsBenchOptions): Promise<ScenarioResult[]> {
  const q7 = QUERIES.find((q) => q.id === 'Q7')!;
  return withBenchDatabase(opts, 'limits', async ({ cluster, workDir, onStop }) => {
    const engine = await startEngineProcess(opts.repoRoot, cluster.url, workDir);
    onStop(engine.stop);
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
      onStop(redisEngine.stop);
    }
    const setLimits = async (args: unknown) => {
      const res = await postJson(`${engine.url}/v1/metadata`, args === null ? { type: 'remove_api_limits', args: {} } : { type: 'set_api_limits', args });
      if (res.status !== 200) throw new Error(`set_api_limits failed: ${JSON.stringify(res.body)}`);
    };
    const redisPid = opts.redisUrl ? await redisServerPid() : undefined;
    const baselineOf = new Map<string, string>();
    const scenario = (name: string, limits: unknown, served: EngineProcess): RoundRobinScenario<ScenarioRun> => {
      baselineOf.set(name, served === engine ? NO_LIMITS : NO_LIMITS_REDIS);
      return {
        name,
        target: { url: `${served.url}/v1/graphql`, query: q7.graphql, vars: q7.vars, headers: { ...ADMIN_HEADERS, 'x-svc-role': 'user' }, headerFromVar: { header: 'x-svc-user-id', variable: q7.userIdVar! } },
        prepare: async () => {
          await setLimits(limits);
          // The Redis engine does not poll in the bench: it learns the limits from a reload.
          if (served !== engine) await postJson(`${served.url}/v1/metadata`, { type: 'reload_metadata', args: {} });
        },
        measure: async (timed) => {
          const cpu0 = processCpuMicros(served.pid);
          const pg0 = cluster.postmasterPid === undefined ? 0 : treeCpuMicros(cluster.postmasterPid);
          const redis0 = redisPid === undefined ? 0 : processCpuMicros(redisPid);
          const r = await timed();
          const n = Math.max(r.requests, 1);
          return {
            ...r,
            engineCpuUs: (processCpuMicros(served.pid) - cpu0) / n,
            pgCpuUs: cluster.postmasterPid === undefined ? 0 : (treeCpuMicros(cluster.postmasterPid) - pg0) / n,
            redisCpuUs: redisPid === undefined ? 0 : (processCpuMicros(redisPid) - redis0) / n,
          };
        },
        describe: (m) => `engine ${m.engineCpuUs.toFixed(0)} µs/req, PostgreSQL ${m.pgCpuUs.toFixed(0)} µs/req, Redis ${m.redisCpuUs.toFixed(0)} µs/req`,
      };
    };
    const scenarios = [
      scenario(NO_LIMITS, null, engine),
      scenario('depth+node+batch+time', LIMITS, engine),
      scenario('+ rate per user (metadata database)', WITH_RATE, engine),
      scenario('+ rate per role (metadata database)', WITH_ROLE_RATE, engine),
      scenario('rate per user only (metadata database)', RATE_ONLY, engine),
    ];
    if (redisEngine) {
      scenarios.push(scenario(NO_LIMITS_REDIS, null, redisEngine));
      scenarios.push(scenario('+ rate per user (Redis)', WITH_RATE, redisEngine));
      scenarios.push(scenario('+ rate per role (Redis)', WITH_ROLE_RATE, redisEngine));
      scenarios.push(scenario('rate per user only (Redis)', RATE_ONLY, redisEngine));
    }
    const baseline = (name: string) => name === NO_LIMITS || name === NO_LIMITS_REDIS;
    const chosen = scenarios.filter((s) => baseline(s.name) || !opts.only || opts.only.some((o) => s.name.includes(o)));
    const runs = await runRoundRobin(chosen, opts, workDir);
    await setLimits(null);
    // The store's CPU counts: a rate counter in PostgreSQL or Redis costs there, not in the engine.
    const total = (r: ScenarioRun) => r.engineCpuUs + r.pgCpuUs + r.redisCpuUs;
    return chosen.map((s) => {
      const base = runs.get(baselineOf.get(s.name)!)!;
      const rs = runs.get(s.name)!;
      const rps = median(rs.map((r) => r.rps));
      return {
        name: s.name,
        runs: rs,
        medianRps: rps,
        medianP50Us: median(rs.map((r) => r.p50Us)),
        medianEngineCpuUs: median(rs.map((r) => r.engineCpuUs)),
        medianStoreCpuUs: median(rs.map((r) => r.pgCpuUs + r.redisCpuUs)),
        relative: median(rs.map((r, i) => r.rps / base[i]!.rps)),
        relativeCpu: median(rs.map((r, i) => total(r) / total(base[i]!))),
      };
    });
  });
}

export function limitsReport(results: ScenarioResult[]): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.medianRps.toFixed(0)} | ${(r.medianP50Us / 1000).toFixed(2)} | ${r.medianEngineCpuUs.toFixed(0)} | ${r.medianStoreCpuUs.toFixed(0)} | ${pct(1 - r.relative)} | ${pct(r.relativeCpu - 1)} |`,
  );
  return [
    '| scenario (Q7, c=10) | median req/s | median p50 ms | engine CPU µs/req | PostgreSQL + Redis CPU µs/req | cost: req/s (median of rounds) | cost: CPU/req (median of rounds) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = benchArgs(5, { 'redis-url': 'redis://127.0.0.1:6379/0', only: undefined });
  const repoRoot = repoRootOf(import.meta.url);
  const results = await runLimitsBench({
    databaseUrl: args.databaseUrl,
    redisUrl: args.extra('redis-url'),
    rounds: args.rounds,
    durationSeconds: args.durationSeconds,
    connections: 10,
    only: args.extra('only')?.split(',').map((o) => o.trim()).filter((o) => o !== ''),
    repoRoot,
    log: (m) => console.log(`[bench:limits] ${m}`),
  });
  writeBenchReport(repoRoot, 'limits', limitsReport(results), args.quick, args.out);
}
