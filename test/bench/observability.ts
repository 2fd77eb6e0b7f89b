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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { externalCluster, startCluster, type Cluster } from './cluster.js';
import { loadDataset } from './dataset.js';
import { ADMIN_HEADERS, configureEngine, postJson, startEngineProcess } from './engine-process.js';
import { QUERIES } from './queries.js';
import { ensureWrk, runWrk, type WrkResult } from './wrk.js';

export interface ObservabilityBenchOptions {
  databaseUrl?: string;
  rounds: number;
  durationSeconds: number;
  connections: number;
  repoRoot: string;
  log: (m: string) => void;
}

export interface ObservabilityScenario {
  name: string;
  runs: WrkResult[];
  medianRps: number;
  medianP50Us: number;
  /** Median requests per second relative to "off" (1 = no cost). */
  relative: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

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
  const problem = await ensureWrk(opts.log);
  if (problem) throw new Error(problem);
  const q1 = QUERIES.find((q) => q.id === 'Q1')!;
  const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-obs-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    const cluster: Cluster = opts.databaseUrl ? externalCluster(opts.databaseUrl) : await startCluster(opts.log);
    stops.push(cluster.stop);
    opts.log('loading the dataset');
    await loadDataset(cluster.url);
    const sink = await startOtlpSink();
    stops.push(sink.close);
    const start = async (name: string, env: Record<string, string>) => {
      const dir = join(workDir, name.replace(/\W+/g, '-'));
      mkdirSync(dir);
      const e = await startEngineProcess(opts.repoRoot, cluster.url, dir, [], env);
      stops.push(e.stop);
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
    const scenarios = [
      { name: 'off', url: off.url },
      { name: 'metrics on, tracing off', url: metricsOn.url },
      { name: 'metrics + tracing', url: traced.url },
    ];
    const runs = new Map<string, WrkResult[]>(scenarios.map((s) => [s.name, []]));
    let seed = 1;
    for (let round = 0; round < opts.rounds; round++) {
      for (const s of scenarios) {
        const target = { url: `${s.url}/v1/graphql`, query: q1.graphql, vars: q1.vars, headers: ADMIN_HEADERS };
        const r = await runWrk(target, opts.connections, opts.durationSeconds, workDir, seed++);
        if (r.badStatus || r.badBody || r.socketErrors) throw new Error(`${s.name}: ${r.badStatus} bad statuses, ${r.badBody} bad bodies, ${r.socketErrors} socket errors`);
        runs.get(s.name)!.push(r);
        opts.log(`round ${round + 1} ${s.name}: ${r.rps.toFixed(0)} req/s, p50 ${(r.p50Us / 1000).toFixed(2)} ms`);
      }
    }
    // The traced engine exports in batches; give its last batch a moment before calling it silent.
    for (let waited = 0; sink.bytes() === 0 && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (sink.bytes() === 0) throw new Error('the traced engine exported no spans: the tracing scenario measured nothing');
    const base = median(runs.get('off')!.map((r) => r.rps));
    return scenarios.map((s) => {
      const rs = runs.get(s.name)!;
      const rps = median(rs.map((r) => r.rps));
      return { name: s.name, runs: rs, medianRps: rps, medianP50Us: median(rs.map((r) => r.p50Us)), relative: rps / base };
    });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  }
}

export function observabilityReport(results: ObservabilityScenario[]): string {
  const rows = results.map((r) => `| ${r.name} | ${r.medianRps.toFixed(0)} | ${(r.medianP50Us / 1000).toFixed(2)} | ${(100 * (1 - r.relative)).toFixed(1)}% |`);
  return ['| scenario (Q1, c=10) | median req/s | median p50 ms | cost vs off |', '|---|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const results = await runObservabilityBench({
    databaseUrl: values['database-url'],
    rounds: Number(values.rounds ?? (values.quick ? 1 : 7)),
    durationSeconds: Number(values.duration ?? (values.quick ? 2 : 10)),
    connections: 10,
    repoRoot,
    log: (m) => console.log(`[bench:observability] ${m}`),
  });
  const report = observabilityReport(results);
  console.log(report);
  const out = values.out ?? join(repoRoot, 'test/bench/results', values.quick ? 'tmp' : '');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `observability-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), report + '\n');
}
