/**
 * Admission on debt (plugins/limits/rate/leases.ts): a leased key's first operation in a window is
 * admitted at once and reserved in the background, batched with other keys'; exact keys (limits
 * under 40) never run debt; across two instances sharing a real store (Redis, or a PostgreSQL
 * database standing in for the metadata database) the documented bound, `max + N × floor(max /
 * 20)` over any window-long span, holds while keys go cold and come back; idle keys are forgotten
 * by the instance and by the store.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import pg from 'pg';
import { BACKGROUND_DELAY_MS, freeAllowance, leaseCap, RateLeases } from '../../../plugins/limits/rate/leases.js';
import { PgRateStore } from '../../../plugins/limits/rate/pg-store.js';
import { RedisRateStore } from '../../../plugins/limits/rate/redis-store.js';
import type { RateStore } from '../../../plugins/limits/rate/store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { busiestWindow, CountingExpiringStore as CountingStore, freshKey, sleep, waitUntil } from './rate-helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379/0';

let db: TestDatabase | undefined;

describe('rate-limit admission on debt', function () {
  this.timeout(60_000);
  before(async () => {
    db = await createTestDatabase('limits_rate_debt', 'CREATE SCHEMA svc_catalog');
  });
  after(() => db?.drop());

  it("the metadata database's sweep skips rows a reservation holds locked instead of waiting (no deadlock)", async () => {
    const store = new PgRateStore(db!.url);
    const holder = new pg.Client({ connectionString: db!.url });
    await holder.connect();
    try {
      await store.expire(60_000); // creates the table
      const [locked, idle] = [freshKey(), freshKey()];
      // Both rows' only reservation left the window long ago.
      await db!.sql("INSERT INTO svc_catalog.svc_rate_lease VALUES ($1, '{1}', '{1}', 1, 10, 1, 0), ($2, '{1}', '{1}', 1, 10, 1, 0)", [locked, idle]);
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM svc_catalog.svc_rate_lease WHERE key = $1 FOR UPDATE', [locked]);
      const outcome = await Promise.race([store.expire(60_000).then(() => 'done'), sleep(5000).then(() => 'blocked')]);
      expect(outcome).to.equal('done');
      const left = async () => (await db!.sql('SELECT key FROM svc_catalog.svc_rate_lease WHERE key = ANY($1)', [[locked, idle]])).rows.map((r) => r.key);
      expect(await left()).to.deep.equal([locked]);
      await holder.query('COMMIT');
      await store.expire(60_000);
      expect(await left()).to.deep.equal([]);
    } finally {
      await holder.end();
      await store.close();
    }
  });

  it('runs at most one debt per window: with the store unreachable, the next operation waits for it and fails', async () => {
    // Nothing listens on port 1: every reservation fails.
    const l = new RateLeases(new RedisRateStore('redis://127.0.0.1:1/0'), { windowMs: 60_000, freeOps: false });
    try {
      const key = freshKey();
      expect(l.take(key, 1000)).to.equal(true);
      // The next operation waits on the debt's reservation, which fails.
      const first = l.take(key, 1000);
      expect(first).to.be.an.instanceOf(Promise);
      expect(await Promise.resolve(first).then(() => 'answered', () => 'failed')).to.equal('failed');
      // No token, no reservation out, but a debt inside the window: no second one.
      const second = l.take(key, 1000);
      expect(second).to.be.an.instanceOf(Promise);
      const outcome = await Promise.resolve(second).then(
        (v) => `answered ${String(v)}`,
        () => 'failed',
      );
      expect(outcome).to.equal('failed');
    } finally {
      await l.close().catch(() => undefined);
    }
  });

  for (const which of ['Redis', 'PostgreSQL'] as const) {
    describe(`sharing ${which}`, () => {
      const open = (): RateStore => (which === 'Redis' ? new RedisRateStore(REDIS_URL) : new PgRateStore(db!.url));
      const opened: RateLeases[] = [];
      // Free operations off unless a test says otherwise: these tests follow a key's debt and
      // reservations from its first operation (free operations: rate-leases.test.ts).
      const leases = (store: RateStore, windowMs: number, backgroundDelayMs?: number, freeOps = false) => {
        const l = new RateLeases(store, { windowMs, backgroundDelayMs, freeOps });
        opened.push(l);
        return l;
      };
      afterEach(async () => {
        for (const l of opened.splice(0)) await l.close();
      });

      it("admits a cold key's first operation at once and reserves it in the background, with a lease", async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        // Synchronous: no promise, so the request does not wait for the store.
        expect(a.take(key, 1000)).to.equal(true);
        expect(store.calls).to.equal(0);
        expect(a.debt(key)).to.equal(1);
        await waitUntil(() => a.debt(key) === 0);
        expect(store.calls).to.equal(1);
        // The reservation paid the debt and leased tokens for the next operations.
        expect(store.granted).to.equal(1 + a.held(key));
        expect(a.held(key)).to.be.within(2, leaseCap(1000));
        for (let i = 0; i < a.held(key); i++) expect(a.take(key, 1000)).to.equal(true);
      });

      it('admits on debt again once the tokens expired and a window passed since the last debt, though the key was used since', async () => {
        const windowMs = 400;
        const store = new CountingStore(open());
        const a = leases(store, windowMs);
        const key = freshKey();
        const startedAt = performance.now();
        expect(a.take(key, 1000)).to.equal(true);
        await waitUntil(() => a.debt(key) === 0);
        // Used within the window, from the lease: the key is not idle for a window when it comes back.
        await sleep(0.75 * windowMs - (performance.now() - startedAt));
        expect(a.take(key, 1000)).to.equal(true);
        expect(store.calls).to.equal(1);
        await sleep(1.15 * windowMs - (performance.now() - startedAt));
        expect(a.held(key)).to.equal(0);
        // Its tokens expired and its debt is a window old: admitted at once, reserved in the background.
        expect(a.take(key, 1000)).to.equal(true);
        expect(a.debt(key)).to.equal(1);
        await waitUntil(() => a.debt(key) === 0);
        expect(store.calls).to.equal(2);
      });

      it('a key coming back after an idle spell leases for its last burst: a burst as large makes one round trip', async () => {
        const windowMs = 400;
        // The window is a minute compressed 150-fold: the hold-back of background reservations is
        // compressed with it (the default is most of this window).
        const holdBackMs = 50;
        const store = new CountingStore(open());
        const a = leases(store, windowMs, holdBackMs);
        const key = freshKey();
        const burst = async () => {
          const answers: boolean[] = [];
          for (let i = 0; i < 12; i++) answers.push(await a.take(key, 100_000));
          expect(answers.every(Boolean)).to.equal(true);
        };
        const startedAt = performance.now();
        await burst();
        await waitUntil(() => a.debt(key) === 0);
        await sleep(1.2 * windowMs - (performance.now() - startedAt));
        expect(a.held(key)).to.equal(0);
        const before = store.calls;
        // Averaged over the idle spell the key's rate would lease it the smallest size (2): the
        // burst would go to the store every few operations.
        await burst();
        await sleep(2 * holdBackMs);
        expect(store.calls - before).to.equal(1);
        expect(a.held(key)).to.be.at.least(1);
      });

      it('batches the background reservations of many cold keys into few round trips', async () => {
        const store = new CountingStore(open());
        // A longer hold-back than the default, so that a loaded machine's slow ticks still fall in one batch.
        const a = leases(store, 60_000, 200);
        const keys = Array.from({ length: 1200 }, freshKey);
        // Spread over several ticks, as requests arrive: each is answered at once.
        for (let i = 0; i < keys.length; i += 100) {
          for (const k of keys.slice(i, i + 100)) expect(a.take(k, 1000)).to.equal(true);
          await sleep(1);
        }
        await waitUntil(() => keys.every((k) => a.debt(k) === 0));
        expect(store.reservations).to.equal(keys.length);
        // 500 at most per round trip; without the hold-back each tick would be one (12).
        expect(store.calls).to.be.at.most(4);
      });

      it('a request waiting on a queued background reservation sends it at once', async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        expect(a.take(key, 40)).to.equal(true);
        const second = a.take(key, 40);
        expect(second).to.be.an.instanceOf(Promise);
        // Sent within this tick's microtasks, not after BACKGROUND_DELAY_MS.
        await Promise.resolve();
        await Promise.resolve();
        expect(store.calls).to.equal(1);
        expect(await second).to.equal(true);
        expect(BACKGROUND_DELAY_MS).to.be.above(0);
      });

      it('exact keys (under 40 a window) never run debt', async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        const first = a.take(key, 39);
        expect(first).to.be.an.instanceOf(Promise);
        expect(await first).to.equal(true);
        expect(a.debt(key)).to.equal(0);
      });

      it('a cold instance admits one operation over a full window: within the bound, then refuses', async () => {
        const max = 40;
        const storeB = new CountingStore(open());
        const a = leases(open(), 60_000);
        const b = leases(storeB, 60_000);
        const key = freshKey();
        let admittedA = 0;
        for (let i = 0; i < max + 10; i++) if (await a.take(key, max)) admittedA++;
        expect(admittedA).to.equal(max);
        // B has never seen the key: its first operation runs on debt, which the store then refuses.
        expect(b.take(key, max)).to.equal(true);
        expect(await b.take(key, max)).to.equal(false);
        expect(b.debt(key)).to.equal(0);
        expect(storeB.granted).to.equal(0);
        expect(admittedA + 1).to.be.at.most(max + 2 * leaseCap(max));
        // Refused from the cache now, and no second debt inside the window.
        for (let i = 0; i < 20; i++) expect(b.take(key, max)).to.equal(false);
      });

      // 40 a window: a cap of 2, debt and no free operation; 200: a cap of 10, one free operation a period.
      for (const max of [40, 200]) it(`two instances stay within max + 2 × cap over any window while many keys go cold and come back (${max} a window)`, async () => {
        const windowMs = 700;
        const keys = Array.from({ length: 40 }, freshKey);
        const a = leases(open(), windowMs, undefined, true);
        const b = leases(open(), windowMs, undefined, true);
        const admitted = new Map<string, number[]>(keys.map((k) => [k, []]));
        let onDebt = 0;
        const burst = async (ms: number) => {
          const deadline = performance.now() + ms;
          // Four clients per instance, each on random keys, as fast as the answers come.
          const client = async (l: RateLeases) => {
            while (performance.now() < deadline) {
              const key = keys[Math.floor(Math.random() * keys.length)]!;
              const answer = l.take(key, max);
              if (answer === true && l.debt(key) === 1 && l.held(key) === 0) onDebt++;
              if (await answer) admitted.get(key)!.push(performance.now());
              else await sleep(1);
            }
          };
          await Promise.all([a, a, a, a, b, b, b, b].map(client));
        };
        await burst(1.5 * windowMs);
        // Longer than a window without a request: every key is cold again on both instances.
        await sleep(1.3 * windowMs);
        await burst(1.5 * windowMs);
        const bound = max + 2 * leaseCap(max);
        for (const [key, times] of admitted) {
          // The stores keep whole milliseconds, so a span is measured 2 ms short of the window.
          expect(busiestWindow(times, windowMs - 2), key).to.be.at.most(bound);
        }
        // Debt was exercised: each key went cold twice on each instance (with free operations, a key
        // that used them reserves ahead, and its next operation waits for that instead).
        if (freeAllowance(leaseCap(max)) === 0) expect(onDebt).to.be.at.least(keys.length * 2);
        // And the limit was what bound the keys (the clients asked for far more).
        const total = [...admitted.values()].reduce((n, t) => n + t.length, 0);
        expect(total).to.be.at.least(keys.length * max);
      });

      it('forgets idle keys: the instance drops their leases, the store their counts', async () => {
        const windowMs = 300;
        const store = open();
        const a = leases(store, windowMs);
        const keys = Array.from({ length: 50 }, freshKey);
        for (const k of keys) expect(a.take(k, 1000)).to.equal(true);
        // The store forgets them once their reservations leave the window: Redis by the keys' TTL,
        // PostgreSQL by the instance's sweep deleting the rows.
        const redis = which === 'Redis' ? new Redis(REDIS_URL) : undefined;
        const stored = async (): Promise<number> =>
          redis ? redis.exists(...keys) : (await db!.sql('SELECT count(*)::int AS n FROM svc_catalog.svc_rate_lease WHERE key = ANY($1)', [keys])).rows[0].n;
        try {
          await waitUntil(() => keys.every((k) => a.debt(k) === 0));
          expect(a.tracked).to.equal(keys.length);
          expect(a.leased).to.equal(keys.length);
          expect(await stored()).to.equal(keys.length);
          // The sweep runs once a window and drops what was idle for a whole window, rows and all.
          await waitUntil(() => a.tracked === 0, 10 * windowMs);
          expect(a.leased).to.equal(0);
          let left = await stored();
          for (let i = 0; i < 20 && left !== 0; i++) {
            await sleep(windowMs / 2);
            left = await stored();
          }
          expect(left).to.equal(0);
        } finally {
          redis?.disconnect();
        }
      });
    });
  }
});
