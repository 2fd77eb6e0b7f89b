/**
 * Where rate-limit tokens are reserved. Every engine instance of a deployment must draw from the
 * same count, so the store is shared: Redis when a Redis URL is configured, otherwise the metadata
 * database. Both keep an exact sliding window of reservations (each a time and a number of
 * tokens), timed by the store's clock so that instances with skewed clocks agree. Reservations
 * for many keys travel together, one round trip for all (the leases batch them).
 */
export interface Reservation {
  key: string;
  /** Tokens asked for (at least 1). */
  want: number;
  /** The limit: reservations inside one window total at most this. */
  max: number;
}

export interface Grant {
  /** Tokens reserved now: `want`, or fewer (down to 0) when the window holds too few. */
  granted: number;
  /** When fewer than `want` were granted: milliseconds until the oldest reservation leaves the window (no token frees earlier). */
  retryMs: number;
}

export interface RateStore {
  /**
   * Reserves, for each request (distinct keys), up to `want` tokens so that the reservations
   * inside the window ending now total at most `max`; answers in the requests' order. A refused
   * (or partly refused) reservation records only what it granted.
   */
  reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]>;
  /**
   * Forgets keys that hold no reservation inside the window (per-user keys come and go). Absent
   * where the store expires them itself (Redis keys carry a TTL of one window).
   */
  expire?(windowMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long a reservation may take before it fails (the stall guard). Requests waiting for a
 * refill wait on it: without a bound, a stalled database, or a row lock held by a stuck session,
 * would hold every request of the key for as long, piling them up. Failed, they are refused with
 * "the rate-limit counter store cannot be reached" and the next one tries again.
 */
export const STORE_TIMEOUT_MS = 5000;
