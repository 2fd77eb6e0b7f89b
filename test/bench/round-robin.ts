/**
 * What the scenario benchmarks (bench:limits, bench:observability) share: a database with the
 * dataset (the private cluster, or a scratch database given on the command line), and a wrk
 * driver that times every scenario once per round, round after round, so that load from other
 * processes on a shared machine falls on every scenario alike; then the median of each. Also the
 * command line they have in common (`--quick`, `--database-url`, `--rounds`, `--duration`,
 * `--out`) and where a report is written.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { externalCluster, startCluster, type Cluster } from './cluster.js';
import { loadDataset } from './dataset.js';
import { ensureWrk, runWrk, type WrkResult, type WrkTarget } from './wrk.js';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export interface RoundRobinOptions {
  /** A scratch database to use instead of a private cluster. */
  databaseUrl?: string | undefined;
  rounds: number;
  durationSeconds: number;
  connections: number;
  log: (m: string) => void;
}

export interface BenchDatabase {
  cluster: Cluster;
  /** A temporary folder for wrk scripts and engine data, removed afterwards. */
  workDir: string;
  /** Runs at the end, in reverse order of registration, failures ignored. */
  onStop(stop: () => Promise<void>): void;
}

/** wrk present, a database with the dataset and a work folder for `body`; everything stopped afterwards. */
export async function withBenchDatabase<T>(opts: RoundRobinOptions, name: string, body: (bench: BenchDatabase) => Promise<T>): Promise<T> {
  const problem = await ensureWrk(opts.log);
  if (problem) throw new Error(problem);
  const workDir = mkdtempSync(join(tmpdir(), `svc-bench-${name}-`));
  const stops: Array<() => Promise<void>> = [];
  try {
    const cluster: Cluster = opts.databaseUrl ? externalCluster(opts.databaseUrl) : await startCluster(opts.log);
    stops.push(cluster.stop);
    opts.log('loading the dataset');
    await loadDataset(cluster.url);
    return await body({ cluster, workDir, onStop: (stop) => stops.push(stop) });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

export interface RoundRobinScenario<R extends WrkResult> {
  name: string;
  target: WrkTarget;
  /** Before each of its runs (set the scenario's configuration). */
  prepare?: () => Promise<void>;
  /**
   * Wraps one timed run, for figures taken around it (CPU counters); the run itself by default.
   * `round` counts from 0.
   */
  measure?: (timed: () => Promise<WrkResult>, round: number) => Promise<R>;
  /** The log line's figures beyond req/s and p50. */
  describe?: (run: R) => string;
}

/** Every scenario once per round, `opts.rounds` rounds; a refused or wrong answer fails the run. */
export async function runRoundRobin<R extends WrkResult>(
  scenarios: ReadonlyArray<RoundRobinScenario<R>>,
  opts: RoundRobinOptions,
  workDir: string,
): Promise<Map<string, R[]>> {
  const runs = new Map<string, R[]>(scenarios.map((s) => [s.name, []]));
  let seed = 1;
  for (let round = 0; round < opts.rounds; round++) {
    for (const s of scenarios) {
      await s.prepare?.();
      const timed = async (): Promise<WrkResult> => {
        const r = await runWrk(s.target, opts.connections, opts.durationSeconds, workDir, seed++);
        if (r.badStatus || r.badBody || r.socketErrors) throw new Error(`${s.name}: ${r.badStatus} bad statuses, ${r.badBody} bad bodies, ${r.socketErrors} socket errors`);
        return r;
      };
      const r = s.measure ? await s.measure(timed, round) : ((await timed()) as R);
      runs.get(s.name)!.push(r);
      const more = s.describe ? `, ${s.describe(r)}` : '';
      opts.log(`round ${round + 1} ${s.name}: ${r.rps.toFixed(0)} req/s, p50 ${(r.p50Us / 1000).toFixed(2)} ms${more}`);
    }
  }
  return runs;
}

/** The common command line of a scenario bench, plus its own string options and its own flags. */
export function benchArgs<E extends string, F extends string = never>(defaultRounds: number, extra: Partial<Record<E, string>> = {}, flags: readonly F[] = []) {
  const own = Object.fromEntries(Object.entries(extra).map(([k, d]) => [k, { type: 'string' as const, ...(d === undefined ? {} : { default: d as string }) }]));
  const ownFlags = Object.fromEntries(flags.map((f) => [f, { type: 'boolean' as const, default: false }]));
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      out: { type: 'string' },
      ...own,
      ...ownFlags,
    },
  });
  const quick = values.quick === true;
  const text = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
  const all = values as Record<string, string | boolean | undefined>;
  return {
    quick,
    databaseUrl: text(values['database-url']),
    rounds: Number(text(values.rounds) ?? (quick ? 1 : defaultRounds)),
    durationSeconds: Number(text(values.duration) ?? (quick ? 2 : 10)),
    out: text(values.out),
    extra: (name: E): string | undefined => text(all[name]),
    flag: (name: F): boolean => all[name] === true,
  };
}

/** The repository root, from a bench module's URL. */
export function repoRootOf(moduleUrl: string): string {
  return resolve(dirname(fileURLToPath(moduleUrl)), '../..');
}

/** Whether the module is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** Prints `report` and keeps it under test/bench/results (results/tmp for quick runs) unless `out` says where. */
export function writeBenchReport(repoRoot: string, name: string, report: string, quick: boolean, out: string | undefined): void {
  console.log(report);
  const dir = out ?? join(repoRoot, 'test/bench/results', quick ? 'tmp' : '');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), report + '\n');
}
