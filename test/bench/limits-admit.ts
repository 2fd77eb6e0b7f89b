/**
 * The limit check alone, in process: microseconds of CPU per admitted operation through the
 * limit gate (core/graphql/execute/limit-pass.ts) with the real limit plugins, A/B against the
 * hook's promise path (what the executor ran before the pass: a context object and
 * `onRequestLimit.promise`, awaited per operation), interleaved round by round in one process so
 * that load from other work falls on both alike. Scenarios as in `npm run bench:limits`: no
 * limit set, depth+node+batch+time, and a rate limit added per role (one key) or per user (cold
 * keys: every round brings `--users` new users, each seen `ops / users` times, as the engine bench's
 * wrk spreads users), counted in Redis, or with `--metadata-database-url` in that PostgreSQL
 * database (its `svc_catalog` schema is created if missing), as without Redis. Operations yield to the event loop every 500, as a server
 * does between requests, so that background reservations go out; their CPU is counted.
 *
 *   npx tsx test/bench/limits-admit.ts [--rounds 7] [--ops 50000] [--users 10000] [--redis-url redis://127.0.0.1:6379/0 | --metadata-database-url <url>]
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { asValue, createContainer } from 'awilix';
import { getOperationAST, parse, type FragmentDefinitionNode } from 'graphql';
import { createHooks, type KernelHooks, type LimitContext } from '../../core/hooks.js';
import { LimitGate } from '../../core/graphql/execute/limit-pass.js';
import { makeSession, type Session } from '../../core/auth/session.js';
import type { LimitedOperation } from '../../core/graphql/execute/limits.js';
import type { SchemaCache } from '../../core/schema-cache/cache.js';
import type { AnyPlugin } from '../../core/plugin.js';
import batch from '../../plugins/limits/batch/index.js';
import depth from '../../plugins/limits/depth/index.js';
import node from '../../plugins/limits/node/index.js';
import rate from '../../plugins/limits/rate/index.js';
import time from '../../plugins/limits/time/index.js';
import { isMain, median } from './round-robin.js';

const STATIC = { depth_limit: { global: 10 }, node_limit: { global: 100 }, batch_limit: { global: 10 }, time_limit: { global: 30 } };
const SCENARIOS = [
  { name: 'no limits', limits: undefined, perUser: false },
  { name: 'depth+node+batch+time', limits: STATIC, perUser: false },
  { name: '+ rate per role', limits: { ...STATIC, rate_limit: { global: { max_reqs_per_min: 100_000_000 } } }, perUser: false },
  {
    name: '+ rate per user, cold keys',
    limits: { ...STATIC, rate_limit: { global: { max_reqs_per_min: 100_000_000, unique_params: ['x-svc-user-id'] } } },
    perUser: true,
  },
] as const;

/** Q7's operation: a pk lookup of one row (depth 1, one node). */
const Q7 = ((): LimitedOperation => {
  const document = parse('query Q7($id: Int!) { pgbench_accounts_by_pk(aid: $id) { aid bid abalance filler } }');
  return { document, definition: getOperationAST(document)!, fragments: {} as Record<string, FragmentDefinitionNode>, kind: 'query' };
})();

const META = { endpoint: 'graphql', ip: '127.0.0.1', operationCount: 1 };
const YIELD_EVERY = 500;

type Admit = (session: Session) => void | Promise<unknown>;

export interface AdmitFigure {
  scenario: string;
  /** Median CPU µs per operation through the pass, and through the hook's promise path. */
  passUs: number;
  hookUs: number;
  passRounds: number[];
  hookRounds: number[];
}

async function timeRound(admit: Admit, sessions: (round: number, i: number) => Session, round: number, ops: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < ops; i++) {
    const waiting = admit(sessions(round, i));
    if (waiting !== undefined) await waiting;
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((r) => setImmediate(r));
  }
  // Background reservations of the round (debts, prefetches) are its cost too.
  await new Promise((r) => setTimeout(r, 120));
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / ops;
}

export interface AdmitOptions {
  rounds: number;
  ops: number;
  users: number;
  /** Where rate limits count: Redis, or (without a Redis URL) the metadata database. */
  redisUrl?: string | undefined;
  metadataDatabaseUrl?: string | undefined;
}

export async function runLimitsAdmit(opts: AdmitOptions): Promise<AdmitFigure[]> {
  if (opts.metadataDatabaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: opts.metadataDatabaseUrl });
    await client.connect();
    await client.query('CREATE SCHEMA IF NOT EXISTS svc_catalog').finally(() => client.end());
  }
  const hooks: KernelHooks = createHooks();
  const container = createContainer();
  container.register('config', asValue(opts.redisUrl === undefined ? {} : { redisUrl: opts.redisUrl }));
  container.register('metadataDatabaseUrl', asValue(opts.metadataDatabaseUrl));
  for (const p of [batch, depth, node, rate, time] as AnyPlugin[]) await p.register(container, hooks, {});
  const gate = LimitGate.forContainer(container, hooks);
  const figures: AdmitFigure[] = [];
  try {
    for (const [index, s] of SCENARIOS.entries()) {
      const cache = { version: index + 1, metadata: s.limits === undefined ? {} : { api_limits: s.limits } } as unknown as SchemaCache;
      const run = randomBytes(4).toString('hex');
      const role = makeSession('user', { 'x-svc-user-id': '1' });
      // Per user: `users` fresh users per round and path, round-robin, so that each key starts cold.
      const userSessions = new Map<string, Session[]>();
      const sessionsFor = (path: string) => (round: number, i: number): Session => {
        if (!s.perUser) return role;
        const key = `${path}:${round}`;
        let list = userSessions.get(key);
        if (list === undefined) {
          list = Array.from({ length: opts.users }, (_, u) => makeSession('user', { 'x-svc-user-id': `${run}-${key}-${u}` }));
          userSessions.clear();
          userSessions.set(key, list);
        }
        return list[i % opts.users]!;
      };
      const viaPass: Admit = (session) => {
        const r = gate.admit(Q7, cache, session, META);
        return r instanceof Promise ? r : undefined;
      };
      // The executor before the pass: the same gate test, a context per operation, the hook awaited.
      const viaHook: Admit = (session) => {
        if (!gate.isActive(cache)) return undefined;
        const ctx: LimitContext = { session, endpoint: META.endpoint, operationCount: 1, ip: META.ip, operation: Q7, cache, timeLimitSeconds: undefined };
        return hooks.onRequestLimit.promise(ctx);
      };
      // Warm-up: JIT, the Redis connection, the role's lease.
      await timeRound(viaPass, sessionsFor('warm-pass'), 0, Math.min(opts.ops, 20_000));
      await timeRound(viaHook, sessionsFor('warm-hook'), 0, Math.min(opts.ops, 20_000));
      const passRounds: number[] = [];
      const hookRounds: number[] = [];
      for (let r = 1; r <= opts.rounds; r++) {
        // Alternate which path goes first, so that drift within a round pair falls on both.
        if (r % 2 === 1) {
          passRounds.push(await timeRound(viaPass, sessionsFor('pass'), r, opts.ops));
          hookRounds.push(await timeRound(viaHook, sessionsFor('hook'), r, opts.ops));
        } else {
          hookRounds.push(await timeRound(viaHook, sessionsFor('hook'), r, opts.ops));
          passRounds.push(await timeRound(viaPass, sessionsFor('pass'), r, opts.ops));
        }
      }
      figures.push({ scenario: s.name, passUs: median(passRounds), hookUs: median(hookRounds), passRounds, hookRounds });
    }
  } finally {
    await hooks.onEvent.promise({ type: 'shutdown.started', reason: 'bench done' });
  }
  return figures;
}

export function admitReport(figures: readonly AdmitFigure[], opts: AdmitOptions, load: { before: number[]; after: number[] }): string {
  const f = (n: number) => n.toFixed(2);
  const lines = [
    `# Limit check per operation, in process (${new Date().toISOString()})`,
    '',
    `${opts.rounds} interleaved rounds of ${opts.ops} operations per path and scenario (per user: ${opts.users} new users a round); rate limits counted in ${opts.redisUrl === undefined ? 'the metadata database (PostgreSQL)' : 'Redis'}; ${cpus().length} CPUs;`,
    `load average before ${load.before.map((l) => l.toFixed(2)).join(' ')}, after ${load.after.map((l) => l.toFixed(2)).join(' ')}.`,
    'CPU µs per operation (user + system of the whole process, background reservations included), medians of the rounds.',
    '',
    '| scenario | pass (limit-pass.ts) µs/op | hook path (before) µs/op | saved µs/op |',
    '|---|---|---|---|',
    ...figures.map((x) => `| ${x.scenario} | ${f(x.passUs)} | ${f(x.hookUs)} | ${f(x.hookUs - x.passUs)} |`),
    '',
    'Rounds (pass / hook):',
    '',
    ...figures.map((x) => `- ${x.scenario}: ${x.passRounds.map(f).join(', ')} / ${x.hookRounds.map(f).join(', ')}`),
  ];
  return lines.join('\n') + '\n';
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '7' },
      ops: { type: 'string', default: '50000' },
      users: { type: 'string', default: '10000' },
      'redis-url': { type: 'string' },
      'metadata-database-url': { type: 'string' },
    },
  });
  const metadataDatabaseUrl = values['metadata-database-url'];
  const opts: AdmitOptions = {
    rounds: Number(values.rounds),
    ops: Number(values.ops),
    users: Number(values.users),
    redisUrl: values['redis-url'] ?? (metadataDatabaseUrl === undefined ? 'redis://127.0.0.1:6379/0' : undefined),
    metadataDatabaseUrl,
  };
  const before = loadavg();
  const figures = await runLimitsAdmit(opts);
  process.stdout.write(admitReport(figures, opts, { before, after: loadavg() }));
  process.exit(0);
}
