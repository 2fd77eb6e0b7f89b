/**
 * Local token leases of the rate limit (plugins/limits/rate/leases.ts) against the real stores
 * (Redis on this machine, and a PostgreSQL database standing in for the metadata database), with
 * a short window so that a test sees several: the stores' reservations are exact; two instances
 * sharing a store never admit more than the limit plus the documented slack (each instance's cap
 * of floor(max / 20)) over any window-long span; low limits stay exact; most operations make no
 * round trip; a lowered limit cuts held leases; a refusal is cached until a token can free.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { BACKGROUND_DELAY_MS, freeAllowance, leaseCap, RateLeases } from '../../../plugins/limits/rate/leases.js';
import { PgRateStore } from '../../../plugins/limits/rate/pg-store.js';
import { RedisRateStore } from '../../../plugins/limits/rate/redis-store.js';
import type { RateStore } from '../../../plugins/limits/rate/store.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { counterKeyFor } from '../../../plugins/limits/rate/counter-key.js';
import { makeSession } from '../../../core/auth/session.js';
import { busiestWindow, CountingStore, freshKey, sleep, waitUntil } from './rate-helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379/0';

const stores: Array<{ name: string; open: () => RateStore }> = [];
let db: TestDatabase | undefined;

describe('rate-limit token leases', function () {
  this.timeout(60_000);
  before(async () => {
    db = await createTestDatabase('limits2_rate_leases', 'CREATE SCHEMA svc_catalog');
    stores.length = 0;
    stores.push({ name: 'Redis', open: () => new RedisRateStore(REDIS_URL) }, { name: 'PostgreSQL', open: () => new PgRateStore(db!.url) });
  });
  after(() => db?.drop());

  it('sizes the cap at 5% of the limit, and 1 (exact) below 40', () => {
    expect([5, 39, 40, 100, 1000, 0].map(leaseCap)).to.deep.equal([1, 1, 2, 5, 50, 1]);
  });

  it('gives light keys an eighth of the cap as free operations per period (at most a quarter in any window), at most 8, none under a cap of 8', () => {
    expect([1, 2, 4, 7, 8, 32, 50, 64, 5_000_000].map(freeAllowance)).to.deep.equal([0, 0, 0, 0, 1, 4, 6, 8, 8]);
  });

  for (const which of ['Redis', 'PostgreSQL']) {
    describe(`sharing ${which}`, () => {
      const open = () => stores.find((s) => s.name === which)!.open();
      const opened: RateLeases[] = [];
      const leases = (store: RateStore, windowMs: number, freeOps = true) => {
        const l = new RateLeases(store, { windowMs, freeOps });
        opened.push(l);
        return l;
      };
      afterEach(async () => {
        for (const l of opened.splice(0)) await l.close();
      });

      it('the store grants what the window has left and says when a token frees, for a batch of keys', async () => {
        const store = open();
        const [k1, k2, k3] = [freshKey(), freshKey(), freshKey()];
        try {
          const first = await store.reserve([{ key: k1, want: 3, max: 5 }, { key: k2, want: 7, max: 5 }, { key: k3, want: 1, max: 0 }], 2000);
          expect(first.map((g) => g.granted)).to.deep.equal([3, 5, 0]);
          const [partial, none] = await store.reserve([{ key: k1, want: 3, max: 5 }, { key: k2, want: 1, max: 5 }], 2000);
          expect(partial!.granted).to.equal(2);
          expect(partial!.retryMs).to.be.within(1000, 2000);
          expect(none!.granted).to.equal(0);
          // A raised limit counts the reservations already in the window.
          expect((await store.reserve([{ key: k2, want: 10, max: 8 }], 2000))[0]!.granted).to.equal(3);
          // Reservations that left the window no longer count, whether or not the key was trimmed since.
          const k4 = freshKey();
          expect((await store.reserve([{ key: k4, want: 5, max: 5 }], 300))[0]!.granted).to.equal(5);
          await sleep(150);
          expect((await store.reserve([{ key: k4, want: 1, max: 5 }], 300))[0]!.granted).to.equal(0);
          await sleep(200);
          const [later] = await store.reserve([{ key: k4, want: 5, max: 5 }], 300);
          expect(later!.granted).to.equal(5);
          expect(later!.retryMs).to.equal(300);
          if (which === 'Redis') {
            // The members that left the window were removed when the key was next reserved.
            const redis = new Redis(REDIS_URL);
            try {
              expect(await redis.zcard(k4)).to.equal(1);
            } finally {
              redis.disconnect();
            }
          }
        } finally {
          await store.close();
        }
      });

      it('a low limit (5 a window) stays exact across two instances, concurrent or not', async () => {
        const key = freshKey();
        const a = leases(open(), 60_000);
        const b = leases(open(), 60_000);
        const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take(key, 5)));
        expect(burst.filter(Boolean)).to.have.length(5);
        expect(a.held(key) + b.held(key)).to.equal(0);
        const key2 = freshKey();
        const outcomes: boolean[] = [];
        for (let i = 0; i < 8; i++) outcomes.push(await (i % 2 ? a : b).take(key2, 5));
        expect(outcomes).to.deep.equal([true, true, true, true, true, false, false, false]);
      });

      it('two instances never admit more than the limit plus their caps in any window, with few round trips', async () => {
        const windowMs = 1500;
        const max = 400;
        const key = freshKey();
        const storeA = new CountingStore(open());
        const storeB = new CountingStore(open());
        const a = leases(storeA, windowMs);
        const b = leases(storeB, windowMs);
        const admitted: number[] = [];
        let asked = 0;
        const deadline = performance.now() + 3.5 * windowMs;
        // Four clients per instance, each asking as fast as its answers come, for three windows and a half.
        const client = async (l: RateLeases) => {
          while (performance.now() < deadline) {
            asked++;
            if (await l.take(key, max)) admitted.push(performance.now());
            else await sleep(1);
          }
        };
        await Promise.all([a, a, a, a, b, b, b, b].map(client));
        const slack = 2 * leaseCap(max);
        // The stores keep whole milliseconds, so a span is measured 2 ms short of the window.
        expect(busiestWindow(admitted, windowMs - 2)).to.be.at.most(max + slack);
        // The limit was reached (the leases do not starve the clients), and was the binding constraint.
        expect(admitted.length).to.be.at.least(2 * max);
        expect(asked).to.be.above(admitted.length);
        expect(storeA.calls + storeB.calls).to.be.below(admitted.length / 5);
      });

      it('serves a busy key from the lease: one round trip for many operations', async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        let ok = 0;
        for (let i = 0; i < 3000; i++) if (await a.take(key, 1_000_000)) ok++;
        expect(ok).to.equal(3000);
        expect(store.calls).to.be.below(3000 / 20);
        expect(a.held(key)).to.be.at.most(leaseCap(1_000_000));
      });

      it('batches the refills of many cold keys into few round trips', async () => {
        const store = new CountingStore(open());
        // Without free operations each key's first one reserves (with them, below, none does).
        const a = leases(store, 60_000, false);
        const keys = Array.from({ length: 300 }, freshKey);
        // Cold keys are admitted at once (rate-debt.test.ts); their reservations follow in the background.
        const answers = await Promise.all(keys.map((k) => a.take(k, 1000)));
        expect(answers.every(Boolean)).to.equal(true);
        await waitUntil(() => store.reservations === 300 && keys.every((k) => a.debt(k) === 0));
        expect(store.calls).to.be.at.most(3);
        // Each key's lease now holds tokens for its next operations.
        expect(keys.every((k) => a.held(k) > 0)).to.equal(true);
      });

      it("a light key's first operations are free: no round trip until it used its allowance, then a lease ahead of need", async () => {
        const windowMs = 500;
        const max = 2000;
        const allowance = freeAllowance(leaseCap(max));
        expect(allowance).to.equal(8);
        const store = new CountingStore(open());
        const a = leases(store, windowMs);
        const [light, busy] = [freshKey(), freshKey()];
        const startedAt = performance.now();
        for (let i = 0; i < allowance - 1; i++) expect(a.take(light, max)).to.equal(true);
        // Past the hold-back of background reservations (a sixtieth of this window) several times over.
        await sleep(Math.min(2 * BACKGROUND_DELAY_MS, windowMs / 5));
        // Seven operations, all answered at once, and the store never asked.
        expect(store.calls).to.equal(0);
        expect(a.debt(light)).to.equal(0);
        // The eighth uses the allowance up: the key is not light, its lease is reserved in the background.
        for (let i = 0; i < allowance; i++) expect(a.take(busy, max)).to.equal(true);
        await waitUntil(() => a.held(busy) > 0);
        expect(store.calls).to.equal(1);
        expect(store.reservations).to.equal(1);
        expect(a.take(busy, max)).to.equal(true);
        // A window later the light key's allowance is whole again.
        await sleep(windowMs + 20 - (performance.now() - startedAt));
        for (let i = 0; i < allowance - 1; i++) expect(a.take(light, max)).to.equal(true);
        expect(store.calls).to.equal(1);
      });

      it("admits the operation after a key's free ones at once, on debt the lease their end reserved pays", async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        const max = 2000;
        for (let i = 0; i < freeAllowance(leaseCap(max)); i++) expect(a.take(key, max)).to.equal(true);
        // No token is back yet (the reservation has not even left): the ninth runs on debt, not after a round trip.
        expect(a.take(key, max)).to.equal(true);
        expect(a.debt(key)).to.equal(1);
        // One debt a window: the tenth waits for the lease, which pays the debt first.
        const tenth = a.take(key, max);
        expect(tenth).to.be.instanceOf(Promise);
        expect(await tenth).to.equal(true);
        expect(a.debt(key)).to.equal(0);
        expect(store.calls).to.equal(1);
        expect(a.held(key)).to.equal(store.granted - 2);
      });

      it("counts a scope's keys by their part alone, and reserves them under the store key every instance builds", async () => {
        const reserved: string[] = [];
        const store = new (class extends CountingStore {
          override reserve(requests: Parameters<RateStore['reserve']>[0], windowMs: number) {
            reserved.push(...requests.map((r) => r.key));
            return super.reserve(requests, windowMs);
          }
        })(open());
        const a = leases(store, 60_000);
        const role = freshKey();
        const key = counterKeyFor(role, ['x-svc-user-id']);
        const scope = a.scope(key);
        // The same limit in the next snapshot (its counter key built again) counts in the same scope.
        expect(a.scope(counterKeyFor(role, ['X-Svc-User-Id']))).to.equal(scope);
        expect(a.scope(counterKeyFor(role, 'IP'))).to.not.equal(scope);
        const max = 2000;
        const part = (user: string) => key.part(makeSession(role, { 'x-svc-user-id': user }), '10.0.0.1');
        for (let i = 0; i < freeAllowance(leaseCap(max)); i++) expect(a.takeIn(scope, part('alice "a"'), max)).to.equal(true);
        expect(a.takeIn(scope, part('bob'), max)).to.equal(true);
        expect(a.tracked).to.equal(2);
        // Alice used her allowance up: her lease is reserved under the full key text; Bob is still
        // light, with no row of his own.
        expect(a.leased).to.equal(1);
        await waitUntil(() => store.calls === 1);
        expect(reserved).to.deep.equal([`svc:lease:${JSON.stringify([role, 'alice "a"'])}`]);
      });

      it('a lowered limit cuts the lease at once: 1000 then 5 a window is exact again', async () => {
        const store = new CountingStore(open());
        const a = leases(store, 60_000);
        const key = freshKey();
        for (let i = 0; i < 50; i++) expect(await a.take(key, 1000)).to.equal(true);
        expect(a.held(key)).to.be.above(0);
        // The window already holds more than 5 reservations: nothing more may pass.
        expect(await a.take(key, 5)).to.equal(false);
        expect(a.held(key)).to.equal(0);
      });

      it('caches a refusal until a token can free, then admits again', async () => {
        const store = new CountingStore(open());
        const a = leases(store, 1000);
        const key = freshKey();
        for (let i = 0; i < 3; i++) expect(await a.take(key, 3)).to.equal(true);
        expect(await a.take(key, 3)).to.equal(false);
        const calls = store.calls;
        for (let i = 0; i < 100; i++) expect(a.take(key, 3)).to.equal(false);
        expect(store.calls).to.equal(calls);
        await sleep(1100);
        expect(await a.take(key, 3)).to.equal(true);
      });
    });
  }
});
