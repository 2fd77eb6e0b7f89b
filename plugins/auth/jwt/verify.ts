/**
 * Verifies a token the way the reference engine does, step for step, so that the same token gets
 * the same answer: decode, issuer pre-check, signature (jose), then `exp`, `nbf` and `aud` with the
 * allowed skew. Stricter than the reference engine: when `audience` or `issuer` is configured, a
 * token that lacks the claim is refused (the reference lets it through, so a token minted by the
 * same key for another service would be accepted; docs/security.md). Failures are `invalid-jwt`
 * "Could not verify JWT: <reason>".
 */
import { compactVerify } from 'jose';
import { EngineError } from '../../../core/sdk/index.js';
import { SUPPORTED_ALGORITHMS, type VerificationKey } from './keys.js';
import { audienceOf, decodeToken, JwtRejection } from './token.js';

export interface KeySource {
  /** The keys to verify with now; may fetch (a JWK set) and may be empty. */
  keys(): Promise<readonly VerificationKey[]>;
  /**
   * The keys `keys()` would give now without fetching, or undefined when it would fetch (none
   * held yet, or the set is stale). A new set is a new array: the session cache compares them by
   * identity. Absent: verified sessions are not cached.
   */
  current?(): readonly VerificationKey[] | undefined;
}

export interface VerifyPolicy {
  audience?: readonly string[];
  issuer?: string;
  allowedSkewSeconds: number;
}

export interface VerifiedToken {
  claims: Readonly<Record<string, unknown>>;
  expiresAt?: Date;
}

export function invalidJwt(reason: string, internal?: unknown): EngineError {
  return new EngineError('invalid-jwt', `Could not verify JWT: ${reason}`, internal === undefined ? {} : { internal });
}

export async function verifyToken(
  compact: string,
  source: KeySource,
  policy: VerifyPolicy,
  nowMs: number = Date.now(),
): Promise<VerifiedToken> {
  try {
    return await verify(compact, source, policy, nowMs);
  } catch (e) {
    if (e instanceof JwtRejection) throw invalidJwt(e.reason, e.detail);
    throw e;
  }
}

async function verify(compact: string, source: KeySource, policy: VerifyPolicy, nowMs: number): Promise<VerifiedToken> {
  const token = decodeToken(compact);
  const { claims, alg } = token;
  // The reference engine compares the (unverified) issuer before anything else; a missing one fails too.
  if (policy.issuer !== undefined && claims['iss'] !== policy.issuer) {
    throw new JwtRejection('JWTNotInIssuer');
  }
  // `none` and unknown algorithms carry no signature the engine will check.
  if (!SUPPORTED_ALGORITHMS.has(alg)) throw new JwtRejection('JWSError JWSNoSignatures');
  const keys = await source.keys();
  if (keys.length === 0) throw new JwtRejection('JWSError NoUsableKeys');
  if (!(await signatureMatches(compact, alg, token.header['kid'], keys))) {
    throw new JwtRejection('JWSError JWSInvalidSignature');
  }
  checkTimes(claims, policy.allowedSkewSeconds, nowMs / 1000);
  checkAudience(claims, policy.audience);
  const exp = claims['exp'];
  return typeof exp === 'number' ? { claims, expiresAt: new Date(exp * 1000) } : { claims };
}

async function signatureMatches(compact: string, alg: string, kid: unknown, keys: readonly VerificationKey[]): Promise<boolean> {
  // Only keys of the token's algorithm family are tried: an HS256 token is never checked against
  // an RSA key's bytes. Keys named by `kid` go first; any key verifying is enough.
  const candidates = keys
    .filter((k) => k.algorithms.includes(alg))
    .sort((a, b) => Number(b.kid !== undefined && b.kid === kid) - Number(a.kid !== undefined && a.kid === kid));
  for (const k of candidates) {
    try {
      await compactVerify(compact, k.key, { algorithms: [alg] });
      return true;
    } catch {
      // Try the next key; the reference engine reports only that no signature verified.
    }
  }
  return false;
}

function checkTimes(claims: Readonly<Record<string, unknown>>, skew: number, now: number): void {
  const exp = claims['exp'];
  if (typeof exp === 'number' && !(now < exp + skew)) throw new JwtRejection('JWTExpired');
  const nbf = claims['nbf'];
  if (typeof nbf === 'number' && !(now >= nbf - skew)) throw new JwtRejection('JWTNotYetValid');
}

function checkAudience(claims: Readonly<Record<string, unknown>>, audience: readonly string[] | undefined): void {
  const aud = audienceOf(claims);
  if (aud === undefined) {
    if (audience !== undefined) throw new JwtRejection('JWTNotInAudience');
    return;
  }
  const accepted = audience === undefined ? aud.length > 0 : aud.some((a) => audience.includes(a));
  if (!accepted) throw new JwtRejection('JWTNotInAudience');
}
