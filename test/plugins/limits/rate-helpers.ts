/**
 * Shared by the rate-limit lease tests (rate-leases, rate-debt): a store wrapper that counts what
 * reaches the real store, fresh keys, and the sliding-window measure the documented bounds are
 * checked against.
 */
import { randomBytes } from 'node:crypto';
import type { Grant, RateStore, Reservation } from '../../../plugins/limits/rate/store.js';

/**
 * Counts the round trips, reservations and granted tokens that reach the real store underneath.
 * It has no `expire` of its own, so the leases never sweep through it; a test that wants the sweep
 * passes through to the inner store (see CountingExpiringStore).
 */
export class CountingStore implements RateStore {
  calls = 0;
  reservations = 0;
  granted = 0;
  constructor(protected readonly inner: RateStore) {}
  async reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]> {
    this.calls++;
    this.reservations += requests.length;
    const grants = await this.inner.reserve(requests, windowMs);
    for (const g of grants) this.granted += g.granted;
    return grants;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A CountingStore that also passes the leases' idle-key sweep through to the real store. */
export class CountingExpiringStore extends CountingStore {
  expire(windowMs: number): Promise<void> {
    return this.inner.expire?.(windowMs) ?? Promise.resolve();
  }
}

export const freshKey = () => `svc:lease:test:${randomBytes(6).toString('hex')}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(done: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the background reservations');
    await sleep(5);
  }
}

/** The most admissions inside any span of `windowMs` (sliding over the admission times). */
export function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/**
 * An in-memory sliding window timed by the test's clock, for runs on a simulated clock (a real
 * store is timed by its own clock, which a simulated one cannot follow). The real stores'
 * behaviour is tested in rate-leases.test.ts.
 */
export class ClockedWindowStore implements RateStore {
  readonly log: string[] = [];
  private readonly windows = new Map<string, Array<{ at: number; n: number }>>();
  constructor(private readonly clock: () => number) {}
  async reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]> {
    const now = this.clock();
    return requests.map((r) => {
      const live = (this.windows.get(r.key) ?? []).filter((e) => e.at > now - windowMs);
      const used = live.reduce((a, e) => a + e.n, 0);
      const granted = Math.max(0, Math.min(r.want, r.max - used));
      if (granted > 0) live.push({ at: now, n: granted });
      this.windows.set(r.key, live);
      this.log.push(`${now} ${r.key} want ${r.want} max ${r.max} granted ${granted}`);
      return { granted, retryMs: live.length > 0 ? live[0]!.at + windowMs - now : windowMs };
    });
  }
  async close(): Promise<void> {}
}

/** A small seeded generator (mulberry32), so that both runs get the same operations. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
