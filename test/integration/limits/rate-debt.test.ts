/**
 * Per-user rate limits across two engine instances, end to end, with admission on debt
 * (plugins/limits/rate/leases.ts): a user's first operation on an engine is admitted without
 * waiting for the store, and the documented bound (docs/api.md, "Rate limits across instances":
 * at most `max + N × floor(max / 20)` per minute per key with N engines) holds for two engines
 * sharing Redis and for two sharing only the metadata database.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Engine } from '../../../core/engine.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { startLimitsFixture } from './fixture.js';

const REDIS_URL = 'redis://127.0.0.1:6379/0';
const MAX = 40;
// Two engines, each holding at most floor(40 / 20) = 2 tokens of a key unspent.
const BOUND = MAX + 2 * Math.floor(MAX / 20);
const QUERY = '{ author(limit: 1) { id } }';

type Outcome = 'ok' | 'rate-limit-exceeded';

describe('per-user rate limits across engines, admitted on debt', function () {
  this.timeout(90_000);
  let f: ReadApiFixture;
  const engines: Engine[] = [];
  before(async () => {
    f = await startLimitsFixture('rate_debt');
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
    await metadata(f.engine, { type: 'remove_api_limits', args: {} });
  });
  after(() => f?.close());

  /** A role no earlier run has counted (Redis keeps counters for a minute), limited per user. */
  const perUserRole = async (): Promise<string> => {
    const role = `rd_${randomBytes(4).toString('hex')}`;
    const grant = await metadata(f.engine, {
      type: 'pg_create_select_permission',
      args: {
        table: 'author',
        role,
        permission: { columns: ['id'], filter: {} },
      },
    });
    expect(grant.status).to.equal(200);
    const limits = await metadata(f.engine, {
      type: 'set_api_limits',
      args: {
        rate_limit: {
          global: { max_reqs_per_min: MAX, unique_params: ['x-svc-user-id'] },
        },
      },
    });
    expect(limits.status).to.equal(200);
    return role;
  };

  const ask = async (engine: Engine, role: string, user: string): Promise<Outcome> => {
    const res = await graphql(engine, QUERY, undefined, {
      'x-svc-role': role,
      'x-svc-user-id': user,
    });
    if (res.body.data) return 'ok';
    const code = res.body.errors?.[0]?.extensions?.code;
    if (code !== 'rate-limit-exceeded') throw new Error(JSON.stringify(res.body));
    expect(res.status).to.equal(200);
    expect(res.body.errors[0].message).to.equal(`rate limit exceeded: more than ${MAX} requests per minute`);
    return code;
  };

  /** The tokens the store reserved for a key in the current window (its count, which never passes MAX). */
  const reservedIn = async (store: 'Redis' | 'PostgreSQL', key: string): Promise<number> => {
    if (store === 'Redis') {
      const redis = new Redis(REDIS_URL);
      try {
        const members = await redis.zrange(key, 0, -1);
        return members.reduce((n, m) => n + Number(m.slice(m.lastIndexOf(':') + 1)), 0);
      } finally {
        redis.disconnect();
      }
    }
    const { rows } = await f.db.sql('SELECT coalesce((SELECT sum(x) FROM unnest(n) AS x), 0)::int AS n FROM svc_catalog.svc_rate_lease WHERE key = $1', [key]);
    return rows[0]?.n ?? 0;
  };

  for (const store of ['Redis', 'PostgreSQL'] as const) {
    const start = () =>
      startTestEngine({
        databaseUrl: f.db.url,
        ...(store === 'Redis' ? { redisUrl: REDIS_URL } : {}),
      });

    describe(`sharing ${store === 'Redis' ? 'Redis' : 'the metadata database'}`, () => {
      it("a user's first operation on an engine is admitted even over a full window: one over, within the bound, then refused", async () => {
        const role = await perUserRole();
        engines.push(await start(), await start());
        const [a, b] = engines as [Engine, Engine];
        const user = 'u1';
        const first: Outcome[] = [];
        for (let i = 0; i < MAX + 5; i++) first.push(await ask(a, role, user));
        expect(first).to.deep.equal([...Array<Outcome>(MAX).fill('ok'), ...Array<Outcome>(5).fill('rate-limit-exceeded')]);
        // Engine b has never seen the user: it answers without asking the store, which then refuses the debt.
        const second: Outcome[] = [];
        for (let i = 0; i < 5; i++) second.push(await ask(b, role, user));
        expect(second).to.deep.equal(['ok', ...Array<Outcome>(4).fill('rate-limit-exceeded')]);
        expect(MAX + 1).to.be.at.most(BOUND);
        // The store counted exactly the limit: the debt it refused was not recorded.
        expect(await reservedIn(store, `svc:lease:${JSON.stringify([role, user])}`)).to.equal(MAX);
        // Another user has a count of its own.
        expect(await ask(b, role, 'u2')).to.equal('ok');
      });

      it('many users hammering both engines at once: each within the bound, none starved', async () => {
        const role = await perUserRole();
        engines.push(await start(), await start());
        const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
        const ok = new Map<string, number>(users.map((u) => [u, 0]));
        // 60 operations per user (1.5 × the limit), in concurrent rounds spread over both engines.
        for (let round = 0; round < 12; round++) {
          const answers = await Promise.all(
            users.flatMap((u) => Array.from({ length: 5 }, (_, i) => ask(engines[(round + i) % 2]!, role, u).then((o) => ({ u, o })))),
          );
          for (const { u, o } of answers) if (o === 'ok') ok.set(u, ok.get(u)! + 1);
        }
        for (const [u, n] of ok) {
          expect(n, u).to.be.within(MAX - 2 * Math.floor(MAX / 20), BOUND);
          expect(await reservedIn(store, `svc:lease:${JSON.stringify([role, u])}`), u).to.be.at.most(MAX);
        }
      });
    });
  }
});
