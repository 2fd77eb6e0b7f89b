/**
 * Verification keys: the `key` of a --jwt-secret (a shared secret or a PEM public key or
 * certificate) and the members of a fetched JWK set, each paired with the JWS algorithms it may
 * verify. Like the reference engine, a key is not pinned to the configured `type`: it verifies
 * every algorithm of its own family (an HS256 secret also checks HS384/HS512 tokens), but never
 * one of another family, which is what defeats key-confusion tokens (HS256 signed with an RSA
 * public key's PEM text).
 */
import { createPublicKey, createSecretKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface VerificationKey {
  key: KeyObject;
  algorithms: readonly string[];
  /** The JWK `kid`, tried first when a token names it. */
  kid?: string;
}

/** The algorithms the reference engine's JOSE library accepts at all; `none` is not one of them. */
export const SUPPORTED_ALGORITHMS: ReadonlySet<string> = new Set([
  'HS256', 'HS384', 'HS512',
  'RS256', 'RS384', 'RS512',
  'ES256', 'ES384', 'ES512',
  'PS256', 'PS384', 'PS512',
  'EdDSA',
]);

const HMAC = ['HS256', 'HS384', 'HS512'] as const;
const RSA = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
const EC_BY_CURVE: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const CURVE_NAME: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const CURVE_FOR: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** Smaller RSA moduli are refused by the JOSE library at verification time; refuse them early. */
const MIN_RSA_BITS = 2048;

export class KeyError extends Error {}

/** The algorithms a key can verify, or a reason it cannot be used. */
export function algorithmsFor(key: KeyObject): readonly string[] {
  if (key.type === 'secret') return HMAC;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if ((details.modulusLength ?? 0) < MIN_RSA_BITS) throw new KeyError(`RSA keys must be at least ${MIN_RSA_BITS} bits`);
      return RSA;
    case 'rsa-pss':
      if ((details.modulusLength ?? 0) < MIN_RSA_BITS) throw new KeyError(`RSA keys must be at least ${MIN_RSA_BITS} bits`);
      return RSA.filter((a) => a.startsWith('PS'));
    case 'ec': {
      const alg = EC_BY_CURVE[details.namedCurve ?? ''];
      if (!alg) throw new KeyError(`EC curve ${details.namedCurve ?? '(unknown)'} is not supported`);
      return [alg];
    }
    case 'ed25519':
      return ['EdDSA'];
    default:
      throw new KeyError(`key type ${key.asymmetricKeyType ?? '(unknown)'} is not supported`);
  }
}

const HMAC_MIN_CHARS: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 };

/** `type` values of --jwt-secret; `Ed25519` is the reference engine's name, `EdDSA` the JWS one. */
export const KEY_TYPES = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'Ed25519', 'EdDSA'];

/**
 * Parses the `key` of a --jwt-secret for its `type`. Throws KeyError with the reason (the caller
 * prefixes "Invalid JWK: " as the reference engine does).
 */
export function parseConfiguredKey(type: string, raw: string): VerificationKey {
  const minChars = HMAC_MIN_CHARS[type];
  if (minChars !== undefined) {
    const secret = Buffer.from(raw, 'utf8');
    if (secret.length < minChars) throw new KeyError(`Key size too small; should be atleast ${minChars} characters`);
    return { key: createSecretKey(secret), algorithms: HMAC };
  }
  if (!KEY_TYPES.includes(type)) throw new KeyError(`Key type: ${type} is not supported`);
  const key = publicKeyFromPem(raw);
  const expected = type.startsWith('RS') ? 'rsa' : type.startsWith('ES') ? 'ec' : 'ed25519';
  if (key.asymmetricKeyType !== expected) {
    throw new KeyError(`${type} needs ${describeKeyType(expected)} key, but the PEM holds ${describeKeyType(key.asymmetricKeyType ?? '')} key`);
  }
  const algorithms = algorithmsFor(key);
  if (expected === 'ec' && !algorithms.includes(type)) {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
    throw new KeyError(`${type} needs a ${CURVE_FOR[type]} key, but the PEM holds a ${CURVE_NAME[curve] ?? curve} key`);
  }
  return { key, algorithms };
}

function describeKeyType(t: string): string {
  return t === 'rsa' ? 'an RSA' : t === 'ec' ? 'an EC' : t === 'ed25519' ? 'an Ed25519' : `a ${t || 'non-public'}`;
}

function publicKeyFromPem(raw: string): KeyObject {
  // A private key would be accepted by createPublicKey (it derives the public half); refusing it
  // keeps private material out of the server configuration, as the reference engine does.
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(raw)) {
    throw new KeyError('Could not decode PEM: a private key was given; give the public key or a certificate');
  }
  if (!raw.includes('-----BEGIN ')) throw new KeyError('Could not decode PEM: No pem found');
  try {
    return createPublicKey(raw);
  } catch (e) {
    throw new KeyError(`Could not decode PEM: ${(e as Error).message}`);
  }
}

/** One member of a fetched JWK set; only its public parameters are read. */
export function keyFromJwk(jwk: Record<string, unknown>): VerificationKey {
  const str = (name: string): string | undefined => (typeof jwk[name] === 'string' ? (jwk[name] as string) : undefined);
  const kid = str('kid');
  if (jwk['use'] === 'enc') throw new KeyError('an encryption key ("use": "enc")');
  let key: KeyObject;
  try {
    switch (jwk['kty']) {
      case 'RSA':
        key = createPublicKey({ key: { kty: 'RSA', n: str('n'), e: str('e') } as JsonWebKey, format: 'jwk' });
        break;
      case 'EC':
        key = createPublicKey({ key: { kty: 'EC', crv: str('crv'), x: str('x'), y: str('y') } as JsonWebKey, format: 'jwk' });
        break;
      case 'OKP':
        key = createPublicKey({ key: { kty: 'OKP', crv: str('crv'), x: str('x') } as JsonWebKey, format: 'jwk' });
        break;
      case 'oct': {
        const k = str('k');
        if (!k) throw new KeyError('oct key without "k"');
        key = createSecretKey(Buffer.from(k, 'base64url'));
        break;
      }
      default:
        throw new KeyError(`key type ${String(jwk['kty'])} is not supported`);
    }
  } catch (e) {
    if (e instanceof KeyError) throw e;
    throw new KeyError((e as Error).message);
  }
  return kid === undefined ? { key, algorithms: algorithmsFor(key) } : { key, algorithms: algorithmsFor(key), kid };
}
