/**
 * How often a key at a steady pace goes to the store. A lease covers about a window of the key's
 * traffic: its tokens expire a window after they were reserved, so a larger one would strand
 * tokens and a smaller one costs more round trips for the same traffic. With leases of half a
 * window, a per-user key making a few requests a minute past its free operations reserved about
 * twice a minute (0.23 reservations per operation at 9 operations a key and minute), each a row
 * written in the store and a promise, a queue entry and a share of a round trip in the engine;
 * with a window's worth, about once (0.09).
 *
 * The run is simulated (the leases' clock and an in-memory store timed by it), so that five minutes
 * of traffic take a second; what reaches the store is counted over the last two, once the keys'
 * rates are learnt.
 */
import { expect } from 'chai';
import { RateLeases } from '../../../plugins/limits/rate/leases.js';
import type { Grant, Reservation } from '../../../plugins/limits/rate/store.js';
import { ClockedWindowStore, seededRandom } from './rate-helpers.js';

const WINDOW_MS = 60_000;

interface Pace {
  keys: number;
  /** Operations per simulated second, each for a key drawn at random. */
  perSecond: number;
  minutes: number;
  max: number;
}

interface Counted {
  operations: number;
  reservations: number;
  tokens: number;
  refused: number;
  waited: number;
  /** The most tokens one reservation asked for. */
  largest: number;
}

/** Counts what the leases ask of the store over the last two simulated minutes. */
class CountedStore extends ClockedWindowStore {
  counting = false;
  reservations = 0;
  tokens = 0;
  largest = 0;
  override async reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]> {
    if (this.counting) {
      this.reservations += requests.length;
      for (const r of requests) {
        this.tokens += r.want;
        this.largest = Math.max(this.largest, r.want);
      }
    }
    return super.reserve(requests, windowMs);
  }
}

async function runAtPace(pace: Pace): Promise<Counted> {
  let now = 1_000;
  const store = new CountedStore(() => now);
  const leases = new RateLeases(store, { windowMs: WINDOW_MS, clock: () => now, backgroundDelayMs: 0 });
  const rnd = seededRandom(17);
  const step = 1000 / pace.perSecond;
  const total = Math.round(pace.minutes * 60 * pace.perSecond);
  const countFrom = total - 2 * 60 * pace.perSecond;
  // The store answers before the simulated clock passes a quarter of a second (a store far faster than the pace).
  const yieldEvery = Math.max(1, Math.round(pace.perSecond / 4));
  const counted: Counted = { operations: 0, reservations: 0, tokens: 0, refused: 0, waited: 0, largest: 0 };
  try {
    for (let i = 0; i < total; i++) {
      if (i === countFrom) store.counting = true;
      now += step;
      const taken = leases.take(`svc:lease:user:${Math.floor(rnd() * pace.keys)}`, pace.max);
      const admitted = typeof taken === 'boolean' ? taken : await taken;
      if (store.counting) {
        counted.operations++;
        if (typeof taken !== 'boolean') counted.waited++;
        if (!admitted) counted.refused++;
      }
      if (i % yieldEvery === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    await leases.close();
  }
  return { ...counted, reservations: store.reservations, tokens: store.tokens, largest: store.largest };
}

describe('rate-limit leases: how often a key at a steady pace reserves', function () {
  this.timeout(120_000);

  it('a per-user key a little past its free operations reserves about once a window, and strands few tokens', async () => {
    // 2,000 users at 300 operations a second: 9 a user and minute, one past the 8 free operations.
    const c = await runAtPace({ keys: 2_000, perSecond: 300, minutes: 5, max: 100_000_000 });
    expect(c.refused).to.equal(0);
    // Half-window leases made 0.23 reservations per operation here.
    expect(c.reservations / c.operations).to.be.below(0.13);
    // What is reserved is spent: no more tokens than operations.
    expect(c.tokens / c.operations).to.be.below(1.0);
    expect(c.waited / c.operations).to.be.below(0.001);
  });

  it('a busy key reserves about once in three quarters of a window', async () => {
    // One key at 50 operations a second: a lease of a window's traffic (3,000) refilled when a quarter is left.
    const c = await runAtPace({ keys: 1, perSecond: 50, minutes: 4, max: 100_000_000 });
    expect(c.refused).to.equal(0);
    expect(c.waited).to.equal(0);
    // In the two minutes counted, leases of half a window made 5 reservations; a window's lease makes 2 or 3.
    expect(c.reservations).to.be.within(2, 3);
    // Reserved ahead of need by at most one lease.
    expect(c.tokens).to.be.within(c.operations - 3_000, c.operations + 3_000);
  });

  it('a key near its limit still reserves no more than the cap allows at once', async () => {
    // 2,000 a minute (cap 100; less twice the 8 free operations and one for a debt: 83 held at most), at 30 a second.
    const c = await runAtPace({ keys: 1, perSecond: 30, minutes: 4, max: 2_000 });
    expect(c.refused).to.equal(0);
    // 3,600 operations in the two minutes, in leases of at most 83: at least 43 reservations.
    expect(c.reservations).to.be.at.least(43);
    expect(c.largest).to.be.at.most(83);
  });
});
