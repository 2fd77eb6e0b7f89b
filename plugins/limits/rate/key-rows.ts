/**
 * A leased key's state (leases.ts), as rows of one Float64Array: when and how much the key was used
 * (its window-long periods, below), its free operations, and its two oldest batches of tokens.
 *
 * With a limit per user most keys are light: seen a few times a minute, admitted on free
 * operations, never leased. What their requests cost is memory traffic, not work, so a light key
 * has no row: its period block (the first PERIOD_BLOCK fields) lives in its slot of the scope's
 * index (part-index.ts), 64 bytes on one page, and the functions below keep the block wherever it is.
 * When the key is leased its block is copied into a row of its own, which from then on is the
 * key's state, and its slot points at the row.
 *
 * Periods: a key's period lasts a window and starts at its first operation after the previous one
 * ended; what the key made in the period before is the best guess of its next burst (leases.ts,
 * `sizeForReturn`).
 *
 * A leased key's row also holds its two oldest batches of tokens (the one spent first and the one
 * after it), the count of all it holds, its spent counter and its refusal, so that what most
 * requests of a leased key do (spend a token, move on to the next batch when the oldest is spent,
 * or take a free operation) reads and writes the row alone (`admitLeased`).
 * Through the lease object it was four more scattered reads per request (the lease array's slot,
 * the lease, its batch list and the batch), each a cache and TLB miss at a server's pace, where
 * other work runs between two requests: over 10,000 per-user keys at the bench's pace, with the
 * cache evicted between bursts, `takeIn` cost 1.8 µs before and 1.0 µs after (docs/performance.md,
 * "A leased key admitted from its row"). A row is 128 bytes in one piece, with nothing to follow;
 * the object per key it replaced boxed each number in a heap object of its own.
 */

/** Fields of a row (each a float64). */
export const PERIOD_START = 0;
/** Operations admitted in the current period. */
export const PERIOD_OPS = 1;
/** Free operations admitted in the current period. */
export const PERIOD_FREE = 2;
/** Operations admitted in the period before (0 when it ended more than a window ago). */
export const PREVIOUS_OPS = 3;
export const LAST_USED = 4;
/** Fields from PERIOD_START to here are the period block, which a light key keeps in its index slot. */
export const PERIOD_BLOCK = 5;
/** The limit the lease was tuned for (leases.ts, `Lease.retune`). */
export const MAX = 5;
/** Free operations allowed per period (0: none). */
export const FREE_CAP = 6;
// Field 7 is unused: the fields a leased key's spend reads are the row's second 64 bytes.
/** Tokens left in the lease's oldest batch, which is spent first (0: none). */
export const HEAD_LEFT = 8;
/** When the oldest batch's tokens may no longer be spent (leases.ts, `Batch.expiresAt`). */
export const HEAD_EXPIRES = 9;
/** Tokens of every batch the lease holds, expired or not (later batches expire after the oldest). */
export const HELD = 10;
/**
 * A token may be spent from the row alone while the lease still holds more than this after the
 * spend: above it, the lease's own path would not prefetch either (leases.ts, `prefetch`); -1
 * while it could not prefetch at all (a refill is out, or the key is exact).
 */
export const SPEND_ABOVE = 11;
/** Tokens spent since the lease's last refill (its rate measure, leases.ts `adapt`). */
export const SPENT = 12;
/** Until when the store refused the key (leases.ts, `Lease.deniedUntil`). */
export const DENIED_UNTIL = 13;
/**
 * Tokens of the batch after the oldest (0: none; then no later batch either). A refill lands while
 * the oldest still holds its last few tokens, so most keys hold two batches for a while: with the
 * second in the row, the request that finishes the oldest moves on without the lease object.
 */
export const NEXT_LEFT = 14;
/** When the next batch's tokens may no longer be spent (after HEAD_EXPIRES). */
export const NEXT_EXPIRES = 15;

/**
 * Float64s per row: 128 bytes, two cache lines' worth (a third when the buffer's start is not
 * 64-byte aligned, which nothing promises; it rarely crosses a page).
 */
const ROW = 16;

/** Starts a new period of the key whose period block is at `at` of `d`, when the current one has lasted a window. */
function rollPeriod(d: Float64Array, at: number, now: number, windowMs: number): void {
  const since = now - d[at + PERIOD_START]!;
  if (since >= windowMs) {
    d[at + PREVIOUS_OPS] = since < 2 * windowMs ? d[at + PERIOD_OPS]! : 0;
    d[at + PERIOD_START] = now;
    d[at + PERIOD_OPS] = 0;
    d[at + PERIOD_FREE] = 0;
  }
}

/**
 * An operation admitted with no reservation (and counted) for the key whose period block is at `at`
 * of `d`, if it has had fewer than `cap` free operations this period; answers whether the
 * allowance is now used up, undefined when none was left (or `cap` is 0: no period is rolled).
 */
export function takeFreeIn(d: Float64Array, at: number, cap: number, now: number, windowMs: number): boolean | undefined {
  if (cap === 0) return undefined;
  rollPeriod(d, at, now, windowMs);
  const free = d[at + PERIOD_FREE]!;
  if (free >= cap) return undefined;
  d[at + PERIOD_FREE] = free + 1;
  d[at + PERIOD_OPS]++;
  return free + 1 === cap;
}

export class KeyRows<L> {
  data = new Float64Array(ROW * 256);
  /** The lease of each row, by row number. */
  readonly leases: Array<L | undefined> = [];
  private readonly free: number[] = [];
  private used = 0;

  /**
   * A new row for a key being leased, its period block copied from `block` at `from` (the key's
   * index slot). Returns the row's offset in `data`; `setLease` gives it its lease.
   */
  alloc(block: Float64Array, from: number): number {
    let row = this.free.pop();
    if (row === undefined) {
      row = this.used++;
      if (row * ROW >= this.data.length) {
        const grown = new Float64Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.leases.push(undefined);
    }
    const at = row * ROW;
    const d = this.data;
    d.fill(0, at, at + ROW);
    d.set(block.subarray(from, from + PERIOD_BLOCK), at);
    d[at + MAX] = -1;
    d[at + HEAD_EXPIRES] = Number.NEGATIVE_INFINITY;
    d[at + NEXT_EXPIRES] = Number.NEGATIVE_INFINITY;
    return at;
  }

  /** Forgets the row at `at` (its key is gone). */
  release(at: number): void {
    this.leases[at / ROW] = undefined;
    this.free.push(at / ROW);
  }

  leaseAt(at: number): L | undefined {
    return this.leases[at / ROW];
  }

  setLease(at: number, lease: L): void {
    this.leases[at / ROW] = lease;
  }

  /** Keys with a row (leased keys). */
  get size(): number {
    return this.used - this.free.length;
  }

  /** Counts an admitted operation in its period. */
  count(at: number, now: number, windowMs: number): void {
    rollPeriod(this.data, at, now, windowMs);
    this.data[at + PERIOD_OPS]++;
  }

  /**
   * Admits an operation of a leased key from its row alone, where the lease's own path would
   * decide the same with nothing else to do: the limit is the lease's (`max`), and either the
   * oldest batch holds an unexpired token and the lease keeps more than SPEND_ABOVE after it, or
   * the oldest is spent or expired, no batch follows the next one, and the next holds an unexpired
   * token with more than SPEND_ABOVE left after it (it becomes the oldest, as `Lease.spend` does),
   * or the lease holds no token, the key is not refused, and a free operation is left that is not
   * its last (the last one sends a prefetch). False: the lease's own path decides.
   */
  admitLeased(at: number, now: number, max: number, windowMs: number): boolean {
    const d = this.data;
    if (d[at + MAX] !== max) return false;
    if (d[at + HEAD_LEFT]! > 0 && d[at + HEAD_EXPIRES]! > now) {
      if (d[at + HELD]! - 1 <= d[at + SPEND_ABOVE]!) return false;
      d[at + HEAD_LEFT]--;
      d[at + HELD]--;
    } else if (d[at + NEXT_LEFT]! > 0) {
      const next = d[at + NEXT_LEFT]!;
      // Tokens held beyond the two batches are in the lease's list: its path moves them up.
      if (d[at + HELD] !== d[at + HEAD_LEFT]! + next || d[at + NEXT_EXPIRES]! <= now || next - 1 <= d[at + SPEND_ABOVE]!) return false;
      d[at + HEAD_LEFT] = next - 1;
      d[at + HEAD_EXPIRES] = d[at + NEXT_EXPIRES]!;
      d[at + HELD] = next - 1;
      d[at + NEXT_LEFT] = 0;
      d[at + NEXT_EXPIRES] = Number.NEGATIVE_INFINITY;
    } else {
      // As `takeFree` (which the lease's path would call): no period rolled without a free cap.
      if (d[at + HELD] !== 0 || now < d[at + DENIED_UNTIL]! || d[at + FREE_CAP] === 0) return false;
      rollPeriod(d, at, now, windowMs);
      if (d[at + PERIOD_FREE]! + 1 >= d[at + FREE_CAP]!) return false;
      d[at + PERIOD_FREE]++;
    }
    d[at + SPENT]++;
    d[at + LAST_USED] = now;
    this.count(at, now, windowMs);
    return true;
  }

  /** `takeFreeIn` for the leased key at `at`, under its own free cap. */
  takeFree(at: number, now: number, windowMs: number): boolean | undefined {
    return takeFreeIn(this.data, at, this.data[at + FREE_CAP]!, now, windowMs);
  }
}
