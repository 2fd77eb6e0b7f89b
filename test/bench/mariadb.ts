/**
 * bench:mariadb — Q1-Q3 of the plan (test/bench/queries.ts) against the mariadb kind, beside a
 * bare mysql2 floor (mariadb-floor.ts) running hand-written MariaDB SQL for the same answers, so
 * the ratio is the engine's cost over MariaDB. Besides throughput it records the CPU each Node
 * process spent per request (/proc), which a loaded machine distorts much less. Bounded: 10,000 authors and 100,000 articles made
 * with MariaDB's sequence tables, and each query run for BENCH_SECONDS (default 8) per side with
 * wrk at BENCH_CONNECTIONS (default 16), after a 2 s warm-up of each side. A sample of each query is compared between engine and
 * floor before it is timed. Usage: npm run bench:mariadb.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection } from 'mysql2/promise';
import { isDeepStrictEqual } from 'node:util';
import { createTestDatabase } from '../helpers/database.js';
import { ADMIN_HEADERS, postJson, startEngineProcess, waitHealthy } from './engine-process.js';
import { freePort, processCpuMicros, startServer } from './proc.js';
import { QUERIES, rootField, type Vars } from './queries.js';
import { ensureWrk, runWrk } from './wrk.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATABASE = 'maria_bench';
const SERVER = { host: '127.0.0.1', port: 3306, user: 'root' };
const POOL = 16;

export interface MariaBenchOptions {
  seconds: number;
  connections: number;
  /** Seconds of warm-up per side before each measured run (0: none). */
  warmup: number;
  log: (line: string) => void;
}

export interface MariaBenchRow {
  id: string;
  engineRps: number;
  floorRps: number;
  engineCpuUs: number;
  floorCpuUs: number;
}

/** The floor's SQL per query: `:name` marks a variable. */
const FLOOR_SQL: Record<string, string> = {
  Q1: `SELECT JSON_OBJECT('id', id, 'name', name, 'email', email) FROM author WHERE id = :id`,
  // DATETIME(0): ISO text with T, as the kind writes it (its fraction term is always empty here).
  Q2: `SELECT COALESCE(JSON_ARRAYAGG(JSON_OBJECT('id', id, 'title', title, 'rating', rating, 'published_at', DATE_FORMAT(published_at, '%Y-%m-%dT%H:%i:%s')) ORDER BY published_at DESC), '[]')
         FROM (SELECT * FROM article WHERE author_id = :a AND rating >= 3 ORDER BY published_at DESC LIMIT 20) s`,
  Q3: `SELECT COALESCE(JSON_ARRAYAGG(JSON_OBJECT('id', s.id, 'title', s.title, 'author', JSON_OBJECT('id', au.id, 'name', au.name)) ORDER BY s.id), '[]')
         FROM (SELECT * FROM article WHERE id > :cursor ORDER BY id LIMIT 20) s JOIN author au ON au.id = s.author_id`,
};

async function createDataset(): Promise<void> {
  const conn = await createConnection({ ...SERVER, multipleStatements: true });
  try {
    await conn.query(`DROP DATABASE IF EXISTS ${DATABASE}; CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4; USE ${DATABASE};
      CREATE TABLE author (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200) NOT NULL) ENGINE=InnoDB;
      CREATE TABLE article (id INT PRIMARY KEY, author_id INT NOT NULL, title VARCHAR(200) NOT NULL, rating INT NOT NULL,
        published_at DATETIME NOT NULL, KEY (author_id, published_at), FOREIGN KEY (author_id) REFERENCES author (id)) ENGINE=InnoDB;
      INSERT INTO author SELECT seq, CONCAT('author ', seq), CONCAT('a', seq, '@example.com') FROM seq_1_to_10000;
      INSERT INTO article SELECT seq, 1 + (seq * 7919) % 10000, CONCAT('article ', seq), 1 + seq % 5,
        TIMESTAMP('2020-01-01') + INTERVAL seq MINUTE FROM seq_1_to_100000;
      ANALYZE TABLE author, article;`);
  } finally {
    await conn.end();
  }
}

async function metadata(url: string, body: unknown): Promise<void> {
  const res = await postJson(url + '/v1/metadata', body);
  if (res.status !== 200) throw new Error(`metadata failed: ${JSON.stringify(res.body)}`);
}

export async function runMariaBench(options: MariaBenchOptions): Promise<MariaBenchRow[]> {
  const { seconds: SECONDS, connections: CONNECTIONS, log } = options;
  const wrkProblem = await ensureWrk(log);
  if (wrkProblem) throw new Error(wrkProblem);
  const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-mariadb-'));
  log('creating the dataset (10,000 authors, 100,000 articles)');
  await createDataset();
  const store = await createTestDatabase('mariadb_bench_meta');
  const engine = await startEngineProcess(ROOT, store.url, workDir);
  const floorPort = await freePort();
  const queries = QUERIES.filter((q) => ['Q1', 'Q2', 'Q3'].includes(q.id));
  const routes: Record<string, { text: string; args: string[]; field: string }> = {};
  for (const q of queries) {
    const args: string[] = [];
    const text = FLOOR_SQL[q.id]!.replace(/:(\w+)/g, (_m, name: string) => (args.push(name), '?'));
    routes[q.graphql] = { text, args, field: rootField(q) };
  }
  const floorConfig = join(workDir, 'floor.json');
  writeFileSync(floorConfig, JSON.stringify({ port: floorPort, connection: { ...SERVER, database: DATABASE }, poolSize: POOL, routes }));
  const floor = startServer(process.execPath, ['--import', 'tsx', join(ROOT, 'test/bench/mariadb-floor.ts'), floorConfig], join(workDir, 'floor.log'), { cwd: ROOT });
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  try {
    await waitHealthy(floorUrl, floor, null);
    const table = (name: string) => ({ schema: DATABASE, name });
    await metadata(engine.url, {
      type: 'maria_add_source',
      args: { name: 'bench', configuration: { connection_info: { ...SERVER, database: DATABASE, pool_settings: { max_connections: POOL } } } },
    });
    await metadata(engine.url, {
      type: 'bulk',
      args: [
        { type: 'maria_track_table', args: { source: 'bench', table: table('author'), configuration: { custom_name: 'author' } } },
        { type: 'maria_track_table', args: { source: 'bench', table: table('article'), configuration: { custom_name: 'article' } } },
        { type: 'maria_create_object_relationship', args: { source: 'bench', table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      ],
    });
    const lines: string[] = [];
    const rows: MariaBenchRow[] = [];
    for (const q of queries) {
      // The gate: engine and floor give the same data for the samples.
      for (const sample of q.samples as Vars[]) {
        const e = await postJson(engine.url + '/v1/graphql', { query: q.graphql, variables: sample }, ADMIN_HEADERS);
        const f = await postJson(floorUrl, { query: q.graphql, variables: sample });
        if (!isDeepStrictEqual(e.body, f.body)) throw new Error(`${q.id} differs for ${JSON.stringify(sample)}:\nengine ${JSON.stringify(e.body).slice(0, 300)}\nfloor  ${JSON.stringify(f.body).slice(0, 300)}`);
      }
      // Warm-up: prepared statements on every pooled connection, the engine's plan cache, JIT.
      if (options.warmup > 0) {
        await runWrk({ url: engine.url + '/v1/graphql', query: q.graphql, vars: q.vars, headers: ADMIN_HEADERS }, CONNECTIONS, options.warmup, workDir, 2);
        await runWrk({ url: floorUrl, query: q.graphql, vars: q.vars, headers: { 'content-type': 'application/json' } }, CONNECTIONS, options.warmup, workDir, 2);
      }
      let cpu = processCpuMicros(engine.pid);
      const engineRun = await runWrk({ url: engine.url + '/v1/graphql', query: q.graphql, vars: q.vars, headers: ADMIN_HEADERS }, CONNECTIONS, SECONDS, workDir, 1);
      const engineCpu = (processCpuMicros(engine.pid) - cpu) / engineRun.requests;
      cpu = processCpuMicros(floor.pid);
      const floorRun = await runWrk({ url: floorUrl, query: q.graphql, vars: q.vars, headers: { 'content-type': 'application/json' } }, CONNECTIONS, SECONDS, workDir, 1);
      const floorCpu = (processCpuMicros(floor.pid) - cpu) / floorRun.requests;
      for (const [name, r] of [['engine', engineRun], ['floor', floorRun]] as const) {
        if (r.badStatus + r.badBody + r.socketErrors > 0) throw new Error(`${q.id} ${name}: ${r.badStatus} bad statuses, ${r.badBody} error bodies, ${r.socketErrors} socket errors`);
      }
      const line =
        `| ${q.id} | ${q.title} | ${engineRun.rps.toFixed(0)} | ${(engineRun.p50Us / 1000).toFixed(2)} | ${floorRun.rps.toFixed(0)} | ${(floorRun.p50Us / 1000).toFixed(2)} ` +
        `| ${(engineRun.rps / floorRun.rps).toFixed(2)} | ${engineCpu.toFixed(0)} | ${floorCpu.toFixed(0)} | ${(engineCpu / floorCpu).toFixed(2)} |`;
      log(line);
      lines.push(line);
      rows.push({ id: q.id, engineRps: engineRun.rps, floorRps: floorRun.rps, engineCpuUs: engineCpu, floorCpuUs: floorCpu });
    }
    log(`\nMariaDB kind vs a bare mysql2 floor, ${SECONDS} s per side, ${CONNECTIONS} connections, pool ${POOL}, load average ${loadavg()[0]!.toFixed(1)}:`);
    log('| Query | | engine rps | engine p50 ms | floor rps | floor p50 ms | rps engine/floor | engine CPU µs/req | floor CPU µs/req | CPU engine/floor |');
    log('|---|---|---|---|---|---|---|---|---|---|');
    for (const l of lines) log(l);
    return rows;
  } finally {
    await floor.stop();
    await engine.stop();
    await store.drop();
    const conn = await createConnection(SERVER);
    await conn.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await conn.end();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  runMariaBench({
    seconds: Number(process.env['BENCH_SECONDS'] ?? 8),
    connections: Number(process.env['BENCH_CONNECTIONS'] ?? 16),
    warmup: 2,
    log: console.log,
  }).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
