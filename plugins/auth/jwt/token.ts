/**
 * Decodes a compact JWS without trusting it: header, claims and the registered-claim types. Each
 * failure is a JwtRejection whose reason uses the reference engine's JOSE error names
 * (`JWSError (CompactDecodeError ...)`, `JWTClaimsSetDecodeError ...`), because clients match the
 * "Could not verify JWT: <reason>" messages.
 */

export class JwtRejection extends Error {
  constructor(readonly reason: string, readonly detail?: unknown) {
    super(reason);
  }
}

export interface DecodedToken {
  compact: string;
  header: Readonly<Record<string, unknown>>;
  alg: string;
  claims: Readonly<Record<string, unknown>>;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function base64url(part: string): Buffer {
  if (!BASE64URL.test(part) || part.length % 4 === 1) {
    throw new JwtRejection('JWSError (JSONDecodeError "Not valid base64url")');
  }
  return Buffer.from(part, 'base64url');
}

function parseObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function decodeToken(compact: string): DecodedToken {
  const parts = compact.split('.');
  if (parts.length !== 3) {
    throw new JwtRejection(
      `JWSError (CompactDecodeError Invalid number of parts: Expected 3 parts; got ${parts.length})`,
    );
  }
  const [h, p, s] = parts as [string, string, string];
  const headerBytes = base64url(h);
  const payloadBytes = base64url(p);
  base64url(s);
  const header = parseObject(headerBytes);
  if (!header) throw new JwtRejection('JWSError (JSONDecodeError "protected header contains invalid JSON")');
  if (typeof header['alg'] !== 'string') {
    throw new JwtRejection('JWSError (JSONDecodeError "Error in $: key \\"alg\\" not present")');
  }
  const claims = parseObject(payloadBytes);
  if (!claims) {
    throw new JwtRejection('JWTClaimsSetDecodeError "Error in $: parsing JWT Claims Set failed, expected Object"');
  }
  checkRegisteredClaims(claims);
  return { compact, header, alg: header['alg'], claims };
}

const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Registered claims must have their RFC 7519 types before any of them is believed. */
function checkRegisteredClaims(claims: Readonly<Record<string, unknown>>): void {
  const bad = (name: string, expected: string): JwtRejection =>
    new JwtRejection(`JWTClaimsSetDecodeError "Error in $.${name}: expected ${expected}"`);
  for (const name of ['exp', 'nbf', 'iat']) {
    const v = claims[name];
    if (v !== undefined && v !== null && typeof v !== 'number') throw bad(name, 'NumericDate');
  }
  for (const name of ['iss', 'sub', 'jti']) {
    const v = claims[name];
    if (v !== undefined && v !== null && typeof v !== 'string') throw bad(name, 'StringOrURI');
  }
  const aud = claims['aud'];
  if (aud !== undefined && aud !== null && typeof aud !== 'string' && !isStringList(aud)) throw bad('aud', 'Audience');
}

/** The `aud` claim as a list (a single string is a one-element audience), or undefined. */
export function audienceOf(claims: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const aud = claims['aud'];
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? (aud as string[]) : undefined;
}
