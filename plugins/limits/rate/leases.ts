/**
 * Local token leases in front of the shared rate-limit store. Asking the store for every
 * operation costs a round trip per request (Redis or PostgreSQL), which on a sub-millisecond
 * query is most of its cost. Instead each engine instance reserves a batch of tokens for a key at
 * once and spends them locally; only a refill goes to the store, ahead of need, so most requests
 * never wait for it.
 *
 * The bound (docs/api.md "Rate limits across instances"): the store never lets the reservations
 * of one window exceed the limit, and an instance admits few operations that no reservation inside
 * the span covers. So over any window-long span the operations admitted for a key, across all
 * instances, are at most the limit plus `leaseCap(max)` = floor(max / 20) (5% of the limit) per
 * instance, plus one per request waiting for a token at the span's start. The cap is shared out:
 *
 * - *Free operations.* A light key (cap ≥ 8) is admitted up to `freeAllowance(cap)` =
 *   min(8, cap / 8) operations per period with no reservation at all. Most keys of a limit per user
 *   are seen a few times a minute: a store write for each of them, every window, would be most of
 *   what the limit costs. A key's periods are window-long and start at its first operation after
 *   the last one ended, so a window-long span meets at most two of them: at most twice the
 *   allowance, a quarter of the cap, goes uncounted in any span. Two counters in the key's index
 *   slot say it (part-index.ts: 64 bytes per key, no object; a light key has nothing else). A key
 *   that uses its whole allowance gets a lease object, reserved at once in the background, so its
 *   next operations spend tokens.
 * - *Debt.* A leased key (cap ≥ 2) that holds no token and no free operation left, with no
 *   request waiting, is admitted at once, at most once per window: with no reservation out, its
 *   reservation (the debt plus a lease) goes to the store in the background; with one out (the
 *   prefetch a key sends when its allowance runs out, or when its lease runs low), that one pays
 *   it. The first tokens back pay the debt. A refused debt is forgiven (the operation already
 *   ran), and the key is refused until its window frees. (A key seen again within a window of its last debt, its tokens expired and its free
 *   operations spent, waits for a reservation.)
 * - *Leases.* Leased keys hold at most cap − 1 − twice the allowance (held and in flight), so that in
 *   any span an instance's uncovered operations (tokens held or in flight when the span began, free
 *   operations, one debt) are at most cap. Within that the lease size follows the instance's own
 *   request rate for the key: about a window of its traffic, at least 2. Tokens expire a window
 *   after their reservation, so a larger lease would only strand tokens, and a smaller one costs
 *   more round trips for the same traffic (half a window of it made a per-user key a little past
 *   its free operations reserve twice a minute instead of once: rate-lease-size.test.ts). A key
 *   coming back after an idle spell leases half as much again as it made in its last window-long
 *   period, since its rate averaged over the idle time says little about its next burst. A token
 *   is spent only while its reservation is still inside the store's window (it expires `windowMs`
 *   after the reservation was sent), and a lease that the limit's new value no longer allows is
 *   cut down at once.
 *
 * Limits under 40 a window give a cap of 1: such a key is exact (no free operation, no debt), with
 * a token reserved only for a request that is waiting for it.
 *
 * Reservations nobody waits for (debts and prefetches) wait up to BACKGROUND_DELAY_MS for others
 * to join them, so that many cold keys share one round trip; a request that does wait sends its
 * batch at once, and hurries a background one its key is queued in.
 */
import type { CounterKey, KeyPart } from './counter-key.js';
import { DENIED_UNTIL, FREE_CAP, HEAD_EXPIRES, HEAD_LEFT, HELD, KeyRows, LAST_USED, MAX, NEXT_EXPIRES, NEXT_LEFT, PREVIOUS_OPS, SPEND_ABOVE, SPENT, takeFreeIn } from './key-rows.js';
import { PartIndex, rowOf, setRow } from './part-index.js';
import type { Grant, RateStore, Reservation } from './store.js';

/** One instance holds at most 1/LEASE_DIVISOR of a limit unspent. */
export const LEASE_DIVISOR = 20;

/**
 * Refills wait while one batch is at the store, then go together: a refill a request waits for
 * leaves at the end of its tick, the others are held back a little (below); busy (many cold keys
 * at a time), one round trip serves many keys.
 */
const MAX_BATCH = 500;

/**
 * How long a reservation nobody waits for is held back for others to join its batch. A round trip
 * costs far more than a key's share of it (a PostgreSQL reservation statement: about 0.4 ms of the
 * database, plus 5-10 µs per key), and a limit per user spreads over many keys at a few
 * reservations a second each. The engine's side of a trip is 0.18 ms of CPU in a loop, but about
 * 1.3 ms plus 10 µs a key in a process that does other work between trips, as a server does (its
 * code and data are cold each time: `npm run bench:rate-trips`, docs/performance.md "The second
 * batch in the row, and fewer round trips"); with 10,000 users a trip left every 250 ms. A debt
 * or a prefetch loses nothing by leaving later: the bound counts them either way, a lease is
 * refilled while a quarter of it is left (seconds of a key's traffic), and a request that waits
 * hurries its batch. By default at most a sixtieth of the window (`RateLeases`), since tokens
 * expire a window after they were asked for.
 */
export const BACKGROUND_DELAY_MS = 1000;

interface Queued extends Reservation {
  /** A request is waiting for it: the batch goes at once. */
  urgent: boolean;
  resolve(grant: Grant): void;
  reject(e: unknown): void;
}

/** The most operations a light key is admitted per window with no reservation (see the header). */
export const MAX_FREE = 8;

/** Operations an instance admits for a key per period with no reservation, under a cap of `cap`. */
export function freeAllowance(cap: number): number {
  return Math.min(MAX_FREE, Math.floor(cap / 8));
}

/** A new key's first lease (before its rate is known), and the smallest lease of a key that is not exact. */
const INITIAL_SIZE = 8;
const MIN_SIZE = 2;

/** Tokens one instance may hold unspent for a limit of `max` per window; 1 means exact (no lease). */
export function leaseCap(max: number): number {
  return Math.max(1, Math.floor(max / LEASE_DIVISOR));
}

interface Batch {
  left: number;
  /** Local time after which these tokens may no longer be spent (their reservation left the window). */
  expiresAt: number;
}

/** Shared by every lease with no batch after its two oldest; never written (a lease gets its own list when it needs one). */
const NO_BATCHES: Batch[] = [];

/**
 * A leased key's tokens are batches, one per reservation, spent oldest first. The two oldest live
 * in the key's row (key-rows.ts: HEAD_LEFT and HEAD_EXPIRES, NEXT_LEFT and NEXT_EXPIRES, with
 * HELD the count of all), so that a request spending from them touches the row alone; `later`
 * holds the ones after those, rarely any, in the order they expire. The next batch is empty
 * (NEXT_LEFT 0) only when `later` is too.
 */
class Lease {
  /** The batches after the two oldest (which are in the row); NO_BATCHES when there are none. */
  later: Batch[] = NO_BATCHES;
  max = -1;
  cap = 1;
  /**
   * Tokens the lease may hold or have in flight: cap − 1 − twice the free allowance for leased
   * keys, so that a debt and the free operations fit in the cap (see the header).
   */
  hold = 1;
  /** When the last operation on debt was admitted: at most one per window. */
  lastDebtAt = Number.NEGATIVE_INFINITY;
  /** The batch the next refill aims to hold. */
  size = INITIAL_SIZE;
  /** Requests waiting for a token. */
  waiting = 0;
  /** Operations admitted before their reservation came back (0 or 1), paid by the next grant. */
  debt = 0;
  /** The queued reservation of `pending` while it still waits for its batch to leave (hurried when a request waits). */
  queued: Queued | undefined;
  pending: Promise<void> | undefined;
  /** The smoothed rate (tokens per ms) of the tokens spent between refills (`spent`). */
  rate = 0;
  /** Whether a refill was sent: the first one has no rate to go by and asks for the initial size. */
  measured = false;
  measuredSince = 0;
  lastRefillAt: number;

  /**
   * `key`: the store key; `at`: the key's row in `rows`, which keeps its periods and free
   * operations (key-rows.ts).
   */
  constructor(
    readonly key: string,
    readonly rows: KeyRows<Lease>,
    readonly at: number,
    now: number,
  ) {
    this.lastRefillAt = now;
  }

  /** Until when the store refused the key (kept in the row, which admits nothing from it before). */
  get deniedUntil(): number {
    return this.rows.data[this.at + DENIED_UNTIL]!;
  }

  set deniedUntil(until: number) {
    this.rows.data[this.at + DENIED_UNTIL] = until;
  }

  /** Tokens spent since the last refill (kept in the row, which a spend from the row counts in). */
  get spent(): number {
    return this.rows.data[this.at + SPENT]!;
  }

  set spent(n: number) {
    this.rows.data[this.at + SPENT] = n;
  }

  tokens(now: number): number {
    const d = this.rows.data;
    const at = this.at;
    let n = d[at + HEAD_EXPIRES]! > now ? d[at + HEAD_LEFT]! : 0;
    if (d[at + NEXT_EXPIRES]! > now) n += d[at + NEXT_LEFT]!;
    for (const b of this.later) if (b.expiresAt > now) n += b.left;
    return n;
  }

  spend(now: number): boolean {
    const d = this.rows.data;
    const at = this.at;
    for (;;) {
      if (d[at + HEAD_LEFT]! > 0 && d[at + HEAD_EXPIRES]! > now) {
        d[at + HEAD_LEFT]--;
        d[at + HELD]--;
        d[at + SPENT]++;
        return true;
      }
      // The oldest batch is spent or expired: the next one takes its place.
      d[at + HELD] -= d[at + HEAD_LEFT]!;
      d[at + HEAD_LEFT] = 0;
      if (d[at + NEXT_LEFT] === 0) return false;
      d[at + HEAD_LEFT] = d[at + NEXT_LEFT]!;
      d[at + HEAD_EXPIRES] = d[at + NEXT_EXPIRES]!;
      const after = this.later.shift();
      d[at + NEXT_LEFT] = after?.left ?? 0;
      d[at + NEXT_EXPIRES] = after?.expiresAt ?? Number.NEGATIVE_INFINITY;
      if (this.later.length === 0) this.later = NO_BATCHES;
    }
  }

  /** A grant's tokens, after every batch held (they expire last). */
  add(left: number, expiresAt: number): void {
    const d = this.rows.data;
    const at = this.at;
    d[at + HELD] += left;
    if (d[at + HEAD_LEFT] === 0 && d[at + NEXT_LEFT] === 0) {
      d[at + HEAD_LEFT] = left;
      d[at + HEAD_EXPIRES] = expiresAt;
    } else if (d[at + NEXT_LEFT] === 0) {
      d[at + NEXT_LEFT] = left;
      d[at + NEXT_EXPIRES] = expiresAt;
    } else {
      if (this.later === NO_BATCHES) this.later = [];
      this.later.push({ left, expiresAt });
    }
  }

  /** The lease's size, cap or refill changed: what a spend from the row must leave (see SPEND_ABOVE). */
  resized(): void {
    // Exact keys never prefetch, nor does a lease with a refill out: any token held may be spent.
    this.rows.data[this.at + SPEND_ABOVE] = this.cap > 1 && this.pending === undefined ? Math.max(1, Math.floor(this.size / 4)) : -1;
  }

  /** A new value of the limit: a cached refusal no longer holds, and the lease shrinks to the new cap. */
  retune(max: number, now: number, freeOps: boolean): void {
    this.max = max;
    this.cap = leaseCap(max);
    const freeCap = freeOps ? freeAllowance(this.cap) : 0;
    this.rows.data[this.at + MAX] = max;
    this.rows.data[this.at + FREE_CAP] = freeCap;
    this.hold = this.cap > 1 ? this.cap - 1 - 2 * freeCap : 1;
    this.deniedUntil = 0;
    this.size = Math.min(Math.max(this.size, INITIAL_SIZE), this.hold);
    this.resized();
    let keep = this.cap > 1 ? this.hold : 0;
    const d = this.rows.data;
    const held: Batch[] = [
      { left: d[this.at + HEAD_LEFT]!, expiresAt: d[this.at + HEAD_EXPIRES]! },
      { left: d[this.at + NEXT_LEFT]!, expiresAt: d[this.at + NEXT_EXPIRES]! },
      ...this.later,
    ];
    d[this.at + HEAD_LEFT] = 0;
    d[this.at + NEXT_LEFT] = 0;
    d[this.at + HELD] = 0;
    this.later = NO_BATCHES;
    for (const b of held) {
      if (b.left === 0 || b.expiresAt <= now || keep === 0) continue;
      const left = Math.min(b.left, keep);
      keep -= left;
      this.add(left, b.expiresAt);
    }
  }
}

/**
 * The keys of one scope (a role's limit: counter-key.ts), by their part: a light key's state is its
 * index slot, a leased key's slot points at its row in the table.
 */
export class LeaseScope {
  readonly keys = new PartIndex();
  /** The limit `freeCap` was worked out for. */
  private max = -1;
  private freeCap = 0;

  constructor(readonly key: Pick<CounterKey, 'text'>) {}

  /** A light key's free operations per period under a limit of `max` (none when `freeOps` is off). */
  freeCapFor(max: number, freeOps: boolean): number {
    if (max !== this.max) {
      this.max = max;
      this.freeCap = freeOps ? freeAllowance(leaseCap(max)) : 0;
    }
    return this.freeCap;
  }
}

/** The scope of `take(key)`: the part is the store key itself. */
const RAW_KEY: Pick<CounterKey, 'text'> = { text: (key) => key ?? '' };

export interface LeaseOptions {
  windowMs: number;
  /** Local monotonic clock in ms (tests pass their own). */
  clock?: () => number;
  /** How long reservations nobody waits for are held back for others (default: BACKGROUND_DELAY_MS, at most a sixtieth of the window). */
  backgroundDelayMs?: number;
  /**
   * Whether light keys get their free operations (default true); tests of the reservation paths
   * (debt, leases) turn them off to see those paths from a key's first operation.
   */
  freeOps?: boolean;
}

export class RateLeases {
  private readonly rows = new KeyRows<Lease>();
  /** Scopes are never dropped: a role's limit keeps its scope object, and there are few. */
  private readonly scopes = new Map<string, LeaseScope>();
  private readonly raw = new LeaseScope(RAW_KEY);
  private readonly windowMs: number;
  /** How far back the rate a lease is sized by looks: recent traffic weighs most after half a window. */
  private readonly rateHorizonMs: number;
  private readonly clock: () => number;
  private readonly backgroundDelayMs: number;
  private readonly freeOps: boolean;
  private readonly sweeper: NodeJS.Timeout;
  private queue: Queued[] = [];
  private sending = false;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;

  constructor(
    private readonly store: RateStore,
    options: LeaseOptions,
  ) {
    this.windowMs = options.windowMs;
    this.rateHorizonMs = Math.max(1, options.windowMs / 2);
    this.clock = options.clock ?? (() => performance.now());
    // A window shorter than a minute (tests) holds reservations back for as large a share of it.
    this.backgroundDelayMs = options.backgroundDelayMs ?? Math.min(BACKGROUND_DELAY_MS, options.windowMs / 60);
    this.freeOps = options.freeOps ?? true;
    this.sweeper = setInterval(() => this.sweep(), this.windowMs);
    this.sweeper.unref();
  }

  /** The scope a counter key's requests are counted in (one per role and limit; kept by the caller). */
  scope(key: CounterKey): LeaseScope {
    let scope = this.scopes.get(key.scope);
    if (scope === undefined) {
      scope = new LeaseScope(key);
      this.scopes.set(key.scope, scope);
    }
    return scope;
  }

  /**
   * Takes a token for the store key `key` under a limit of `max` per window: synchronously when
   * the lease holds one (or a refusal is cached), else after a refill. Rejects when the store
   * cannot be reached.
   */
  take(key: string, max: number): boolean | Promise<boolean> {
    return this.takeIn(this.raw, key, max);
  }

  /** `take` for the key of `part` in `scope` (its store key is built only if it goes to the store). */
  takeIn(scope: LeaseScope, part: KeyPart, max: number): boolean | Promise<boolean> {
    const now = this.clock();
    const index = scope.keys;
    const slot = index.slotOf(part);
    const slots = index.slots;
    const at = rowOf(slots, slot);
    if (at >= 0) {
      // Most requests of a leased key: a token of its oldest batch, or a free operation, from the row.
      if (this.rows.admitLeased(at, now, max, this.windowMs)) return true;
      return this.takeLeased(this.rows.leaseAt(at)!, now, max);
    }
    // A light key: its slot is all it has (part-index.ts), while its free operations last.
    slots[slot + LAST_USED] = now;
    const usedUp = takeFreeIn(slots, slot, scope.freeCapFor(max, this.freeOps), now, this.windowMs);
    if (usedUp === false) return true;
    const row = this.rows.alloc(slots, slot);
    setRow(slots, slot, row);
    const lease = new Lease(scope.key.text(part), this.rows, row, now);
    lease.retune(max, now, this.freeOps);
    this.rows.setLease(row, lease);
    if (usedUp === undefined) return this.takeLeased(lease, now, max);
    // A key that used its whole allowance is not light: its lease is reserved now, ahead of need.
    this.prefetch(lease, now);
    return true;
  }

  private takeLeased(lease: Lease, now: number, max: number): boolean | Promise<boolean> {
    const rows = this.rows;
    if (lease.max !== max) lease.retune(max, now, this.freeOps);
    rows.data[lease.at + LAST_USED] = now;
    if (lease.spend(now)) {
      rows.count(lease.at, now, this.windowMs);
      this.prefetch(lease, now);
      return true;
    }
    if (now < lease.deniedUntil) return false;
    const usedUp = rows.takeFree(lease.at, now, this.windowMs);
    if (usedUp !== undefined) {
      lease.spent++;
      if (usedUp) this.prefetch(lease, now);
      return true;
    }
    if (lease.cap > 1 && lease.waiting === 0 && lease.debt === 0 && now - lease.lastDebtAt >= this.windowMs) {
      if (lease.pending === undefined) this.admitOnDebt(lease, now);
      else this.owe(lease, now);
      return true;
    }
    return this.wait(lease);
  }

  /** Tokens the instance holds unspent for the store key `key` (for tests and the bound's checks). */
  held(key: string): number {
    return this.leaseOf(key)?.tokens(this.clock()) ?? 0;
  }

  /** Operations admitted for the store key `key` whose reservation has not come back yet (for tests). */
  debt(key: string): number {
    return this.leaseOf(key)?.debt ?? 0;
  }

  /** Keys the instance keeps state for (idle ones are forgotten after a window; for tests). */
  get tracked(): number {
    let n = this.raw.keys.size;
    for (const scope of this.scopes.values()) n += scope.keys.size;
    return n;
  }

  /** Keys holding a lease and its row (light keys have none; for tests). */
  get leased(): number {
    return this.rows.size;
  }

  private leaseOf(key: string): Lease | undefined {
    const index = this.raw.keys;
    const slot = index.find(key);
    const at = slot < 0 ? -1 : rowOf(index.slots, slot);
    return at < 0 ? undefined : this.rows.leaseAt(at);
  }

  /** Sends what is still queued (debts already admitted are counted in the store), then closes the store. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inflight !== undefined || this.queue.length > 0) {
      if (this.inflight === undefined) this.send();
      await this.inflight;
    }
    await this.store.close();
  }

  /**
   * The key's first operation in a window (see the header): admitted now, reserved in the
   * background with a lease for the ones that follow.
   */
  private admitOnDebt(lease: Lease, now: number): void {
    lease.debt = 1;
    lease.lastDebtAt = now;
    this.rows.count(lease.at, now, this.windowMs);
    this.adapt(lease, now);
    this.sizeForReturn(lease);
    lease.spent++;
    // A failed reservation is seen by the key's next request that needs one, which tries again.
    this.refill(lease, lease.size, now, false).catch(() => undefined);
  }

  /**
   * An operation admitted on debt while a reservation is out, which pays it when it comes back
   * (see the header): the first operation after a key's free ones runs without waiting for the
   * lease their end sent for.
   */
  private owe(lease: Lease, now: number): void {
    lease.debt = 1;
    lease.lastDebtAt = now;
    this.rows.count(lease.at, now, this.windowMs);
    lease.spent++;
  }

  private async wait(lease: Lease): Promise<boolean> {
    lease.waiting++;
    try {
      for (;;) {
        if (lease.pending === undefined) {
          const now = this.clock();
          this.adapt(lease, now);
          // Exact keys reserve one token per waiting request, all spent as soon as they arrive.
          const want = Math.max(lease.size - lease.tokens(now), lease.waiting);
          this.refill(lease, want, now, true);
        } else if (lease.queued !== undefined) this.hurry(lease.queued);
        await lease.pending;
        const now = this.clock();
        if (lease.spend(now)) {
          this.rows.count(lease.at, now, this.windowMs);
          return true;
        }
        if (now < lease.deniedUntil) return false;
        // Another request took the tokens this refill brought: reserve again.
      }
    } finally {
      lease.waiting--;
    }
  }

  /** Tops the lease up ahead of need when three quarters are spent, so requests do not wait for the store. */
  private prefetch(lease: Lease, now: number): void {
    if (lease.cap <= 1 || lease.pending !== undefined || now < lease.deniedUntil) return;
    const tokens = lease.tokens(now);
    if (tokens > Math.max(1, Math.floor(lease.size / 4))) return;
    this.adapt(lease, now);
    const want = lease.size - tokens;
    if (want <= 0) return;
    // A failed prefetch is seen by the next request that needs a refill, which tries again.
    this.refill(lease, want, now, false).catch(() => undefined);
  }

  /** The next lease size: a window of the smoothed request rate, between MIN_SIZE and what the lease may hold. */
  private adapt(lease: Lease, now: number): void {
    if (lease.cap <= 1) {
      lease.size = 1;
      lease.resized();
      return;
    }
    if (!lease.measured) {
      lease.measured = true;
      lease.measuredSince = now;
      lease.spent = 0;
      lease.lastRefillAt = now;
      return;
    }
    const elapsed = Math.max(now - lease.lastRefillAt, 0.001);
    const instant = lease.spent / elapsed;
    // Over the lease's first half window its whole history is the estimate; then recent traffic weighs most.
    const horizon = Math.max(Math.min(this.rateHorizonMs, now - lease.measuredSince), elapsed);
    const weight = Math.min(1, elapsed / horizon);
    lease.rate = lease.rate * (1 - weight) + instant * weight;
    lease.spent = 0;
    lease.lastRefillAt = now;
    lease.size = Math.min(lease.hold, Math.max(MIN_SIZE, Math.ceil(lease.rate * this.windowMs)));
    lease.resized();
  }

  /**
   * A key back after an idle spell (its debt refill): the rate since its last refill averages the
   * idle time in and would give it the smallest lease, so a key that comes back in bursts (a user
   * making a few requests every minute or so) would go to the store every second request. Its
   * burst last period is the better guess: the lease covers half as much again, so that the
   * prefetch threshold is not reached within a burst of the same size.
   */
  private sizeForReturn(lease: Lease): void {
    const previous = this.rows.data[lease.at + PREVIOUS_OPS]!;
    if (lease.cap <= 1 || previous === 0) return;
    lease.size = Math.min(lease.hold, Math.max(lease.size, Math.ceil(previous * 1.5)));
    lease.resized();
  }

  /** Reserves `tokens` for the lease, plus its debt, as its `pending` refill; the grant pays the debt first. */
  private refill(lease: Lease, tokens: number, sentAt: number, urgent: boolean): Promise<void> {
    const max = lease.max;
    const debt = lease.debt;
    const want = tokens + debt;
    lease.pending = new Promise<Grant>((resolve, reject) => {
      const queued: Queued = { key: lease.key, want, max, urgent, resolve, reject };
      lease.queued = queued;
      this.queue.push(queued);
      this.schedule(urgent);
    })
      .then((grant) => {
        // Paid, or forgiven when the store refused it: the operation already ran, and the key is
        // now refused until a token frees. Owed is the debt this was sent with, or one admitted
        // while it was out.
        const owed = lease.debt;
        lease.debt = 0;
        // The limit changed while this was at the store: what it reserved under the old value is dropped.
        if (lease.max !== max) return;
        const left = grant.granted - owed;
        // Timed from when the request was queued, so the tokens expire before their reservation does.
        if (left > 0) lease.add(left, sentAt + this.windowMs);
        if (grant.granted < want) lease.deniedUntil = sentAt + grant.retryMs;
      })
      .finally(() => {
        lease.pending = undefined;
        lease.queued = undefined;
        lease.resized();
      });
    lease.resized();
    return lease.pending;
  }

  /**
   * Sends the queue: at the end of this tick when a request waits (refills of one tick go
   * together), else after BACKGROUND_DELAY_MS or once a batch is full; never while a batch is out
   * (it sends the next when it comes back).
   */
  private schedule(urgent: boolean): void {
    if (this.sending || this.queue.length === 0) return;
    if (urgent || this.queue.length >= MAX_BATCH) {
      this.sendSoon();
      return;
    }
    if (this.timer === undefined && !this.scheduled) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.send();
      }, this.backgroundDelayMs);
      this.timer.unref();
    }
  }

  /** A request waits for a background reservation still queued: its batch leaves now. */
  private hurry(queued: Queued): void {
    if (queued.urgent) return;
    queued.urgent = true;
    this.schedule(true);
  }

  private sendSoon(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.sending || this.queue.length === 0) return;
    // One reservation per key in a batch (a lease has one refill out at a time; this is a guard).
    const keys = new Set<string>();
    const batch: Queued[] = [];
    const rest: Queued[] = [];
    for (const q of this.queue) {
      if (batch.length < MAX_BATCH && !keys.has(q.key)) {
        keys.add(q.key);
        batch.push(q);
      } else rest.push(q);
    }
    this.queue = rest;
    this.sending = true;
    this.inflight = this.store
      .reserve(batch, this.windowMs)
      .then(
        (grants) => batch.forEach((q, i) => q.resolve(grants[i]!)),
        (e: unknown) => batch.forEach((q) => q.reject(e)),
      )
      .finally(() => {
        this.sending = false;
        this.inflight = undefined;
        this.schedule(this.queue.some((q) => q.urgent));
      });
  }

  /**
   * Forgets leases with nothing held, pending or refused, idle for a window (keys per user come
   * and go), and asks the store to forget keys with no reservation left in the window.
   */
  private sweep(): void {
    const now = this.clock();
    const rows = this.rows;
    for (const scope of [this.raw, ...this.scopes.values()]) {
      scope.keys.retain((slots, slot) => {
        const at = rowOf(slots, slot);
        if (at < 0) return now - slots[slot + LAST_USED]! <= this.windowMs;
        if (now - rows.data[at + LAST_USED]! <= this.windowMs) return true;
        const lease = rows.leaseAt(at)!;
        if (lease.pending !== undefined || lease.waiting > 0 || lease.tokens(now) > 0 || now < lease.deniedUntil) return true;
        rows.release(at);
        return false;
      });
    }
    // Best effort: a key left behind is only a row that the next sweep (of any instance) removes.
    this.store.expire?.(this.windowMs).catch(() => undefined);
  }
}
