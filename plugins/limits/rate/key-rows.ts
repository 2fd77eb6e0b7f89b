/**
 * The per-key state every key has, leased or not, as rows of one Float64Array: when and how much
 * the key was used (its window-long periods, below) and its free operations (leases.ts header).
 *
 * With a limit per user most keys are light: seen a few times a minute, admitted on free
 * operations, never leased. Each of their requests reads and writes this state for a key no other
 * recent request touched, so what it costs is memory traffic, not work: an object per key, with its
 * numbers each boxed in a heap object of its own, was several cache misses per request, and memory
 * the garbage collector walks. A row is 64 bytes, one cache line, with nothing to follow.
 *
 * Periods: a key's period lasts a window and starts at its first operation after the previous one
 * ended; what the key made in the period before is the best guess of its next burst (leases.ts,
 * `sizeForReturn`).
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
/** The limit `FREE_CAP` was computed for (-1: none yet). */
export const MAX = 5;
/** Free operations allowed per period (0: none). */
export const FREE_CAP = 6;
/** 1 when the key holds a lease object (`KeyRows.leases`). */
export const LEASED = 7;

/** Float64s per row: one 64-byte cache line. */
const ROW = 8;

export class KeyRows<L> {
  data = new Float64Array(ROW * 256);
  /** The lease of each row whose LEASED is 1, by row number. */
  readonly leases: Array<L | undefined> = [];
  private readonly free: number[] = [];
  private used = 0;

  /** A new row: a key never seen, with no period yet. Returns the row's offset in `data`. */
  alloc(): number {
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
    d[at + PERIOD_START] = Number.NEGATIVE_INFINITY;
    d[at + MAX] = -1;
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
    this.data[at + LEASED] = 1;
  }

  /** Keys with a row. */
  get size(): number {
    return this.used - this.free.length;
  }

  /** Starts a new period when the current one has lasted a window. */
  roll(at: number, now: number, windowMs: number): void {
    const d = this.data;
    const since = now - d[at + PERIOD_START]!;
    if (since >= windowMs) {
      d[at + PREVIOUS_OPS] = since < 2 * windowMs ? d[at + PERIOD_OPS]! : 0;
      d[at + PERIOD_START] = now;
      d[at + PERIOD_OPS] = 0;
      d[at + PERIOD_FREE] = 0;
    }
  }

  /** Counts an admitted operation in its period. */
  count(at: number, now: number, windowMs: number): void {
    this.roll(at, now, windowMs);
    this.data[at + PERIOD_OPS]++;
  }

  /**
   * An operation admitted with no reservation (and counted), if the key has had fewer than its
   * free cap this period; answers whether the allowance is now used up, undefined when none was left.
   */
  takeFree(at: number, now: number, windowMs: number): boolean | undefined {
    const d = this.data;
    const cap = d[at + FREE_CAP]!;
    if (cap === 0) return undefined;
    this.roll(at, now, windowMs);
    const free = d[at + PERIOD_FREE]!;
    if (free >= cap) return undefined;
    d[at + PERIOD_FREE] = free + 1;
    d[at + PERIOD_OPS]++;
    return free + 1 === cap;
  }
}
