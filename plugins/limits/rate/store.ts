/**
 * Where rate-limit tokens are reserved. Every engine instance of a deployment must draw from the
 * same count, so the store is shared: Redis when a Redis URL is configured, otherwise the metadata
 * database. Both keep an exact sliding window of reservations (each a time and a number of
 * tokens), timed by the store's clock so that instances with skewed clocks agree.
 */
export interface Grant {
  /** Tokens reserved now: `want`, or fewer (down to 0) when the window holds too few. */
  granted: number;
  /** When fewer than `want` were granted: milliseconds until the oldest reservation leaves the window (no token frees earlier). */
  retryMs: number;
}

export interface RateStore {
  /**
   * Reserves up to `want` tokens for `key` so that the reservations inside the window ending now
   * total at most `max`. A refused (or partly refused) reservation records only what it granted.
   */
  reserve(key: string, want: number, max: number, windowMs: number): Promise<Grant>;
  close(): Promise<void>;
}
