/**
 * The cost of observability on the pk-lookup hot path (Q1, admin): engine processes on one
 * database, timed with wrk in alternating rounds so that load from other processes falls on every
 * scenario alike:
 *
 *   off                    metrics API disabled, tracing off (the default)
 *   metrics on             `metrics` in --enabled-apis (every request counted and timed), tracing off
 *   metrics + tracing      as above, with OpenTelemetry exporting to an OTLP receiver in this
 *                          process (for information: tracing has a cost when on)
 *
 * The budget (issue 19): "metrics on, tracing off" within 3% of "off".
 *
 *   npm run bench:observability [-- --quick] [--database-url <scratch url>] [--rounds n] [--duration s]
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ADMIN_HEADERS, configureEngine, postJson, startEngineProcess } from './engine-process.js';
import { QUERIES } from './queries.js';
import type { WrkResult } from './wrk.js';
import { benchArgs, isMain, median, repoRootOf, runRoundRobin, withBenchDatabase, writeBenchReport, type RoundRobinOptions } from './round-robin.js';

export interface ObservabilityBenchOptions extends RoundRobinOptions {
  repoRoot: string;
}

export interface ObservabilityScenario {
  name: string;
  runs: WrkResult[];
  medianRps: number;
  medianP50Us: number;
  /** Median requests per second relative to "off" (1 = no cost). */
  relative: number;
}

/** Accepts OTLP exports and drops them: the exporter's work is measured, not a collector's. */
async function startOtlpSink(): Promise<{ url: string; bytes: () => number; close(): Promise<void> }> {
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function runObservabilityBench(opts: ObservabilityBenchOptions): Promise<ObservabilityScenario[]> {
  const q1 = QUERIES.find((q) => q.id === 'Q1')!;
  return withBenchDatabase(opts, 'obs', async ({ cluster, workDir, onStop }) => {
    const sink = await startOtlpSink();
    onStop(sink.close);
    const start = async (name: string, env: Record<string, string>) => {
      const dir = join(workDir, name.replace(/\W+/g, '-'));
      mkdirSync(dir);
      const e = await startEngineProcess(opts.repoRoot, cluster.url, dir, [], env);
      onStop(e.stop);
      return e;
    };
    const off = await start('off', {});
    await configureEngine(off.url, 10);
    const metricsOn = await start('metrics', { SVC_GRAPHQL_ENABLED_APIS: 'metadata,graphql,metrics' });
    const traced = await start('traced', {
      SVC_GRAPHQL_ENABLED_APIS: 'metadata,graphql,metrics',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sink.url}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '500',
    });
    // The engines share the metadata; the others learn the configuration by reloading.
    for (const e of [metricsOn, traced]) await postJson(`${e.url}/v1/metadata`, { type: 'reload_metadata', args: {} });
    const scenario = (name: string, url: string) => ({ name, target: { url: `${url}/v1/graphql`, query: q1.graphql, vars: q1.vars, headers: ADMIN_HEADERS } });
    const scenarios = [scenario('off', off.url), scenario('metrics on, tracing off', metricsOn.url), scenario('metrics + tracing', traced.url)];
    const runs = await runRoundRobin<WrkResult>(scenarios, opts, workDir);
    // The traced engine exports in batches; give its last batch a moment before calling it silent.
    for (let waited = 0; sink.bytes() === 0 && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (sink.bytes() === 0) throw new Error('the traced engine exported no spans: the tracing scenario measured nothing');
    const base = median(runs.get('off')!.map((r) => r.rps));
    return scenarios.map((s) => {
      const rs = runs.get(s.name)!;
      const rps = median(rs.map((r) => r.rps));
      return { name: s.name, runs: rs, medianRps: rps, medianP50Us: median(rs.map((r) => r.p50Us)), relative: rps / base };
    });
  });
}

export function observabilityReport(results: ObservabilityScenario[]): string {
  const rows = results.map((r) => `| ${r.name} | ${r.medianRps.toFixed(0)} | ${(r.medianP50Us / 1000).toFixed(2)} | ${(100 * (1 - r.relative)).toFixed(1)}% |`);
  return ['| scenario (Q1, c=10) | median req/s | median p50 ms | cost vs off |', '|---|---|---|---|', ...rows].join('\n');
}

if (isMain(import.meta.url)) {
  const args = benchArgs(7);
  const repoRoot = repoRootOf(import.meta.url);
  const results = await runObservabilityBench({
    databaseUrl: args.databaseUrl,
    rounds: args.rounds,
    durationSeconds: args.durationSeconds,
    connections: 10,
    repoRoot,
    log: (m) => console.log(`[bench:observability] ${m}`),
  });
  writeBenchReport(repoRoot, 'observability', observabilityReport(results), args.quick, args.out);
}
