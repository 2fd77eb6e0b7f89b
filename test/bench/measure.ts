/**
 * One measurement: a warm-up, then repetitions, each with the server's and PostgreSQL's CPU
 * time read from /proc before and after. A run with any failed request is void.
 */
import { loadavg } from 'node:os';
import { treeCpuMicros } from './proc.js';
import { runWrk, type WrkTarget } from './wrk.js';
import { pgbenchScript, runPgbench } from './pgbench.js';
import { summarize, type Candidate, type Measurement, type RunSample } from './results.js';
import type { BenchQuery } from './queries.js';

export interface MeasureContext {
  workDir: string;
  databaseUrl: string;
  postmasterPid: number | undefined;
  warmupSeconds: number;
  durationSeconds: number;
  pgbenchSeconds: number;
  repetitions: number;
  /** Run before the warm-up and before every repetition (Q6 starts from the generated rows). */
  beforeRun?: () => Promise<void>;
  log: (m: string) => void;
}

const pgCpu = (ctx: MeasureContext) => (ctx.postmasterPid === undefined ? 0 : treeCpuMicros(ctx.postmasterPid));

export async function measureHttp(
  ctx: MeasureContext,
  candidate: Candidate,
  pid: number,
  target: WrkTarget,
  connections: number,
  warmUp: boolean,
  seedBase: number,
): Promise<Measurement> {
  if (warmUp && ctx.warmupSeconds > 0) {
    await ctx.beforeRun?.();
    await runWrk(target, connections, ctx.warmupSeconds, ctx.workDir, seedBase + 99);
  }
  const runs: RunSample[] = [];
  for (let rep = 0; rep < ctx.repetitions; rep++) {
    await ctx.beforeRun?.();
    // The process and its children: the workers of an engine run with --workers.
    const cpu0 = treeCpuMicros(pid);
    const pg0 = pgCpu(ctx);
    const r = await runWrk(target, connections, ctx.durationSeconds, ctx.workDir, seedBase + rep);
    const cpu = treeCpuMicros(pid) - cpu0;
    const pg = pgCpu(ctx) - pg0;
    const n = Math.max(r.requests, 1);
    const problems = [
      r.badStatus ? `${r.badStatus} non-2xx` : '',
      r.badBody ? `${r.badBody} bodies with "errors"` : '',
      r.socketErrors ? `${r.socketErrors} socket errors/timeouts` : '',
      r.requests === 0 ? 'no requests completed' : '',
    ].filter(Boolean);
    runs.push({
      rps: r.rps,
      p50Us: r.p50Us,
      p90Us: r.p90Us,
      p99Us: r.p99Us,
      meanUs: r.meanUs,
      cpuUsPerReq: cpu / n,
      pgCpuUsPerReq: ctx.postmasterPid === undefined ? null : pg / n,
      bytesPerReq: r.bytes / n,
      requests: r.requests,
      load1: loadavg()[0]!,
      invalid: problems.length ? problems.join(', ') : null,
    });
  }
  const m = summarize(candidate, connections, runs);
  ctx.log(`  ${candidate} c=${connections}: ${m.median?.rps.toFixed(0)} rps, p50 ${((m.median?.p50Us ?? 0) / 1000).toFixed(2)} ms, cpu ${m.median?.cpuUsPerReq?.toFixed(0)} µs/req${m.status === 'ok' ? '' : ` [${m.status}: ${m.note}]`}`);
  return m;
}

export async function measurePgbench(ctx: MeasureContext, q: BenchQuery, template: string, clients: number, warmUp: boolean): Promise<Measurement> {
  const script = pgbenchScript(template, q.vars);
  if (warmUp) {
    await ctx.beforeRun?.();
    await runPgbench(ctx.databaseUrl, script, clients, 2, ctx.workDir, `${q.id}-warm`);
  }
  const runs: RunSample[] = [];
  for (let rep = 0; rep < ctx.repetitions; rep++) {
    await ctx.beforeRun?.();
    const pg0 = pgCpu(ctx);
    const r = await runPgbench(ctx.databaseUrl, script, clients, ctx.pgbenchSeconds, ctx.workDir, `${q.id}-c${clients}`);
    const pg = pgCpu(ctx) - pg0;
    const n = Math.max(r.transactions, 1);
    runs.push({
      rps: r.tps,
      p50Us: r.latencyAvgUs,
      p90Us: null,
      p99Us: null,
      meanUs: r.latencyAvgUs,
      cpuUsPerReq: null,
      pgCpuUsPerReq: ctx.postmasterPid === undefined ? null : pg / n,
      bytesPerReq: null,
      requests: r.transactions,
      load1: loadavg()[0]!,
      invalid: r.failed > 0 ? `${r.failed} failed transactions` : null,
    });
  }
  const m = summarize('pgbench', clients, runs);
  ctx.log(`  pgbench c=${clients}: ${m.median?.rps.toFixed(0)} tps, avg ${((m.median?.p50Us ?? 0) / 1000).toFixed(2)} ms`);
  return m;
}
