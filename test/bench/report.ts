/** Writes a bench run as JSON and as markdown tables (one row per measurement, then the ratios). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResults, Measurement, QueryResult } from './results.js';

const fmt = (x: number | null | undefined, digits = 0): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));
const ms = (us: number | null | undefined): string => (us === null || us === undefined ? '–' : (us / 1000).toFixed(2));
const ratio = (x: number | null): string => (x === null ? '–' : x.toFixed(2));

function row(q: QueryResult, m: Measurement): string {
  const r = m.median;
  const status = m.status === 'ok' ? '' : ` **${m.status}**${m.note ? `: ${m.note}` : ''}`;
  if (!r) return `| ${q.id} | ${m.candidate} | ${m.connections} | – | – | – | – | – | – | – | – |${status} |`;
  const latency = m.candidate === 'pgbench' ? `avg ${ms(r.p50Us)}` : ms(r.p50Us);
  return `| ${q.id} | ${m.candidate} | ${m.connections} | ${fmt(r.rps)} | ${fmt(m.rpsMin)}–${fmt(m.rpsMax)} | ${latency} | ${ms(r.p90Us)} | ${ms(r.p99Us)} | ${fmt(r.cpuUsPerReq)} | ${fmt(r.pgCpuUsPerReq)} | ${fmt(r.bytesPerReq)} |${status} |`;
}

export function markdown(results: BenchResults): string {
  const m = results.machine;
  const s = results.settings;
  const lines = [
    `# svc-graphql-engine bench, ${results.mode} run, ${results.startedAt}`,
    '',
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memGb} GB; load average at start ${m.loadStart.map((x) => x.toFixed(2)).join(' ')}, at end ${m.loadEnd.map((x) => x.toFixed(2)).join(' ')}.`,
    `Node ${m.node}; ${m.postgres}; ${m.wrk}.`,
    `PostgreSQL settings: ${s['pgSettings'] === 'defaults' ? "PostgreSQL's defaults (jit on)" : s['pgSettings'] === 'tuned' ? 'tuned (shared_buffers 1GB, synchronous_commit off, jit off)' : 'an external database, as configured'}.`,
    `Settings: warm-up ${s['warmupSeconds']} s, runs ${s['durationSeconds']} s × ${s['repetitions']} (pgbench ${s['pgbenchSeconds']} s × ${s['repetitions']}), pool ${s['poolSize']}, ` +
      `engine at c ∈ {${(s['connections'] as number[]).join(', ')}}, peers at c=${s['peerConnections']}. Medians over repetitions; spread is min–max rps.`,
    '',
    ...(results.metadata ? [`Metadata: reload_metadata (introspecting the source) took ${results.metadata.reloadMedianMs.toFixed(1)} ms (median of ${results.metadata.samples}).`, ''] : []),
    '## Correctness gate',
    '',
    '| Query | Status | Gate |',
    '|---|---|---|',
    ...results.queries.map((q) => `| ${q.id} ${q.title} | ${q.status}${q.note ? `: ${q.note}` : ''} | ${Object.entries(q.gate).map(([c, g]) => `${c}: ${g}`).join('; ')} |`),
    '',
    '## Plans of the engine\'s SQL (first sample, EXPLAIN ANALYZE under the run\'s settings)',
    '',
    '| Query | total cost | JIT | JIT ms | execution ms |',
    '|---|---|---|---|---|',
    ...results.queries.filter((q) => q.plan).map((q) => `| ${q.id} | ${fmt(q.plan!.totalCost)} | ${q.plan!.jit ? 'yes' : 'no'} | ${fmt(q.plan!.jitMs, 1)} | ${fmt(q.plan!.executionMs, 2)} |`),
    '',
    '## Throughput and latency',
    '',
    'rps and latency from wrk (pgbench: tps and average latency); CPU µs/req is the candidate process\'s utime+stime ÷ requests; PG CPU µs/req is all PostgreSQL processes\'; bytes include HTTP headers.',
    '',
    '| Query | Candidate | c | rps | spread | p50 ms | p90 ms | p99 ms | CPU µs/req | PG CPU µs/req | bytes/resp | Notes |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.queries.flatMap((q) => q.measurements.map((x) => row(q, x))),
    '',
    `## Ratios (c=${s['peerConnections']})`,
    '',
    '| Query | engine ÷ pgbench | engine ÷ Node floor | engine ÷ PostGraphile | added latency at c=1 (µs) |',
    '|---|---|---|---|---|',
    ...results.queries.map(
      (q) => `| ${q.id} | ${ratio(q.ratios.enginePerPgbench)} | ${ratio(q.ratios.enginePerNodeFloor)} | ${ratio(q.ratios.enginePerPostgraphile)} | ${fmt(q.ratios.addedLatencyC1Us)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** `<dir>/<yyyy-mm-dd-hhmm>-<mode>[-pg-defaults].{json,md}`; returns both paths. */
export function writeResults(results: BenchResults, dir: string): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = results.startedAt.slice(0, 16).replace('T', '-').replace(':', '');
  const profile = results.settings['pgSettings'] === 'defaults' ? '-pg-defaults' : '';
  const base = join(dir, `${stamp}-${results.mode}${profile}`);
  writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown(results));
  return { json: `${base}.json`, md: `${base}.md` };
}
