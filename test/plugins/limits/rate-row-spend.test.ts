/**
 * A leased key's token spent from its row (key-rows.ts `admitLeased`) must decide exactly as the
 * lease's own path: same answers, same tokens held, same reservations sent. The same seeded run
 * of operations (many keys, limits from exact to large, limit changes, idle spells past the
 * window so that batches expire) goes through the leases twice, once with the row's shortcut and
 * once with it switched off, and the two logs must be equal.
 *
 * The store here is an in-memory sliding window timed by the test's clock: both runs must see the
 * same grants at the same simulated times, which a real store, timed by its own clock, cannot
 * give. The real stores' behaviour is tested in rate-leases.test.ts.
 */
import { expect } from 'chai';
import { HEAD_EXPIRES, HEAD_LEFT, KeyRows } from '../../../plugins/limits/rate/key-rows.js';
import { RateLeases } from '../../../plugins/limits/rate/leases.js';
import type { Grant, RateStore, Reservation } from '../../../plugins/limits/rate/store.js';
import { ClockedWindowStore, seededRandom as random } from './rate-helpers.js';

const WINDOW_MS = 60_000;

const LIMITS = [5, 39, 40, 400, 2_000, 100_000, 100_000_000];
/** Limits the three hot keys reach, so that the store refuses them (free operations, a cap of 8 and more). */
const HOT_LIMITS = [160, 330, 640];

interface RunLog {
  log: string[];
  store: string[];
  fromRow: number;
  /** Of those, operations whose oldest batch was spent or expired: the next batch moved up in the row. */
  movedUp: number;
}

/** One step of a run: the clock moves on by `after` ms, then `burst` operations of `key`. */
interface Step {
  after: number;
  key: string;
  max: number;
  burst: number;
}

/** Busy keys, some refused by the store, limit changes, and idle spells past the window (batches expire). */
function* seededSteps(seed: number, steps: number): Generator<Step> {
  const rnd = random(seed);
  const keys = [
    ...HOT_LIMITS.map((max, i) => ({ key: `svc:lease:hot${i}`, max })),
    ...Array.from({ length: 9 }, (_, i) => ({ key: `svc:lease:k${i}`, max: LIMITS[i % LIMITS.length]! })),
  ];
  const allLimits = [...LIMITS, ...HOT_LIMITS];
  for (let step = 0; step < steps; step++) {
    const r = rnd();
    const after = r < 0.002 ? WINDOW_MS + rnd() * WINDOW_MS : rnd() * (r < 0.5 ? 5 : 400);
    const k = rnd() < 0.6 ? keys[Math.floor(rnd() * HOT_LIMITS.length)]! : keys[Math.floor(rnd() * keys.length)]!;
    if (rnd() < 0.004) k.max = allLimits[Math.floor(rnd() * allLimits.length)]!;
    yield { after, key: k.key, max: k.max, burst: 1 + Math.floor(rnd() * 4) };
  }
}

/**
 * A key with free operations (330 a window: two per period) that the store refuses: one operation
 * starts its period, two seconds later its window fills within a second, then one operation every
 * 50 ms across the start of its next period, which comes before the refusal ends (the window's
 * first reservation was made two seconds into the period). The new period's free operations must
 * wait for the refusal, as the lease's path does.
 */
function* refusedAcrossPeriods(): Generator<Step> {
  yield { after: 0, key: 'svc:lease:refused', max: 330, burst: 1 };
  yield { after: 2_000, key: 'svc:lease:refused', max: 330, burst: 1 };
  for (let i = 0; i < 200; i++) yield { after: 5, key: 'svc:lease:refused', max: 330, burst: 2 };
  yield { after: WINDOW_MS - 4_000, key: 'svc:lease:refused', max: 330, burst: 1 };
  for (let i = 0; i < 120; i++) yield { after: 50, key: 'svc:lease:refused', max: 330, burst: 1 };
}

async function run(steps: Iterable<Step>, rowSpend: boolean): Promise<RunLog> {
  let now = 1_000;
  const store = new ClockedWindowStore(() => now);
  const leases = new RateLeases(store, { windowMs: WINDOW_MS, clock: () => now, backgroundDelayMs: 0 });
  const original = KeyRows.prototype.admitLeased;
  let fromRow = 0;
  let movedUp = 0;
  KeyRows.prototype.admitLeased = function (this: KeyRows<unknown>, ...args: Parameters<typeof original>): boolean {
    if (!rowSpend) return false;
    const [at, time] = args;
    const headDone = this.data[at + HEAD_LEFT] === 0 || this.data[at + HEAD_EXPIRES]! <= time;
    const admitted = original.apply(this, args);
    if (admitted) fromRow++;
    // A free operation is admitted with no batch at all; one that spent a token moved the next up.
    if (admitted && headDone && this.data[at + HEAD_LEFT]! > 0) movedUp++;
    return admitted;
  };
  const log: string[] = [];
  try {
    let n = 0;
    for (const step of steps) {
      now += step.after;
      const waiting: Array<Promise<boolean>> = [];
      for (let i = 0; i < step.burst; i++) {
        const taken = leases.take(step.key, step.max);
        if (typeof taken === 'boolean') log.push(`${n}.${i} ${step.key} ${taken}`);
        else waiting.push(taken.then((ok) => (log.push(`${n}.${i} ${step.key} waited ${ok}`), ok)));
      }
      // Reservations answer before the clock moves on (a store far faster than the pace): a
      // background batch leaves on a timer of backgroundDelayMs (0 → 1 ms), which fires before
      // this one, set after it; then the store's answer and its handlers settle.
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(waiting);
      log.push(`${n} ${step.key} held ${leases.held(step.key)} debt ${leases.debt(step.key)}`);
      n++;
    }
  } finally {
    KeyRows.prototype.admitLeased = original;
    await leases.close();
  }
  return { log, store: store.log, fromRow, movedUp };
}

describe("rate-limit leases: an operation admitted from the key's row", function () {
  this.timeout(120_000);

  for (const seed of [1, 2, 3]) {
    it(`decides as the lease's own path over a seeded run (seed ${seed})`, async () => {
      const steps = 2_500;
      const withRow = await run(seededSteps(seed, steps), true);
      const without = await run(seededSteps(seed, steps), false);
      // The shortcut must have carried most operations, or the comparison shows nothing.
      expect(withRow.fromRow).to.be.greaterThan(steps);
      expect(withRow.movedUp).to.be.greaterThan(20);
      expect(without.fromRow).to.equal(0);
      // The store refused keys, some of them after waiting.
      expect(withRow.log.filter((line) => line.endsWith(' false')).length).to.be.greaterThan(10);
      expect(withRow.store).to.deep.equal(without.store);
      expect(withRow.log).to.deep.equal(without.log);
    });
  }

  it('keeps a refused key refused into its next period, free operations and all', async () => {
    const withRow = await run(refusedAcrossPeriods(), true);
    const without = await run(refusedAcrossPeriods(), false);
    expect(withRow.log.filter((line) => line.endsWith(' false')).length).to.be.greaterThan(20);
    expect(withRow.store).to.deep.equal(without.store);
    expect(withRow.log).to.deep.equal(without.log);
  });
});

/** A store that grants what the test scripts, reservation by reservation (each asks for all it wants when unscripted). */
class ScriptedStore implements RateStore {
  readonly asked: number[] = [];
  readonly script: Grant[] = [];

  reserve(requests: readonly Reservation[]): Promise<Grant[]> {
    return Promise.resolve(
      requests.map((r) => {
        this.asked.push(r.want);
        return this.script.shift() ?? { granted: r.want, retryMs: 0 };
      }),
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('rate-limit leases: a third batch of tokens', function () {
  it('is spent after the two in the row: none is lost when the second moves up', async () => {
    let now = 1_000;
    const store = new ScriptedStore();
    const leases = new RateLeases(store, { windowMs: WINDOW_MS, clock: () => now, backgroundDelayMs: 0, freeOps: false });
    const key = 'svc:lease:third';
    const max = 100_000;
    const settle = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      // On debt, then a first lease of 8, spent fast down to the prefetch, which asks for a lease
      // of a window at that pace and gets 100 tokens: the store refuses the rest for 10 ms.
      expect(leases.take(key, max)).to.equal(true);
      await settle();
      expect(leases.held(key)).to.equal(8);
      for (let i = 0; i < 6; i++) {
        now += 1;
        expect(leases.take(key, max)).to.equal(true);
      }
      store.script.push({ granted: 100, retryMs: 10 });
      await settle();
      expect(leases.held(key)).to.equal(2 + 100);
      // Two seconds later the pace has dropped: the next operation refills to a smaller lease
      // (a few hundred tokens, a quarter of which is under the 100 held in the second batch)
      // while two batches are held, so the grant is a third.
      now += 2_000;
      expect(leases.take(key, max)).to.equal(true);
      await settle();
      expect(store.asked.length).to.equal(3);
      const third = store.asked.at(-1)!;
      expect(third).to.be.within(50, 300);
      expect(leases.held(key)).to.equal(1 + 100 + third);
      // Every token held is spent without the store, the third batch's included.
      const held = leases.held(key);
      for (let i = 0; i < held; i++) {
        now += 1;
        expect(leases.take(key, max), `operation ${i} of ${held}`).to.equal(true);
      }
      expect(leases.debt(key)).to.equal(0);
    } finally {
      await leases.close();
    }
  });
});
