/**
 * The timed part for one query: the engine at each connection level, then the Node floor,
 * PostGraphile and pgbench at the peer level (pgbench also at c=1 for the added latency), one
 * candidate after another so they never compete, and the ratios between them.
 */
import { resetInserted } from './dataset.js';
import { measureHttp, measurePgbench, type MeasureContext } from './measure.js';
import type { BenchOptions } from './bench.js';
import type { HttpCandidate } from './gate.js';
import type { BenchQuery } from './queries.js';
import type { Measurement, QueryResult } from './results.js';
import type { WrkTarget } from './wrk.js';

export interface Server {
  http: HttpCandidate;
  pid: number;
}

export interface Servers {
  engine: Server;
  floor: Server;
  postgraphile?: Server;
}

function target(server: Server, q: BenchQuery): WrkTarget {
  return {
    url: server.http.url,
    query: server.http.queryFor(q)!,
    vars: q.vars,
    headers: server.http.headersFor(q),
    ...(q.userIdVar ? { headerFromVar: { header: 'x-svc-user-id', variable: q.userIdVar } } : {}),
  };
}

const rpsOf = (m: Measurement | undefined): number | null => (m && m.status === 'ok' && m.median ? m.median.rps : null);
const div = (a: number | null, b: number | null): number | null => (a !== null && b !== null && b > 0 ? a / b : null);

export async function timeQuery(
  opts: BenchOptions,
  env: { workDir: string; db: string; postmasterPid: number | undefined; seedBase: number },
  q: BenchQuery,
  r: QueryResult,
  servers: Servers,
  pgbenchTemplate: string | undefined,
): Promise<void> {
  const ctx: MeasureContext = {
    workDir: env.workDir,
    databaseUrl: env.db,
    postmasterPid: env.postmasterPid,
    warmupSeconds: opts.warmupSeconds,
    durationSeconds: opts.durationSeconds,
    pgbenchSeconds: opts.pgbenchSeconds,
    repetitions: opts.repetitions,
    ...(q.mutation ? { beforeRun: () => resetInserted(env.db) } : {}),
    log: opts.log,
  };
  const engine: Measurement[] = [];
  for (const [i, c] of opts.connections.entries()) {
    engine.push(await measureHttp(ctx, 'engine', servers.engine.pid, target(servers.engine, q), c, i === 0, env.seedBase));
  }
  r.measurements.push(...engine);
  const peerLevel = opts.peerConnections;
  const peers: Array<[keyof Servers, 'node-floor' | 'postgraphile']> = [['floor', 'node-floor'], ['postgraphile', 'postgraphile']];
  const peerResults: Partial<Record<'node-floor' | 'postgraphile', Measurement>> = {};
  for (const [key, name] of peers) {
    const server = servers[key];
    if (!server || r.gate[name] !== 'ok') continue;
    const m = await measureHttp(ctx, name, server.pid, target(server, q), peerLevel, true, env.seedBase);
    peerResults[name] = m;
    r.measurements.push(m);
  }
  let pgbench: Measurement | undefined;
  let pgbench1: Measurement | undefined;
  if (pgbenchTemplate) {
    const levels = [...new Set([...(opts.connections.includes(1) ? [1] : []), peerLevel])];
    for (const [i, c] of levels.entries()) {
      const m = await measurePgbench(ctx, q, pgbenchTemplate, c, i === 0);
      r.measurements.push(m);
      if (c === peerLevel) pgbench = m;
      if (c === 1) pgbench1 = m;
    }
  }
  if (q.mutation) await resetInserted(env.db);

  const enginePeer = rpsOf(engine.find((m) => m.connections === peerLevel));
  const engine1 = engine.find((m) => m.connections === 1);
  r.ratios = {
    enginePerPgbench: div(enginePeer, rpsOf(pgbench)),
    enginePerNodeFloor: div(enginePeer, rpsOf(peerResults['node-floor'])),
    enginePerPostgraphile: div(enginePeer, rpsOf(peerResults['postgraphile'])),
    addedLatencyC1Us:
      engine1?.status === 'ok' && pgbench1?.status === 'ok' && engine1.median?.p50Us != null && pgbench1.median?.p50Us != null
        ? engine1.median.p50Us - pgbench1.median.p50Us
        : null,
  };
}
