/**
 * A JWK set fetched from `jwk_url`. Nothing is fetched at boot (plugins do no I/O while
 * registering); the first token to be verified fetches it, and a token arriving after the set's
 * expiry (see jwk-expiry.ts) fetches it again. A failed fetch keeps the keys already held, is
 * logged with type `jwk-refresh-log`, and is retried by the next request once `retryMs` has passed
 * (the reference engine polls once a second). With no keys at all, tokens are refused with
 * "Could not verify JWT: JWSError NoUsableKeys". The fetch goes through the shared OutgoingHttp
 * client with a deadline and a response-size cap; redirects are not followed (a JWK URL is
 * configured by the operator and should name the set itself).
 */
import { ENGINE_VERSION, OutgoingCallError, type Logger, type OutgoingHttp, type OutgoingResponse } from '../../../core/sdk/index.js';
import { keyFromJwk, KeyError, type VerificationKey } from './keys.js';
import { jwkExpiry } from './jwk-expiry.js';
import type { KeySource } from './verify.js';

const LOG_TYPE = 'jwk-refresh-log';

export interface RemoteJwkSetOptions {
  url: string;
  http: OutgoingHttp;
  timeoutMs: number;
  maxResponseBytes: number;
  retryMs: number;
  logger: Logger;
  now?: () => number;
}

class FetchFailure extends Error {}

export class RemoteJwkSet implements KeySource {
  private held: readonly VerificationKey[] = [];
  private expiresAt: number | undefined;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private inflight: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: RemoteJwkSetOptions) {
    this.now = options.now ?? Date.now;
  }

  async keys(): Promise<readonly VerificationKey[]> {
    const now = this.now();
    const stale = this.held.length === 0 || (this.expiresAt !== undefined && now >= this.expiresAt);
    if (stale && (this.inflight || now - this.lastAttempt >= this.options.retryMs)) await this.refresh();
    return this.held;
  }

  current(): readonly VerificationKey[] | undefined {
    if (this.held.length === 0 || (this.expiresAt !== undefined && this.now() >= this.expiresAt)) return undefined;
    return this.held;
  }

  /** Fetches the set now; concurrent callers share one request. Never rejects. */
  refresh(): Promise<void> {
    if (!this.inflight) {
      this.lastAttempt = this.now();
      this.inflight = this.fetchOnce().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private async fetchOnce(): Promise<void> {
    const { url, logger } = this.options;
    logger.info(LOG_TYPE, { message: `refreshing JWK from endpoint: ${url}` });
    try {
      const res = await this.get();
      const keys = this.parse(res.body);
      this.held = keys;
      const expiry = jwkExpiry(header(res.headers, 'cache-control'), header(res.headers, 'expires'), this.now());
      if (expiry.expiresAt !== undefined) this.expiresAt = expiry.expiresAt;
      else if (expiry.problem) logger.info(LOG_TYPE, { message: expiry.problem, url });
    } catch (e) {
      if (!(e instanceof FetchFailure)) throw e;
      logger.error(LOG_TYPE, { message: e.message, url, error: (e.cause as Error | undefined)?.message });
    }
  }

  private async get(): Promise<{ body: string; headers: OutgoingResponse['headers'] }> {
    const { url, http, timeoutMs, maxResponseBytes } = this.options;
    let res: OutgoingResponse;
    try {
      res = await http.request({
        url,
        headers: { 'user-agent': `svc-graphql-engine/${ENGINE_VERSION}` },
        timeoutMs,
        maxResponseBytes,
      });
    } catch (e) {
      if (!(e instanceof OutgoingCallError)) throw e;
      const reason =
        e.kind === 'timeout'
          ? `timed out after ${timeoutMs} ms`
          : e.kind === 'too-large'
            ? `response larger than ${maxResponseBytes} bytes`
            : e.message;
      throw new FetchFailure(`Error fetching JWK: ${reason}`, { cause: e });
    }
    if (res.status < 200 || res.status >= 300) throw new FetchFailure(`Non-2xx response on fetching JWK from: ${url}`);
    return { body: res.body.toString('utf8'), headers: res.headers };
  }

  private parse(body: string): VerificationKey[] {
    const { url, logger } = this.options;
    let set: unknown;
    try {
      set = JSON.parse(body);
    } catch (e) {
      throw new FetchFailure(`Error parsing JWK from url: ${url}`, { cause: e });
    }
    const members = (set as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(members)) throw new FetchFailure(`Error parsing JWK from url: ${url}`, { cause: new Error('no "keys" array') });
    const keys: VerificationKey[] = [];
    for (const member of members) {
      try {
        if (typeof member !== 'object' || member === null) throw new KeyError('not a JSON object');
        keys.push(keyFromJwk(member as Record<string, unknown>));
      } catch (e) {
        if (!(e instanceof KeyError)) throw e;
        // One unusable member (an encryption key, an unknown kty) must not discard the others.
        logger.warn(LOG_TYPE, { message: `ignoring a JWK from ${url}: ${e.message}`, kid: (member as { kid?: unknown })?.kid });
      }
    }
    return keys;
  }
}

function header(headers: OutgoingResponse['headers'], name: string): string | null {
  const v = headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}
