/**
 * When to try a failed webhook call again, shared by event and scheduled triggers: a positive
 * integer `Retry-After` (seconds) from a non-2xx answer wins over the configured interval and
 * keeps the delivery alive even past the last configured retry, as the reference engine does.
 */

export interface RetryDecision {
  /** Give up: mark the event `error`. */
  giveUp: boolean;
  /** Seconds until the next attempt when not giving up. */
  delaySeconds: number;
}

/** `Retry-After` as whole seconds; HTTP dates and non-positive values are not honoured. */
export function parseRetryAfter(header: string | string[] | undefined): number | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return null;
  const seconds = Number(raw.trim());
  return seconds > 0 ? seconds : null;
}

/**
 * `triesBefore`: attempts made before this one (so `numRetries + 1` attempts in all).
 * `retryAfter`: from the failed answer, null when absent or for transport errors.
 */
export function decideRetry(triesBefore: number, numRetries: number, intervalSeconds: number, retryAfter: number | null): RetryDecision {
  if (triesBefore >= numRetries && retryAfter === null) return { giveUp: true, delaySeconds: 0 };
  return { giveUp: false, delaySeconds: retryAfter ?? intervalSeconds };
}
