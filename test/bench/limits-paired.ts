/**
 * The cost of a limit set, measured side by side. bench:limits times its scenarios one after the
 * other, and on this 2-core shared host the no-limits run alone moves by 15-40% between rounds,
 * more than the few percent to resolve. Here two engine processes (A and B, one database, each its
 * own metadata database) are served at the same moment by two wrk runs, one engine with the limits
 * set and the other without; then they swap. Whatever the host does during a phase falls on both
 * alike, and the swap cancels what differs between the two processes (heap layout, code caches).
 * A scenario's cost is the median over rounds of (limited CPU per request ÷ unlimited CPU per
 * request) − 1, each phase's ratio taken within the phase; the report also gives the mean with its
 * standard error, the same for the engine's user CPU alone (the limits' own code runs there) and
 * its system CPU, and the mean over the phases with A limited and with B limited: on this host the
 * two engines differ by a few percent whichever has the limits (the first one started costs more
 * per request), which the swap cancels in the mean but which widens the spread. The swap cancels a
 * difference between the two processes only when it does not depend on the limits; one that does
 * (how a process's layout suits the limits' memory traffic) is drawn once per run, and the phases'
 * standard error does not show it. `--fresh-engines` starts both engines anew before each round,
 * the one started first alternating, so that such differences are drawn afresh every round and
 * show in the spread (at about 10 s a round for the restarts and a longer warm-up). It measures
 * young engines, though: a per-user rate limit costs them about twice what it costs one that has
 * run for minutes, every key being new (docs/performance.md, "How the per-user figure depends on
 * the keys' history").
 *
 * The load is open: each engine is sent `--rate` requests a second (1,300 by default) on a fixed
 * schedule (wrk.ts `ratePerSecond`), whatever its latency. Under a closed loop an engine that
 * answers a little slower gets fewer requests, and CPU per request depends on the request rate
 * (fewer requests per event-loop turn and per socket write), which feeds the difference back into
 * itself. Pausing each connection after an answer (`--rate 0 --delay-ms n`, the default before
 * 2026-11-30) narrows that but does not remove it: the two engines' rates still differed by about
 * 7% (standard deviation) from phase to phase on this host, CPU per request followed, and the
 * engine started first cost about 7% more per request whichever had the limits. On the schedule
 * both engines get the same rate within 0.3%, and that bias shrank (gone in some runs, a few
 * percent in others: docs/performance.md, "The paired bench on a fixed schedule"); the cost by
 * round cancels what is left within each round. A phase whose engine could not keep the schedule
 * is flagged in the report.
 *
 * The store's CPU is counted for the limited side: the Redis server's (only the limited engine
 * uses it), or the metadata database backends of the rate-limit pool (application name
 * `svc-graphql-engine-rate-limit`; a backend that exits mid-phase loses its CPU, so this is a
 * lower bound).
 *
 *   npx tsx test/bench/limits-paired.ts [--scenarios user-redis,role-redis,...] [--rounds n] [--duration s] [--rate req/s | --rate 0 --delay-ms n] [--spin-us n] [--fresh-engines] [--quick]
 *   npm run bench:limits:paired -- ...
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN_HEADERS, configureEngine, postJson, startEngineProcess, type EngineProcess } from './engine-process.js';
import { QUERIES } from './queries.js';
import { LIMITS, RATE_ONLY, WITH_RATE, WITH_ROLE_RATE } from './limits.js';
import { processCpuPreciseMicros, processCpuSplitMicros, redisServerPid } from './proc.js';
import { benchArgs, isMain, median, repoRootOf, withBenchDatabase, writeBenchReport, type RoundRobinOptions } from './round-robin.js';
import { runWrk, type WrkResult, type WrkTarget } from './wrk.js';

type Store = 'redis' | 'metadata';

export interface PairedScenario {
  id: string;
  name: string;
  store: Store;
  limits: Record<string, unknown>;
  /** Run only when named in `scenarios`: a part of another scenario's set, to find what costs. */
  part?: true;
}

/** The batch limit value that switches the calibration plugin's spin on (given to it as SVC_BENCH_SPIN_MARK). */
const SPIN_MARK = 777;

export const PAIRED_SCENARIOS: readonly PairedScenario[] = [
  // An A/A run: both sides without limits, so what it shows is the bench's own bias and spread.
  { id: 'control', name: 'no limits on either side (control)', store: 'metadata', limits: {}, part: true },
  { id: 'static', name: 'depth+node+batch+time', store: 'metadata', limits: LIMITS },
  { id: 'time', name: 'time limit only', store: 'metadata', limits: { time_limit: LIMITS.time_limit }, part: true },
  {
    id: 'depth-node-batch',
    name: 'depth+node+batch',
    store: 'metadata',
    limits: { depth_limit: LIMITS.depth_limit, node_limit: LIMITS.node_limit, batch_limit: LIMITS.batch_limit },
    part: true,
  },
  // The per-user limit beside each half of the static set: which of them it costs more with.
  { id: 'time-user-md', name: 'time limit + rate per user (metadata database)', store: 'metadata', limits: { time_limit: LIMITS.time_limit, ...RATE_ONLY }, part: true },
  {
    id: 'dnb-user-md',
    name: 'depth+node+batch + rate per user (metadata database)',
    store: 'metadata',
    limits: { depth_limit: LIMITS.depth_limit, node_limit: LIMITS.node_limit, batch_limit: LIMITS.batch_limit, ...RATE_ONLY },
    part: true,
  },
  { id: 'role-md', name: '+ rate per role (metadata database)', store: 'metadata', limits: WITH_ROLE_RATE },
  { id: 'user-md', name: '+ rate per user (metadata database)', store: 'metadata', limits: WITH_RATE },
  { id: 'user-only-md', name: 'rate per user only (metadata database)', store: 'metadata', limits: RATE_ONLY },
  { id: 'role-only-md', name: 'rate per role only (metadata database)', store: 'metadata', limits: { rate_limit: WITH_ROLE_RATE.rate_limit }, part: true },
  { id: 'role-redis', name: '+ rate per role (Redis)', store: 'redis', limits: WITH_ROLE_RATE },
  { id: 'user-redis', name: '+ rate per user (Redis)', store: 'redis', limits: WITH_RATE },
  { id: 'user-only-redis', name: 'rate per user only (Redis)', store: 'redis', limits: RATE_ONLY },
  // Calibration: a check of known, pure CPU work (test/bench/fixtures/spin-limit.js) beside the
  // batch limit, against the batch limit alone: what the bench reports for a cost known in advance.
  { id: 'batch', name: 'batch limit only', store: 'metadata', limits: { batch_limit: LIMITS.batch_limit }, part: true },
  { id: 'spin', name: 'batch limit + a calibrated spin', store: 'metadata', limits: { batch_limit: { global: SPIN_MARK } }, part: true },
];

export interface PairedOptions extends RoundRobinOptions {
  redisUrl: string;
  repoRoot: string;
  /** Scenario ids (PAIRED_SCENARIOS); by default all but the parts. */
  scenarios?: readonly string[] | undefined;
  /** Pause of each connection between an answer and its next request, ms (undefined: closed loop). */
  delayMs?: number | undefined;
  /**
   * Requests per second to each engine on a fixed schedule (wrk.ts `ratePerSecond`), instead of
   * `delayMs`: both engines of a phase get the same rate whatever their latency.
   */
  ratePerSecond?: number | undefined;
  /** The calibration spin's microseconds per check (scenario `spin`; the plugin's default is 3). */
  spinMicros?: number | undefined;
  /**
   * Start both engines anew before every round after the first, the one started first alternating
   * by round, so that what one process run differs from another by (where its heap and code fell,
   * which engine the host started first) is drawn afresh each round instead of once per run.
   */
  freshEngines?: boolean | undefined;
}

/** Engine CPU per request in a phase: the total, and its user and system parts. */
interface PhaseCpu {
  cpuUs: number;
  userUs: number;
  systemUs: number;
  /** The main thread's part of cpuUs (the rest ran on V8's GC and compiler threads and libuv's pool). */
  mainThreadUs: number;
}

export interface PhaseRun {
  /** Which engine had the limits: the swap's halves, whose means differ by the engines' own bias. */
  limitedSide: 'A' | 'B';
  limited: WrkResult & PhaseCpu & { storeCpuUs: number };
  unlimited: WrkResult & PhaseCpu;
}

export interface PairedResult {
  name: string;
  phases: PhaseRun[];
  medianLimitedCpuUs: number;
  medianUnlimitedCpuUs: number;
  medianStoreCpuUs: number;
  /** Median over phases of limited ÷ unlimited engine CPU per request, − 1. */
  engineCost: number;
  /** The mean of the same ratios − 1, and its standard error. */
  engineCostMean: number;
  engineCostError: number;
  /**
   * The same median for the engine's user CPU alone (its own code, where the limits run) and for
   * its system CPU (syscalls, and on loopback the TCP work of delivering its writes to wrk and
   * PostgreSQL, which moves with how the processes' timing falls on the host's two cores).
   */
  userCost: number;
  userCostMean: number;
  userCostError: number;
  systemCost: number;
  /** Mean engine-CPU cost over the phases with A limited, and with B limited. */
  engineCostBySide: { A: number; B: number };
  /**
   * The engine-CPU cost by round: each round's two phases (A limited, then B) averaged, which
   * cancels the engines' own bias within the round, and the mean of those with its standard
   * error. The phases' error above includes that bias (on this host often ±5-8% a phase, which
   * the swap cancels in the mean but not in the spread), so this is the tighter figure.
   */
  engineCostByRound: { mean: number; error: number };
  /** The same with the store's CPU added to the limited side. */
  totalCost: number;
  /** Median over phases of 1 − limited ÷ unlimited req/s. */
  rpsCost: number;
}

/**
 * The CLI's default schedule, requests a second to each engine: on this 2-core host the engines
 * answer Q7 at about 1,500 a second each with 2-ms pauses, so 1,300 leaves their connections
 * room to keep the schedule (a phase that falls behind is flagged in the report).
 */
export const DEFAULT_RATE = 1300;

/** A phase whose engine reached less than this share of the schedule's rate fell behind it. */
const KEPT_SCHEDULE = 0.97;

const RATE_POOL = 'svc-graphql-engine-rate-limit';
const WARM_UP_SECONDS = 2;
/** With engines started anew each round, their code is optimised afresh too: a longer warm-up. */
const FRESH_WARM_UP_SECONDS = 5;

/** CPU µs of the metadata database's rate-limit backends, by pid (a local cluster only). */
async function rateBackendsCpu(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [RATE_POOL]);
  return new Map(rows.map((r) => [r.pid, processCpuPreciseMicros(r.pid)]));
}

function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let us = 0;
  for (const [pid, cpu] of after) us += cpu - (before.get(pid) ?? 0);
  return us;
}

/** A plugin config: the default plugins and the calibration spin (test/bench/fixtures/spin-limit.js). */
function spinPluginConfig(repoRoot: string, workDir: string): string {
  const path = join(workDir, 'plugins-spin.json');
  if (!existsSync(path)) {
    const defaults = JSON.parse(readFileSync(join(repoRoot, 'config/plugins.json'), 'utf8')) as { plugins: unknown[] };
    const module = join(repoRoot, 'test/bench/fixtures/spin-limit.js');
    writeFileSync(path, JSON.stringify({ plugins: [...defaults.plugins, { id: 'limits/bench-spin', module }] }));
  }
  return path;
}

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

export async function runPairedLimitsBench(opts: PairedOptions): Promise<PairedResult[]> {
  const q7 = QUERIES.find((q) => q.id === 'Q7')!;
  const chosen = PAIRED_SCENARIOS.filter((s) => (opts.scenarios ? opts.scenarios.includes(s.id) : !s.part));
  if (chosen.length === 0) throw new Error(`no scenario among ${PAIRED_SCENARIOS.map((s) => s.id).join(', ')}`);
  return withBenchDatabase(opts, 'limits-paired', async ({ cluster, workDir, onStop }) => {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    onStop(() => admin.end());
    const redisPid = await redisServerPid();
    // Engines per store kind, two of each, each with its own metadata database.
    const pairs = new Map<Store, [EngineProcess, EngineProcess]>();
    const starters = new Map<Store, [() => Promise<EngineProcess>, () => Promise<EngineProcess>]>();
    for (const store of new Set(chosen.map((s) => s.store))) {
      const pair: EngineProcess[] = [];
      const starts: Array<() => Promise<EngineProcess>> = [];
      for (const side of ['a', 'b']) {
        // Unique: a CI smoke run shares its server with other suites.
        const name = `svc_paired_meta_${store}_${side}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${name}`);
        onStop(() => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined));
        const dir = join(workDir, `${store}-${side}`);
        mkdirSync(dir);
        const env: Record<string, string> = { SVC_GRAPHQL_METADATA_DATABASE_URL: withDatabase(cluster.url, name) };
        if (store === 'redis') env['SVC_GRAPHQL_REDIS_URL'] = opts.redisUrl;
        if (chosen.some((s) => s.id === 'spin')) {
          env['SVC_GRAPHQL_PLUGIN_CONFIG'] = spinPluginConfig(opts.repoRoot, workDir);
          env['SVC_BENCH_SPIN_MARK'] = String(SPIN_MARK);
          if (opts.spinMicros !== undefined) env['SVC_BENCH_SPIN_US'] = String(opts.spinMicros);
        }
        const start = async (): Promise<EngineProcess> => {
          const engine = await startEngineProcess(opts.repoRoot, cluster.url, dir, [], env);
          onStop(engine.stop);
          return engine;
        };
        const engine = await start();
        await configureEngine(engine.url, 10);
        pair.push(engine);
        starts.push(start);
      }
      pairs.set(store, [pair[0]!, pair[1]!]);
      starters.set(store, [starts[0]!, starts[1]!]);
    }
    /** Both engines of every pair stopped and started again (their metadata stays in their databases), B first on odd rounds. */
    const restartEngines = async (round: number): Promise<void> => {
      for (const [store, [a, b]] of pairs) {
        await Promise.all([a.stop(), b.stop()]);
        const [startA, startB] = starters.get(store)!;
        if (round % 2 === 1) {
          const newB = await startB();
          pairs.set(store, [await startA(), newB]);
        } else {
          const newA = await startA();
          pairs.set(store, [newA, await startB()]);
        }
      }
    };
    const setLimits = async (engine: EngineProcess, limits: Record<string, unknown> | null) => {
      const res = await postJson(`${engine.url}/v1/metadata`, limits === null ? { type: 'remove_api_limits', args: {} } : { type: 'set_api_limits', args: limits });
      if (res.status !== 200) throw new Error(`set_api_limits failed: ${JSON.stringify(res.body)}`);
    };
    const target = (engine: EngineProcess): WrkTarget => ({
      url: `${engine.url}/v1/graphql`,
      query: q7.graphql,
      vars: q7.vars,
      headers: { ...ADMIN_HEADERS, 'x-svc-role': 'user' },
      headerFromVar: { header: 'x-svc-user-id', variable: q7.userIdVar! },
      ...(opts.ratePerSecond !== undefined ? { ratePerSecond: opts.ratePerSecond } : opts.delayMs === undefined ? {} : { delayMs: opts.delayMs }),
    });
    const perSide = Math.max(1, Math.floor(opts.connections / 2));
    let seed = 1;
    const timed = async (engine: EngineProcess): Promise<WrkResult & PhaseCpu> => {
      const cpu0 = processCpuSplitMicros(engine.pid);
      const r = await runWrk(target(engine), perSide, opts.durationSeconds, workDir, seed++);
      const cpu1 = processCpuSplitMicros(engine.pid);
      if (r.badStatus || r.badBody || r.socketErrors) throw new Error(`${r.badStatus} bad statuses, ${r.badBody} bad bodies, ${r.socketErrors} socket errors`);
      const n = Math.max(r.requests, 1);
      const userUs = (cpu1.userUs - cpu0.userUs) / n;
      const systemUs = (cpu1.systemUs - cpu0.systemUs) / n;
      return { ...r, cpuUs: userUs + systemUs, userUs, systemUs, mainThreadUs: (cpu1.mainThreadUs - cpu0.mainThreadUs) / n };
    };
    const phases = new Map<string, PhaseRun[]>(chosen.map((s) => [s.name, []]));
    const warmUpSeconds = opts.freshEngines ? FRESH_WARM_UP_SECONDS : WARM_UP_SECONDS;
    for (let round = 0; round < opts.rounds; round++) {
      if (opts.freshEngines && round > 0) await restartEngines(round);
      for (const s of chosen) {
        const [a, b] = pairs.get(s.store)!;
        for (const [limited, unlimited] of [
          [a, b],
          [b, a],
        ] as const) {
          await setLimits(limited, s.limits);
          await setLimits(unlimited, null);
          // Unmeasured: a metadata change is a new snapshot, whose first requests plan and compile
          // the operation again; only the limited side has just changed, so without this the
          // limits would be charged for it.
          await Promise.all([runWrk(target(limited), perSide, warmUpSeconds, workDir, seed++), runWrk(target(unlimited), perSide, warmUpSeconds, workDir, seed++)]);
          const store0 = s.store === 'redis' ? (redisPid === undefined ? 0 : processCpuPreciseMicros(redisPid)) : await rateBackendsCpu(admin);
          const [l, u] = await Promise.all([timed(limited), timed(unlimited)]);
          const storeUs =
            s.store === 'redis' ? (redisPid === undefined ? 0 : processCpuPreciseMicros(redisPid) - (store0 as number)) : cpuSince(store0 as Map<number, number>, await rateBackendsCpu(admin));
          const phase: PhaseRun = { limitedSide: limited === a ? 'A' : 'B', limited: { ...l, storeCpuUs: storeUs / Math.max(l.requests, 1) }, unlimited: u };
          phases.get(s.name)!.push(phase);
          opts.log(
            `round ${round + 1} ${s.name} (limited: ${phase.limitedSide}): limited ${l.rps.toFixed(0)} req/s, ${l.cpuUs.toFixed(1)} + ${phase.limited.storeCpuUs.toFixed(1)} µs/req; ` +
              `unlimited ${u.rps.toFixed(0)} req/s, ${u.cpuUs.toFixed(1)} µs/req; user ${l.userUs.toFixed(1)} / ${u.userUs.toFixed(1)}, system ${l.systemUs.toFixed(1)} / ${u.systemUs.toFixed(1)}, main thread ${l.mainThreadUs.toFixed(1)} / ${u.mainThreadUs.toFixed(1)} µs/req`,
          );
        }
      }
    }
    for (const [a, b] of pairs.values()) await Promise.all([setLimits(a, null), setLimits(b, null)]);
    return chosen.map((s) => {
      const ps = phases.get(s.name)!;
      const engine = ps.map((p) => p.limited.cpuUs / p.unlimited.cpuUs - 1);
      const user = ps.map((p) => p.limited.userUs / p.unlimited.userUs - 1);
      return {
        name: s.name,
        phases: ps,
        medianLimitedCpuUs: median(ps.map((p) => p.limited.cpuUs)),
        medianUnlimitedCpuUs: median(ps.map((p) => p.unlimited.cpuUs)),
        medianStoreCpuUs: median(ps.map((p) => p.limited.storeCpuUs)),
        engineCost: median(engine),
        engineCostMean: mean(engine),
        engineCostError: standardError(engine),
        userCost: median(user),
        userCostMean: mean(user),
        userCostError: standardError(user),
        systemCost: median(ps.map((p) => p.limited.systemUs / p.unlimited.systemUs)) - 1,
        engineCostBySide: { A: mean(engine.filter((_, i) => ps[i]!.limitedSide === 'A')), B: mean(engine.filter((_, i) => ps[i]!.limitedSide === 'B')) },
        engineCostByRound: { mean: mean(byRound(engine)), error: standardError(byRound(engine)) },
        totalCost: median(ps.map((p) => (p.limited.cpuUs + p.limited.storeCpuUs) / p.unlimited.cpuUs)) - 1,
        rpsCost: median(ps.map((p) => 1 - p.limited.rps / p.unlimited.rps)),
      };
    });
  });
}

/** Each round's two phases (pushed one after the other, A limited first) averaged. */
function byRound(phaseCosts: readonly number[]): number[] {
  const rounds: number[] = [];
  for (let i = 0; i + 1 < phaseCosts.length; i += 2) rounds.push((phaseCosts[i]! + phaseCosts[i + 1]!) / 2);
  return rounds;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
}

/** The standard error of the mean (0 with fewer than two values). */
function standardError(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  const variance = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance / xs.length);
}

/** A warning line when some phase's engine did not keep the fixed schedule (its rate then depends on its latency again). */
function behindSchedule(results: readonly PairedResult[], opts: Pick<PairedOptions, 'ratePerSecond'>): string[] {
  const rate = opts.ratePerSecond;
  if (rate === undefined) return [];
  const behind = results.flatMap((r) => r.phases.flatMap((p) => [p.limited.rps, p.unlimited.rps])).filter((rps) => rps < KEPT_SCHEDULE * rate);
  return behind.length === 0 ? [] : [`**${behind.length} engine runs fell behind the schedule** (lowest ${Math.min(...behind).toFixed(0)} req/s): choose a lower --rate for this host.`, ''];
}

function pacingText(opts: Pick<PairedOptions, 'delayMs' | 'ratePerSecond'>): string {
  if (opts.ratePerSecond !== undefined) return `${opts.ratePerSecond} requests a second to each engine on a fixed schedule`;
  return opts.delayMs === undefined ? 'closed loop' : `${opts.delayMs} ms between an answer and a connection's next request`;
}

export function pairedReport(results: readonly PairedResult[], opts: Pick<PairedOptions, 'rounds' | 'durationSeconds' | 'connections' | 'delayMs' | 'ratePerSecond' | 'freshEngines'>): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const spread = (xs: number[]) => `${pct(Math.min(...xs))} to ${pct(Math.max(...xs))}`;
  return [
    `Paired phases: ${opts.rounds} rounds × 2 phases of ${opts.durationSeconds} s, wrk c=${Math.max(1, Math.floor(opts.connections / 2))} per engine, ` +
      `${pacingText(opts)}, Q7` +
      `${opts.freshEngines ? '; both engines started anew before each round, the one started first alternating' : ''}.`,
    '',
    ...behindSchedule(results, opts),
    '| scenario | engine CPU µs/req, limited | unlimited (same phases) | store CPU µs/req | cost: engine CPU (median; mean ± SE) | cost by round (mean ± SE) | cost: engine + store CPU | phases (engine CPU) | cost: engine user CPU (median; mean ± SE) | cost: engine system CPU | mean cost, A limited / B limited | cost: req/s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.medianLimitedCpuUs.toFixed(1)} | ${r.medianUnlimitedCpuUs.toFixed(1)} | ${r.medianStoreCpuUs.toFixed(1)} | ${pct(r.engineCost)}; ${pct(r.engineCostMean)} ± ${pct(r.engineCostError)} | ${pct(r.engineCostByRound.mean)} ± ${pct(r.engineCostByRound.error)} | ${pct(r.totalCost)} | ${spread(r.phases.map((p) => p.limited.cpuUs / p.unlimited.cpuUs - 1))} | ${pct(r.userCost)}; ${pct(r.userCostMean)} ± ${pct(r.userCostError)} | ${pct(r.systemCost)} | ${pct(r.engineCostBySide.A)} / ${pct(r.engineCostBySide.B)} | ${pct(r.rpsCost)} |`,
    ),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = benchArgs(7, { 'redis-url': 'redis://127.0.0.1:6379/0', scenarios: undefined, 'delay-ms': '2', rate: String(DEFAULT_RATE), 'spin-us': undefined }, ['fresh-engines']);
  const delayMs = Number(args.extra('delay-ms'));
  const rate = Number(args.extra('rate'));
  if (!Number.isFinite(rate) || rate < 0) throw new Error(`--rate must be a number of requests a second (0: pace by --delay-ms), not ${args.extra('rate')}`);
  const opts = {
    databaseUrl: args.databaseUrl,
    redisUrl: args.extra('redis-url')!,
    rounds: args.rounds,
    durationSeconds: args.durationSeconds,
    connections: 10,
    scenarios: args.extra('scenarios')?.split(',').map((s) => s.trim()),
    delayMs: delayMs > 0 ? delayMs : undefined,
    ratePerSecond: rate > 0 ? rate : undefined,
    spinMicros: args.extra('spin-us') === undefined ? undefined : Number(args.extra('spin-us')),
    freshEngines: args.flag('fresh-engines'),
    repoRoot: repoRootOf(import.meta.url),
    log: (m: string) => console.log(`[bench:limits:paired] ${m}`),
  };
  const results = await runPairedLimitsBench(opts);
  writeBenchReport(opts.repoRoot, 'limits-paired', pairedReport(results, opts), args.quick, args.out);
}
