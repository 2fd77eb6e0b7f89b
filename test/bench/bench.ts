/**
 * A bench run end to end: a private cluster with the generated dataset, the engine in its own
 * process, the correctness gate for every candidate, then the timed runs of each query on the
 * engine and side by side on the Node floor, PostGraphile and pgbench, and the results files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { externalCluster, startCluster, type Cluster, type ClusterProfile } from './cluster.js';
import { loadDataset, resetInserted } from './dataset.js';
import { ADMIN_HEADERS, configureEngine, hasMutationField, postJson, startEngineProcess } from './engine-process.js';
import { startFloor } from './floor-process.js';
import { installPostGraphile, startPostGraphile } from './postgraphile.js';
import { gateHttp, gateTemplate, planOf, type HttpCandidate } from './gate.js';
import { engineSqlTemplate } from './sql-template.js';
import { QUERIES, type BenchQuery } from './queries.js';
import { ensureWrk } from './wrk.js';
import { run } from './proc.js';
import { timeQuery, type Servers } from './timing.js';
import { writeResults } from './report.js';
import { median, type BenchResults, type QueryResult } from './results.js';

export interface BenchOptions {
  mode: 'quick' | 'full';
  databaseUrl?: string;
  /** Settings of the private cluster (ignored with databaseUrl). */
  pgSettings: ClusterProfile;
  withPeers: boolean;
  warmupSeconds: number;
  durationSeconds: number;
  pgbenchSeconds: number;
  repetitions: number;
  /** Engine connection levels; pgbench also runs at c=1 when 1 is among them. */
  connections: number[];
  /** The level where every candidate runs and ratios are taken. */
  peerConnections: number;
  poolSize: number;
  only?: string[];
  engineNodeOptions: string[];
  outDir: string;
  repoRoot: string;
  log: (m: string) => void;
}

export function defaultOptions(mode: 'quick' | 'full', repoRoot: string): BenchOptions {
  const quick = mode === 'quick';
  return {
    mode,
    pgSettings: 'tuned',
    withPeers: !quick,
    warmupSeconds: quick ? 1 : 5,
    durationSeconds: quick ? 2 : 10,
    pgbenchSeconds: quick ? 2 : 5,
    repetitions: quick ? 1 : 3,
    connections: quick ? [10] : [1, 10, 50],
    peerConnections: 10,
    poolSize: 10,
    engineNodeOptions: [],
    outDir: join(repoRoot, 'test/bench/results', quick ? 'tmp' : ''),
    repoRoot,
    log: (m) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}`),
  };
}

function engineCandidate(url: string): HttpCandidate {
  return {
    name: 'engine',
    url: url + '/v1/graphql',
    queryFor: (q) => q.graphql,
    headersFor: (q) => (q.userIdVar ? { ...ADMIN_HEADERS, 'x-svc-role': 'user' } : ADMIN_HEADERS),
    queryRootName: 'query_root',
  };
}

const plainCandidate = (name: string, url: string, queryFor: (q: BenchQuery) => string | null, queryRootName: string): HttpCandidate => ({
  name,
  url,
  queryFor,
  headersFor: () => ({ 'content-type': 'application/json' }),
  queryRootName,
});

export async function runBench(opts: BenchOptions): Promise<{ results: BenchResults; files: { json: string; md: string } }> {
  const log = opts.log;
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  const wrkProblem = await ensureWrk(log);
  if (wrkProblem) throw new Error(wrkProblem);
  const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const stops: Array<() => Promise<void>> = [];
  const queries = QUERIES.filter((q) => !opts.only || opts.only.includes(q.id));
  const results: QueryResult[] = queries.map((q) => ({
    id: q.id, title: q.title, graphql: q.graphql, status: 'ok', gate: {}, measurements: [],
    ratios: { enginePerPgbench: null, enginePerNodeFloor: null, enginePerPostgraphile: null, addedLatencyC1Us: null },
  }));
  let cluster: Cluster | undefined;
  let pgVersion = 'unknown';
  let metadataTiming: BenchResults['metadata'];
  try {
    cluster = opts.databaseUrl ? externalCluster(opts.databaseUrl) : await startCluster(log, opts.pgSettings);
    stops.push(cluster.stop);
    const db = cluster.url;
    log('loading the dataset (10k authors, 100k articles, 300k comments)');
    await loadDataset(db);
    pgVersion = (await run('psql', [db, '-X', '-At', '-c', 'SHOW server_version'])).stdout.trim();
    const engine = await startEngineProcess(opts.repoRoot, db, workDir, opts.engineNodeOptions);
    stops.push(engine.stop);
    await configureEngine(engine.url, opts.poolSize);
    metadataTiming = await timeReload(engine.url);
    log(`reload_metadata (introspects the source): median ${metadataTiming.reloadMedianMs.toFixed(1)} ms over ${metadataTiming.samples}`);
    const insertAvailable = await hasMutationField(engine.url, 'insert_article_one');
    log(`engine up at ${engine.url} (pid ${engine.pid}); insert_article_one ${insertAvailable ? 'available' : 'not available yet'}`);

    const engineHttp = engineCandidate(engine.url);
    const floorTemplates = new Map<string, string>();
    const pgbenchTemplates = new Map<string, string>();
    for (const [i, q] of queries.entries()) {
      const r = results[i]!;
      if (q.mutation && !insertAvailable) {
        r.status = 'skipped';
        r.note = 'not available: the engine has no insert_article_one mutation yet (picked up automatically once it exists)';
        continue;
      }
      r.gate['engine'] = (await gateHttp(db, engineHttp, q)) ?? 'ok';
      if (q.mutation && r.gate['engine'].includes('"code":"not-supported"')) {
        // The field is in the schema but the source cannot run mutations yet.
        r.status = 'skipped';
        r.note = `not available yet: ${r.gate['engine'].replace(/^.*"message":"(.*?)".*$/, '$1')}`;
        continue;
      }
      if (r.gate['engine'] !== 'ok') r.status = 'gate-failed';
      if (q.reference === null && !q.mutation) continue;
      const engineSql = q.manualSql ? null : await engineSqlTemplate(engine.url, q);
      const floorSql = q.manualSql?.floor ?? engineSql!;
      const pgbenchSql = q.manualSql?.pgbench ?? engineSql!;
      if (engineSql !== null && !q.mutation) r.plan = await planOf(db, q, engineSql);
      const floorGate = (await gateTemplate(db, q, floorSql)) ?? 'ok';
      const pgbenchGate = floorSql === pgbenchSql ? floorGate : ((await gateTemplate(db, q, pgbenchSql)) ?? 'ok');
      r.gate['pgbench'] = pgbenchGate === 'ok' && q.manualSql ? 'ok (hand-written INSERT: explain covers queries only)' : pgbenchGate;
      if (pgbenchGate === 'ok') pgbenchTemplates.set(q.id, pgbenchSql);
      if (floorGate === 'ok') floorTemplates.set(q.id, floorSql);
      else r.gate['node-floor SQL'] = floorGate;
    }

    const floor = await startFloor(opts.repoRoot, db, opts.poolSize, queries, floorTemplates, workDir);
    stops.push(floor.stop);
    const floorHttp = plainCandidate('node-floor', floor.url + '/v1/graphql', (q) => q.graphql, 'query_root');
    const servers: Servers = { engine: { http: engineHttp, pid: engine.pid }, floor: { http: floorHttp, pid: floor.pid } };

    if (opts.withPeers) {
      const cli = await installPostGraphile(log);
      const pgl = await startPostGraphile(cli, db, opts.poolSize, workDir);
      stops.push(pgl.stop);
      log(`PostGraphile up at ${pgl.url} (pid ${pgl.pid})`);
      const queryFor = (q: BenchQuery) => ('query' in q.postgraphile ? pgl.resolveNames(q.postgraphile.query) : null);
      servers.postgraphile = { http: plainCandidate('postgraphile', pgl.graphqlUrl, queryFor, 'Query'), pid: pgl.pid };
    }

    for (const [i, q] of queries.entries()) {
      const r = results[i]!;
      if (r.status === 'skipped') continue;
      r.gate['node-floor'] = floorTemplates.has(q.id) || (q.reference === null && !q.mutation) ? ((await gateHttp(db, floorHttp, q)) ?? 'ok') : 'not run (its SQL failed the gate)';
      if (servers.postgraphile) {
        r.gate['postgraphile'] = 'query' in q.postgraphile ? ((await gateHttp(db, servers.postgraphile.http, q)) ?? 'ok') : `n/a: ${q.postgraphile.why}`;
      } else r.gate['postgraphile'] = 'not run (quick mode without --with-peers)';
    }
    if (queries.some((q) => q.mutation)) await resetInserted(db);

    for (const [i, q] of queries.entries()) {
      const r = results[i]!;
      if (r.status !== 'ok') continue;
      log(`${q.id}: ${q.title}`);
      await timeQuery(opts, { workDir, db, postmasterPid: cluster.postmasterPid, seedBase: 1000 * (i + 1) }, q, r, servers, pgbenchTemplates.get(q.id));
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`stop failed: ${String(e)}`));
    rmSync(workDir, { recursive: true, force: true });
  }

  const results_: BenchResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: opts.mode,
    settings: {
      warmupSeconds: opts.warmupSeconds, durationSeconds: opts.durationSeconds, pgbenchSeconds: opts.pgbenchSeconds,
      repetitions: opts.repetitions, connections: opts.connections, peerConnections: opts.peerConnections, poolSize: opts.poolSize,
      withPeers: opts.withPeers, externalDatabase: opts.databaseUrl !== undefined, engineNodeOptions: opts.engineNodeOptions,
      pgSettings: opts.databaseUrl !== undefined ? 'external' : opts.pgSettings,
    },
    machine: await machine(loadStart, pgVersion),
    ...(metadataTiming ? { metadata: metadataTiming } : {}),
    queries: results,
  };
  const files = writeResults(results_, opts.outDir);
  log(`results: ${files.md}`);
  return { results: results_, files };
}

/** Metadata operations introspect the database; with JIT on that once cost seconds per call. */
async function timeReload(url: string): Promise<NonNullable<BenchResults['metadata']>> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const res = await postJson(url + '/v1/metadata', { type: 'reload_metadata', args: { reload_sources: true } });
    if (res.status !== 200) throw new Error(`reload_metadata failed: ${JSON.stringify(res.body)}`);
    samples.push(performance.now() - started);
  }
  return { reloadMedianMs: median(samples), samples: samples.length };
}

async function machine(loadStart: number[], pgVersion: string): Promise<BenchResults['machine']> {
  const wrk = await run('wrk', ['-v'], { allowFail: true });
  return {
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memGb: Math.round(totalmem() / 2 ** 30),
    loadStart,
    loadEnd: loadavg(),
    node: process.version,
    postgres: `PostgreSQL ${pgVersion}`,
    wrk: (wrk.stdout + wrk.stderr).split('\n')[0]!.replace(/ Copyright.*/, '').trim(),
  };
}
