/** The shape of a bench run's results (the JSON file) and the summary statistics over repetitions. */

export type Candidate = 'engine' | 'node-floor' | 'postgraphile' | 'pgbench';

export interface RunSample {
  rps: number;
  /** pgbench reports only the average latency; it goes into p50Us with the percentiles null. */
  p50Us: number | null;
  p90Us: number | null;
  p99Us: number | null;
  meanUs: number | null;
  /** CPU of the candidate's process per request (null for pgbench, a client of the database). */
  cpuUsPerReq: number | null;
  /** CPU of all PostgreSQL processes per request (null for an external database). */
  pgCpuUsPerReq: number | null;
  bytesPerReq: number | null;
  requests: number;
  load1: number;
  /** Why the run is void: non-2xx answers, bodies with "errors", socket errors, failed transactions. */
  invalid: string | null;
}

export interface Measurement {
  candidate: Candidate;
  connections: number;
  status: 'ok' | 'invalid' | 'skipped';
  note?: string;
  runs: RunSample[];
  median: RunSample | null;
  rpsMin: number | null;
  rpsMax: number | null;
}

export interface QueryResult {
  id: string;
  title: string;
  graphql: string;
  status: 'ok' | 'skipped' | 'gate-failed';
  note?: string;
  /** Per candidate: 'ok', or what the correctness gate found wrong, or why it was not run. */
  gate: Record<string, string>;
  measurements: Measurement[];
  ratios: Ratios;
  /** PostgreSQL's plan of the engine's SQL for the first sample, under the run's settings. */
  plan?: PlanSummary;
}

export interface PlanSummary {
  totalCost: number;
  /** Whether PostgreSQL JIT-compiled the statement, and what that cost. */
  jit: boolean;
  jitMs: number | null;
  executionMs: number;
}

export interface Ratios {
  /** engine rps ÷ pgbench tps at the peer connection level (same SQL, pool = clients). */
  enginePerPgbench: number | null;
  enginePerNodeFloor: number | null;
  enginePerPostgraphile: number | null;
  /** engine p50 at c=1 minus pgbench's average latency at c=1, µs. */
  addedLatencyC1Us: number | null;
}

export interface Machine {
  nproc: number;
  cpuModel: string;
  memGb: number;
  loadStart: number[];
  loadEnd: number[];
  node: string;
  postgres: string;
  wrk: string;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  mode: 'quick' | 'full';
  settings: Record<string, unknown>;
  machine: Machine;
  queries: QueryResult[];
  /** Time of a metadata operation that introspects the source (reload_metadata). */
  metadata?: { reloadMedianMs: number; samples: number };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Each metric's median over the valid repetitions (an invalid run makes the measurement invalid). */
export function summarize(candidate: Candidate, connections: number, runs: RunSample[]): Measurement {
  const invalid = runs.find((r) => r.invalid !== null);
  const med = (pick: (r: RunSample) => number | null): number | null => {
    const xs = runs.map(pick).filter((x): x is number => x !== null && Number.isFinite(x));
    return xs.length ? median(xs) : null;
  };
  const rps = runs.map((r) => r.rps);
  return {
    candidate,
    connections,
    status: invalid ? 'invalid' : 'ok',
    ...(invalid ? { note: invalid.invalid! } : {}),
    runs,
    median: runs.length
      ? {
          rps: med((r) => r.rps)!,
          p50Us: med((r) => r.p50Us),
          p90Us: med((r) => r.p90Us),
          p99Us: med((r) => r.p99Us),
          meanUs: med((r) => r.meanUs),
          cpuUsPerReq: med((r) => r.cpuUsPerReq),
          pgCpuUsPerReq: med((r) => r.pgCpuUsPerReq),
          bytesPerReq: med((r) => r.bytesPerReq),
          requests: med((r) => r.requests)!,
          load1: med((r) => r.load1)!,
          invalid: invalid?.invalid ?? null,
        }
      : null,
    rpsMin: rps.length ? Math.min(...rps) : null,
    rpsMax: rps.length ? Math.max(...rps) : null,
  };
}
