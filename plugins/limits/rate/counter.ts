/**
 * Where rate-limit hits are counted. Every engine instance of a deployment must count the same
 * requests, so the store is shared: Redis when a Redis URL is configured, otherwise the metadata
 * database. Both keep an exact sliding window (the hits of the last `windowMs`), timed by the
 * store's clock so that instances with skewed clocks agree.
 */
export interface RateCounter {
  /**
   * Records a hit for `key` if fewer than `max` hits fall in the window ending now; answers
   * whether it was recorded (allowed). A refused hit is not counted.
   */
  hit(key: string, max: number, windowMs: number): Promise<boolean>;
  close(): Promise<void>;
}
