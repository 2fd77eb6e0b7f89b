/**
 * `npm run bench:workers [-- options]`: how the engine scales with --workers. Q1 (pk lookup) on a
 * private cluster, the engine started with 1, then 2 (or --workers a,b,...) worker processes,
 * each measured with wrk at the given connection levels. Engine CPU is the primary's and its
 * workers' together; the pool (--pool) is the engine's, split between the workers. Options:
 *   --quick                 short runs (CI smoke test): 1 s warm-up, 3 s, one repetition
 *   --workers 1,2           worker counts          --connections 10,20   wrk connections
 *   --duration <s> --warmup <s> --repetitions <n>  --pool <n> (the engine's, default 10)
 *   --out <dir>             results directory (default test/bench/results, tmp/ in quick mode)
 *
 * On this 2-core box the engine, PostgreSQL and wrk share the cores, so 2 workers can at best
 * use what the others leave; docs/performance.md says how to measure on a bigger machine.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startCluster } from './cluster.js';
import { loadDataset } from './dataset.js';
import { ADMIN_HEADERS, configureEngine, startEngineProcess } from './engine-process.js';
import { ask } from './gate.js';
import { measureHttp, type MeasureContext } from './measure.js';
import { QUERIES } from './queries.js';
import { ensureWrk } from './wrk.js';
import type { Measurement } from './results.js';

async function waitForLog(file: string, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!readFileSync(file, 'utf8').includes(text)) {
    if (Date.now() > deadline) throw new Error(`"${text}" not in ${file} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1,2' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    repetitions: { type: 'string' },
    pool: { type: 'string', default: '10' },
    out: { type: 'string' },
  },
});
const quick = values.quick;
const workerCounts = values.workers.split(',').map(Number);
const connections = (values.connections ?? (quick ? '10' : '10,20')).split(',').map(Number);
const poolSize = Number(values.pool);
const log = (m: string) => console.log(`[bench:workers ${new Date().toISOString().slice(11, 19)}] ${m}`);
const q1 = QUERIES.find((q) => q.id === 'Q1')!;

const wrkProblem = await ensureWrk(log);
if (wrkProblem) throw new Error(wrkProblem);
const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-workers-'));
const cluster = await startCluster(log);
const rows: Array<{ workers: number; m: Measurement }> = [];
const startedAt = new Date().toISOString();
try {
  await loadDataset(cluster.url);
  for (const n of workerCounts) {
    const engine = await startEngineProcess(repoRoot, cluster.url, workDir, [], { SVC_GRAPHQL_WORKERS: String(n) });
    try {
      await configureEngine(engine.url, poolSize);
      const candidate = { name: 'engine', url: engine.url + '/v1/graphql', queryFor: () => q1.graphql, headersFor: () => ADMIN_HEADERS, queryRootName: 'query_root' };
      // Every worker must be serving before timing (the primary logs it), and warmed up: a
      // worker's start-up CPU must not count as request CPU.
      if (n > 1) await waitForLog(engine.logFile, `${n} workers serving`);
      for (let i = 0; i < 50 * n; i++) await ask(candidate, q1, { id: 1 + i });
      const ctx: MeasureContext = {
        workDir,
        databaseUrl: cluster.url,
        postmasterPid: cluster.postmasterPid,
        warmupSeconds: Number(values.warmup ?? (quick ? 2 : 5)),
        durationSeconds: Number(values.duration ?? (quick ? 3 : 10)),
        pgbenchSeconds: 0,
        repetitions: Number(values.repetitions ?? (quick ? 1 : 3)),
        log,
      };
      log(`engine with --workers ${n} (pid ${engine.pid})`);
      for (const [i, c] of connections.entries()) {
        const target = { url: candidate.url, query: q1.graphql, vars: q1.vars, headers: ADMIN_HEADERS };
        rows.push({ workers: n, m: await measureHttp(ctx, 'engine', engine.pid, target, c, i === 0, 7000) });
      }
    } finally {
      await engine.stop();
    }
  }
} finally {
  await cluster.stop();
  rmSync(workDir, { recursive: true, force: true });
}

const base = (c: number) => rows.find((r) => r.workers === workerCounts[0] && r.m.connections === c)?.m.median?.rps ?? null;
const lines = [
  `# svc-graphql-engine --workers scaling, ${quick ? 'quick' : 'full'} run, ${startedAt}`,
  '',
  `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}. Q1 (pk lookup, admin), pool ${poolSize} split between the workers.`,
  '',
  '| workers | c | rps | spread | p50 ms | p99 ms | engine CPU µs/req (all processes) | PG CPU µs/req | rps ÷ first |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map(({ workers, m }) => {
    const r = m.median;
    const b = base(m.connections);
    const ms = (us: number | null | undefined) => (us == null ? '–' : (us / 1000).toFixed(2));
    return `| ${workers} | ${m.connections} | ${r?.rps.toFixed(0) ?? '–'} | ${m.rpsMin?.toFixed(0)}–${m.rpsMax?.toFixed(0)} | ${ms(r?.p50Us)} | ${ms(r?.p99Us)} | ${r?.cpuUsPerReq?.toFixed(0) ?? '–'} | ${r?.pgCpuUsPerReq?.toFixed(0) ?? '–'} | ${r && b ? (r.rps / b).toFixed(2) : '–'} |${m.status === 'ok' ? '' : ` ${m.status}: ${m.note ?? ''}`}`;
  }),
  '',
];
const outDir = values.out ? resolve(values.out) : join(repoRoot, 'test/bench/results', quick ? 'tmp' : '');
mkdirSync(outDir, { recursive: true });
const file = join(outDir, `${startedAt.slice(0, 16).replace('T', '-').replace(':', '')}-workers`);
writeFileSync(`${file}.md`, lines.join('\n'));
writeFileSync(`${file}.json`, JSON.stringify({ startedAt, quick, poolSize, workerCounts, connections, rows }, null, 2) + '\n');
log(`results: ${file}.md`);
if (rows.some((r) => r.m.status !== 'ok')) process.exitCode = 1;
