/**
 * Sessions of bearer tokens already verified (JWT mode), so that a client sending the same token
 * again is not verified again: a signature check and the claims' resolution cost more than the
 * rest of a small query. An entry is per token and requested role (`X-Svc-Role` picks among the
 * token's allowed roles), and is used only while
 * - the token would still be accepted: until its `exp` plus the allowed skew (a token without
 *   `exp` never expires, as verification treats it);
 * - the key set it was verified with is the one in use: any other set (a JWK set fetched again,
 *   keys rotated) empties the cache.
 * Bounded: past `maxEntries` the oldest entry goes. Failures are never cached.
 */
import type { Session } from './session.js';

export const SESSION_CACHE_MAX_ENTRIES = 1024;

interface CachedSession {
  session: Session;
  /** Epoch milliseconds; the entry serves while now < validUntilMs. */
  validUntilMs: number;
}

export class SessionCache {
  private readonly entries = new Map<string, CachedSession>();
  /** The key set every entry was verified with (compared by identity). */
  private keySet: unknown = undefined;

  constructor(private readonly maxEntries = SESSION_CACHE_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session cached for this token and requested role, if still valid under `keySet`. */
  get(token: string, requestedRole: string | undefined, keySet: unknown, nowMs: number): Session | undefined {
    if (keySet !== this.keySet) {
      this.reset(keySet);
      return undefined;
    }
    const key = cacheKey(token, requestedRole);
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (nowMs < hit.validUntilMs) return hit.session;
    this.entries.delete(key);
    return undefined;
  }

  set(token: string, requestedRole: string | undefined, keySet: unknown, session: Session, validUntilMs: number): void {
    if (keySet !== this.keySet) this.reset(keySet);
    const key = cacheKey(token, requestedRole);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { session, validUntilMs });
  }

  private reset(keySet: unknown): void {
    this.entries.clear();
    this.keySet = keySet;
  }
}

// Header values never hold a newline: the role and the token cannot run into each other.
const cacheKey = (token: string, requestedRole: string | undefined): string => `${requestedRole ?? ''}\n${token}`;
