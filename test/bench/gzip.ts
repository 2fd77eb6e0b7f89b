/**
 * What gzip costs the engine per answer. Browsers and GraphQL clients always send
 * `Accept-Encoding: gzip`, which the main bench's wrk does not, so its figures leave compression
 * out. Here one engine serves the same query with and without the header in alternating rounds
 * (c=10, closed loop), and the report gives engine CPU per request and bytes per response for
 * each: Q7 (a pk lookup as a role, a 91-byte answer, sent as a stored gzip member) and Q3 (20
 * rows with their authors, about 1.6 KB, deflated). Each round's two runs are adjacent, so the
 * difference is read within a round.
 *
 *   npx tsx test/bench/gzip.ts [--rounds 5] [--duration 6] [--quick]
 *   npm run bench:gzip -- ...
 */
import { ADMIN_HEADERS, configureEngine, startEngineProcess } from './engine-process.js';
import { processCpuMicros } from './proc.js';
import { QUERIES } from './queries.js';
import { benchArgs, isMain, median, repoRootOf, withBenchDatabase, writeBenchReport, type RoundRobinOptions } from './round-robin.js';
import { runWrk, type WrkTarget } from './wrk.js';

const CONNECTIONS = 10;

export interface GzipFigure {
  query: string;
  plainCpuUs: number;
  gzipCpuUs: number;
  /** Median over rounds of the round's gzip − plain engine CPU per request. */
  costUs: number;
  plainBytes: number;
  gzipBytes: number;
  plainRps: number;
  gzipRps: number;
}

export async function runGzipBench(opts: RoundRobinOptions & { repoRoot: string }): Promise<GzipFigure[]> {
  return withBenchDatabase(opts, 'gzip', async ({ cluster, workDir, onStop }) => {
    const engine = await startEngineProcess(opts.repoRoot, cluster.url, workDir);
    onStop(engine.stop);
    await configureEngine(engine.url, 10);
    const figures: GzipFigure[] = [];
    let seed = 1;
    for (const id of ['Q7', 'Q3']) {
      const q = QUERIES.find((x) => x.id === id)!;
      const headers = q.userIdVar ? { ...ADMIN_HEADERS, 'x-svc-role': 'user' } : { ...ADMIN_HEADERS };
      const target = (gzip: boolean): WrkTarget => ({
        url: `${engine.url}/v1/graphql`,
        query: q.graphql,
        vars: q.vars,
        headers: gzip ? { ...headers, 'accept-encoding': 'gzip' } : headers,
        ...(q.userIdVar ? { headerFromVar: { header: 'x-svc-user-id', variable: q.userIdVar } } : {}),
      });
      // Warm both paths (plans, JIT) before anything is measured.
      await runWrk(target(true), CONNECTIONS, 2, workDir, seed++);
      await runWrk(target(false), CONNECTIONS, 2, workDir, seed++);
      const runs = { plain: [] as Array<{ cpuUs: number; bytes: number; rps: number }>, gzip: [] as Array<{ cpuUs: number; bytes: number; rps: number }> };
      const costs: number[] = [];
      for (let round = 0; round < opts.rounds; round++) {
        const byKind: Record<'plain' | 'gzip', number> = { plain: 0, gzip: 0 };
        // Alternate which goes first, so that drift within a round falls on both alike.
        for (const gzip of round % 2 === 0 ? [false, true] : [true, false]) {
          const cpu0 = processCpuMicros(engine.pid);
          const r = await runWrk(target(gzip), CONNECTIONS, opts.durationSeconds, workDir, seed++);
          if (r.badStatus || r.socketErrors) throw new Error(`${id}: ${r.badStatus} bad statuses, ${r.socketErrors} socket errors`);
          const n = Math.max(r.requests, 1);
          const run = { cpuUs: (processCpuMicros(engine.pid) - cpu0) / n, bytes: r.bytes / n, rps: r.rps };
          (gzip ? runs.gzip : runs.plain).push(run);
          byKind[gzip ? 'gzip' : 'plain'] = run.cpuUs;
          opts.log(`round ${round + 1} ${id} ${gzip ? 'gzip ' : 'plain'}: ${r.rps.toFixed(0)} req/s, ${run.cpuUs.toFixed(1)} µs/req of engine CPU, ${run.bytes.toFixed(0)} B per response`);
        }
        costs.push(byKind.gzip - byKind.plain);
      }
      figures.push({
        query: `${id}: ${q.title}`,
        plainCpuUs: median(runs.plain.map((r) => r.cpuUs)),
        gzipCpuUs: median(runs.gzip.map((r) => r.cpuUs)),
        costUs: median(costs),
        plainBytes: median(runs.plain.map((r) => r.bytes)),
        gzipBytes: median(runs.gzip.map((r) => r.bytes)),
        plainRps: median(runs.plain.map((r) => r.rps)),
        gzipRps: median(runs.gzip.map((r) => r.rps)),
      });
    }
    return figures;
  });
}

export function gzipReport(figures: readonly GzipFigure[], opts: Pick<RoundRobinOptions, 'rounds' | 'durationSeconds'>): string {
  return [
    `Gzip cost: ${opts.rounds} rounds × (plain, gzip) of ${opts.durationSeconds} s, wrk c=${CONNECTIONS}, one engine. Medians; bytes include the response headers.`,
    '',
    '| query | engine CPU µs/req, plain | with Accept-Encoding: gzip | gzip cost (median of rounds) | bytes/response, plain / gzip | req/s, plain / gzip |',
    '|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.query} | ${f.plainCpuUs.toFixed(1)} | ${f.gzipCpuUs.toFixed(1)} | ${f.costUs.toFixed(1)} µs | ${f.plainBytes.toFixed(0)} / ${f.gzipBytes.toFixed(0)} | ${f.plainRps.toFixed(0)} / ${f.gzipRps.toFixed(0)} |`,
    ),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = benchArgs(5);
  const opts = {
    databaseUrl: args.databaseUrl,
    rounds: args.rounds,
    durationSeconds: args.durationSeconds,
    connections: CONNECTIONS,
    repoRoot: repoRootOf(import.meta.url),
    log: (m: string) => console.log(`[bench:gzip] ${m}`),
  };
  const figures = await runGzipBench(opts);
  writeBenchReport(opts.repoRoot, 'gzip', gzipReport(figures, opts), args.quick, args.out);
}
