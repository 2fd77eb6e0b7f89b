/**
 * `npx tsx test/bench/one-trip-cost.ts [--rounds 11] [--n 2000]`: the CPU one checked write costs
 * the PostgreSQL backend and the client, for the statement sequences a one-trip mutation has
 * sent, measured as CPU time (not throughput) so that a loaded machine changes little:
 *   explicit+guard  BEGIN, set_config, the write recording its check, the guard, COMMIT (before)
 *   implicit        set_config, the write failing by itself on a failed check (now)
 *   floor           the bare INSERT ... RETURNING, autocommit (what the Node floor sends)
 * Each is sent as one pipeline (../../plugins/db/postgres/pipeline.ts), prepared, on one
 * connection, sequentially; the modes alternate in short rounds, and the median and minimum
 * over the rounds are reported (other processes' load inflates some rounds, not the minimum). The backend's CPU is read from
 * /proc/<pid>/stat (same machine only). Uses a scratch database on 127.0.0.1:5432.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { PoolClient } from 'pg';
import {
  runPipeline,
  type PipelineStep,
} from '../../plugins/db/postgres/pipeline.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '11' },
    n: { type: 'string', default: '2000' },
  },
});
const ROUNDS = Number(args.rounds);
const N = Number(args.n);
const DB = 'svc_bench_one_trip_cost';
const ADMIN = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'postgres',
};

const SESSION = `SELECT set_config('svc.user', $1, true)`;
const DML = `INSERT INTO article AS "_0" (title, rating) VALUES ($2::text, $3::int) RETURNING *, ("_0".rating <= 5) AS "check__constraint"`;
const OUTPUT = `json_build_object('id', (SELECT id FROM "_svc_m" LIMIT 1), 'title', (SELECT title FROM "_svc_m" LIMIT 1))`;
const CHECK = `(SELECT coalesce(bool_and("check__constraint"), true) FROM "_svc_m")`;
const WRITE_RECORDING = `WITH "_svc_m" AS (${DML}) SELECT (${OUTPUT})::text, "_svc_c"."ok", set_config('svc.mutation_check', "_svc_c"."ok"::text, true) FROM (SELECT ${CHECK} AS "ok") AS "_svc_c" WHERE ($1::text IS NULL OR true)`;
const GUARD = `SELECT 1 / (current_setting('svc.mutation_check') = 'true')::int`;
const WRITE_FAILING = `WITH "_svc_m" AS (${DML}) SELECT (${OUTPUT})::text, CASE WHEN "_svc_c"."ok" THEN true ELSE ('svc-permission-check-failed ' || "_svc_c"."ok"::text)::boolean END FROM (SELECT ${CHECK} AS "ok") AS "_svc_c" WHERE ($1::text IS NULL OR true)`;
const FLOOR = `INSERT INTO article (title, rating) VALUES ($1, $2) RETURNING id, title`;

const session = '{"x-svc-role":"user","x-svc-user-id":"2"}';
const MODES: Record<string, (i: number) => PipelineStep[]> = {
  'explicit+guard': (i) => [
    { text: 'BEGIN ISOLATION LEVEL READ COMMITTED', name: 'c_begin' },
    { text: SESSION, values: [session], name: 'c_session' },
    {
      text: WRITE_RECORDING,
      values: [session, `t${i}`, 3],
      name: 'c_write_recording',
    },
    { text: GUARD, name: 'c_guard' },
    { text: 'COMMIT', name: 'c_commit' },
  ],
  implicit: (i) => [
    { text: SESSION, values: [session], name: 'c_session' },
    {
      text: WRITE_FAILING,
      values: [session, `t${i}`, 3],
      name: 'c_write_failing',
    },
  ],
  floor: (i) => [{ text: FLOOR, values: [`t${i}`, 3], name: 'c_floor' }],
};

/** utime + stime of a process, µs. */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  // Fields 14 and 15 of stat (1-based), counted here after 'pid (comm) '.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

async function main(): Promise<void> {
  const admin = new pg.Client(ADMIN);
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
  await admin.query(`CREATE DATABASE ${DB}`);
  const pool = new pg.Pool({ ...ADMIN, database: DB, max: 1 });
  try {
    await pool.query(
      'CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, rating int)',
    );
    const samples: Record<string, { pg: number[]; client: number[] }> = {};
    const client: PoolClient = await pool.connect();
    try {
      const backend = Number(
        (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p,
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (const [mode, steps] of Object.entries(MODES)) {
          for (let i = 0; i < 200; i++) await runPipeline(client, steps(i)); // warm: prepared, plans cached
          const pg0 = cpuOf(backend);
          const c0 = process.cpuUsage();
          for (let i = 0; i < N; i++) await runPipeline(client, steps(i));
          const c = process.cpuUsage(c0);
          const t = (samples[mode] ??= { pg: [], client: [] });
          t.pg.push((cpuOf(backend) - pg0) / N);
          t.client.push((c.user + c.system) / N);
        }
      }
    } finally {
      client.release();
    }
    const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const min = (xs: number[]): number => Math.min(...xs);
    console.log('| statements sent | PG backend CPU µs/write, median (min) | client CPU µs/write, median (min) |\n|---|---|---|');
    for (const [mode, t] of Object.entries(samples)) {
      console.log(`| ${mode} | ${median(t.pg).toFixed(0)} (${min(t.pg).toFixed(0)}) | ${median(t.client).toFixed(0)} (${min(t.client).toFixed(0)}) |`);
    }
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.end();
  }
}

await main();
