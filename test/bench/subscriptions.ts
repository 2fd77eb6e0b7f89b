/**
 * The live-query benchmark: N subscribers, each with its own variables (N cohorts of one
 * statement), against the engine as a child process on a private cluster with
 * pg_stat_statements. Per pass it reports the engine's CPU (% of one core) and memory, the
 * database's CPU and its execution time for the multiplexed statement, statements per second,
 * and the time from a committed write to the subscriber's message.
 *
 * Passes: change tracking on and off, each under two loads: `hot` (a write to a watched row
 * every 200 ms) and `cold` (writes only to a table no subscription reads: what change tracking
 * saves). Quick mode: 1,000 subscribers, 6 s windows; full mode: 10,000, 30 s.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { externalCluster, postgresBinariesAvailable, startCluster, type Cluster } from './cluster.js';
import { ADMIN_SECRET, postJson, startEngineProcess, type EngineProcess } from './engine-process.js';
import { processCpuMicros, sleep, treeCpuMicros } from './proc.js';
import { createTestDatabase } from '../helpers/database.js';

export interface SubsBenchOptions {
  mode: 'quick' | 'full';
  subscribers: number;
  connections: number;
  windowSeconds: number;
  refetchMs: number;
  databaseUrl?: string;
  outDir: string;
  log(m: string): void;
}

export function subsBenchOptions(mode: 'quick' | 'full', repoRoot: string): SubsBenchOptions {
  return {
    mode,
    subscribers: mode === 'quick' ? 1000 : 10_000,
    connections: mode === 'quick' ? 10 : 50,
    windowSeconds: mode === 'quick' ? 6 : 30,
    refetchMs: 1000,
    outDir: join(repoRoot, 'test/bench/results', `subscriptions-${mode}`),
    log: (m) => console.log(m),
  };
}

export interface PassResult {
  tracking: boolean;
  load: 'hot' | 'cold';
  subscribers: number;
  engineCpuPct: number;
  engineRssMb: number;
  dbCpuPct: number | null;
  statementsPerSec: number | null;
  dbExecMsPerSec: number | null;
  messagesPerSec: number;
  latencyMs: { p50: number; p95: number; max: number; samples: number } | null;
}

const SETUP = (rows: number) => `
  DROP TABLE IF EXISTS item, noise;
  CREATE TABLE item (id int PRIMARY KEY, owner int NOT NULL, value int NOT NULL DEFAULT 0);
  CREATE TABLE noise (id serial PRIMARY KEY, v int);
  INSERT INTO item (id, owner) SELECT g, g % 100 FROM generate_series(1, ${rows}) g;
  CREATE EXTENSION IF NOT EXISTS pg_stat_statements;`;

const QUERY = 'subscription ($id: Int!) { item(where: {id: {_eq: $id}}) { id value } }';

class Subscribers {
  private readonly sockets: WebSocket[] = [];
  readonly firstSeen = new Set<number>();
  messages = 0;
  /** id → commit time of the pending write to it. */
  readonly pending = new Map<number, number>();
  readonly latencies: number[] = [];

  async open(url: string, count: number, connections: number): Promise<void> {
    const per = Math.ceil(count / connections);
    for (let c = 0; c < connections; c++) {
      const ws = new WebSocket(url, 'graphql-transport-ws');
      this.sockets.push(ws);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.on('message', (d) => this.onMessage(d.toString()));
      ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': ADMIN_SECRET } } }));
      for (let i = c * per; i < Math.min(count, (c + 1) * per); i++) {
        ws.send(JSON.stringify({ type: 'subscribe', id: String(i + 1), payload: { query: QUERY, variables: { id: i + 1 } } }));
      }
    }
  }

  private onMessage(text: string): void {
    const m = JSON.parse(text) as { type: string; id?: string };
    if (m.type !== 'next') return;
    this.messages++;
    const id = Number(m.id);
    if (!this.firstSeen.has(id)) {
      this.firstSeen.add(id);
      return;
    }
    const at = this.pending.get(id);
    if (at !== undefined) {
      this.latencies.push(performance.now() - at);
      this.pending.delete(id);
    }
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
  }
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function statementStats(db: pg.Client): Promise<{ calls: number; ms: number } | null> {
  try {
    const r = await db.query<{ calls: string; ms: number }>(
      `SELECT coalesce(sum(calls), 0)::text AS calls, coalesce(sum(total_exec_time), 0)::float8 AS ms
         FROM pg_stat_statements WHERE query LIKE '%UNNEST(($1)::uuid[], ($2)::json[])%'`,
    );
    return { calls: Number(r.rows[0]!.calls), ms: r.rows[0]!.ms };
  } catch {
    return null;
  }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function runPass(opts: SubsBenchOptions, cluster: Cluster, repoRoot: string, tracking: boolean): Promise<PassResult[]> {
  const workDir = join(opts.outDir, 'tmp');
  mkdirSync(workDir, { recursive: true });
  const engine: EngineProcess = await startEngineProcess(repoRoot, cluster.url, workDir, [], {
    SVC_GRAPHQL_LIVE_QUERIES_CHANGE_TRACKING: String(tracking),
    SVC_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: String(opts.refetchMs),
    SVC_GRAPHQL_PG_CONNECTIONS: '20',
  });
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  const subs = new Subscribers();
  try {
    const tracked = await postJson(`${engine.url}/v1/metadata`, {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'item' } },
        { type: 'pg_track_table', args: { table: 'noise' } },
      ],
    });
    // The second pass finds the metadata of the first in the same database.
    if (tracked.status !== 200 && tracked.body?.code !== 'already-tracked') throw new Error(JSON.stringify(tracked.body));
    await subs.open(engine.url.replace('http', 'ws') + '/v1/graphql', opts.subscribers, opts.connections);
    const deadline = Date.now() + 120_000;
    while (subs.firstSeen.size < opts.subscribers) {
      if (Date.now() > deadline) throw new Error(`only ${subs.firstSeen.size} of ${opts.subscribers} subscribers got a first result`);
      await sleep(100);
    }
    opts.log(`  ${opts.subscribers} subscribers served (change tracking ${tracking ? 'on' : 'off'})`);
    await sleep(opts.refetchMs * 2);
    const results: PassResult[] = [];
    for (const load of ['hot', 'cold'] as const) {
      subs.latencies.length = 0;
      subs.pending.clear();
      const cpu0 = processCpuMicros(engine.pid);
      const db0 = cluster.postmasterPid ? treeCpuMicros(cluster.postmasterPid) : null;
      const st0 = await statementStats(db);
      const msg0 = subs.messages;
      const t0 = performance.now();
      let n = 0;
      while (performance.now() - t0 < opts.windowSeconds * 1000) {
        if (load === 'hot') {
          const id = 1 + ((n * 7919) % opts.subscribers);
          await db.query('UPDATE item SET value = value + 1 WHERE id = $1', [id]);
          subs.pending.set(id, performance.now());
        } else {
          await db.query('INSERT INTO noise (v) VALUES ($1)', [n]);
        }
        n++;
        await sleep(200);
      }
      // Let the last writes arrive before reading the counters.
      await sleep(opts.refetchMs * 1.5);
      const seconds = (performance.now() - t0) / 1000;
      const st1 = await statementStats(db);
      const sorted = [...subs.latencies].sort((a, b) => a - b);
      results.push({
        tracking,
        load,
        subscribers: opts.subscribers,
        engineCpuPct: ((processCpuMicros(engine.pid) - cpu0) / 1e6 / seconds) * 100,
        engineRssMb: rssMb(engine.pid),
        dbCpuPct: db0 === null ? null : ((treeCpuMicros(cluster.postmasterPid!) - db0) / 1e6 / seconds) * 100,
        statementsPerSec: st0 && st1 ? (st1.calls - st0.calls) / seconds : null,
        dbExecMsPerSec: st0 && st1 ? (st1.ms - st0.ms) / seconds : null,
        messagesPerSec: (subs.messages - msg0) / seconds,
        latencyMs:
          load === 'hot' && sorted.length > 0
            ? { p50: pct(sorted, 50), p95: pct(sorted, 95), max: sorted[sorted.length - 1]!, samples: sorted.length }
            : null,
      });
    }
    return results;
  } finally {
    subs.close();
    await db.end();
    await engine.stop();
  }
}

export async function runSubscriptionBench(opts: SubsBenchOptions, repoRoot: string): Promise<{ results: PassResult[]; markdown: string }> {
  let cluster: Cluster;
  if (opts.databaseUrl) {
    cluster = externalCluster(opts.databaseUrl);
  } else if (postgresBinariesAvailable()) {
    cluster = await startCluster(opts.log, 'tuned', { shared_preload_libraries: 'pg_stat_statements' });
  } else {
    // No server binaries: a scratch database on the machine's server (no database CPU figures).
    const scratch = await createTestDatabase('subs_bench');
    cluster = { ...externalCluster(scratch.url), stop: () => scratch.drop() };
  }
  const results: PassResult[] = [];
  try {
    const db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
    await db.query(SETUP(opts.subscribers)).catch(async () => db.query(SETUP(opts.subscribers).replace(/CREATE EXTENSION[^;]*;/, '')));
    await db.end();
    for (const tracking of [false, true]) results.push(...(await runPass(opts, cluster, repoRoot, tracking)));
  } finally {
    await cluster.stop();
  }
  const markdown = renderMarkdown(opts, results);
  mkdirSync(opts.outDir, { recursive: true });
  writeFileSync(join(opts.outDir, 'subscriptions.json'), JSON.stringify({ options: { ...opts, log: undefined }, results }, null, 2));
  writeFileSync(join(opts.outDir, 'subscriptions.md'), markdown);
  return { results, markdown };
}

function renderMarkdown(opts: SubsBenchOptions, results: PassResult[]): string {
  const f = (v: number | null, d = 1): string => (v === null ? 'n/a' : v.toFixed(d));
  const lines = [
    `Live queries, ${opts.mode} mode: ${opts.subscribers} subscribers (one cohort each) on ${opts.connections} sockets, refetch ${opts.refetchMs} ms, ${opts.windowSeconds} s windows.`,
    '',
    '| change tracking | load | engine CPU % of a core | engine RSS MB | DB CPU % | statements/s | DB exec ms/s | messages/s | write→message p50 / p95 / max ms |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const lat = r.latencyMs ? `${f(r.latencyMs.p50, 0)} / ${f(r.latencyMs.p95, 0)} / ${f(r.latencyMs.max, 0)} (${r.latencyMs.samples})` : '-';
    lines.push(
      `| ${r.tracking ? 'on' : 'off'} | ${r.load} | ${f(r.engineCpuPct)} | ${f(r.engineRssMb, 0)} | ${f(r.dbCpuPct)} | ${f(r.statementsPerSec)} | ${f(r.dbExecMsPerSec)} | ${f(r.messagesPerSec)} | ${lat} |`,
    );
  }
  return lines.join('\n') + '\n';
}
