import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, exportJWK, type JWTPayload } from 'jose';
import { createKernel, type Kernel } from '../../../core/kernel/kernel.js';
import { BootError, EngineError } from '../../../core/errors.js';
import { createLogger } from '../../../core/logger.js';
import type { Session } from '../../../core/auth/session.js';
import { authenticateNow } from '../../../core/http/auth.js';
import type { ServerConfig } from '../../../core/config/types.js';
import adminSecret from '../../../plugins/auth/admin-secret/index.js';
import jwt, { DEFAULT_CLAIMS_NAMESPACE } from '../../../plugins/auth/jwt/index.js';
import unauthorizedRole from '../../../plugins/auth/unauthorized-role/index.js';
import { configStatus } from '../../../plugins/api/config/index.js';
import { ProvidedFeatures } from '../../../core/features/index.js';
import { testConfig } from '../../helpers/config.js';

const NS = 'https://svc-graphql-engine.io/jwt/claims';
const ADMIN_SECRET = 'admin-secret-for-tests';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const HS_KEY = 'a-shared-secret-of-at-least-32-chars!';

/** A self-signed P-256 certificate and its key, generated once for these tests. */
const EC_CERT = `-----BEGIN CERTIFICATE-----
MIIBfDCCASOgAwIBAgIUJg/ecb4msezd1IlDbHLjhlfhvI4wCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIc3ZjLXRlc3QwIBcNMjYxMTIxMjIyMTAzWhgPMjEyNjEwMjgy
MjIxMDNaMBMxETAPBgNVBAMMCHN2Yy10ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAE0cNzgZcJZAsDx+dluOb2yN7Mh0RLZMNXh1nylN+NWJCsAsuxvmABEm3K
nk3bdnQr8mle5TD4lVExEoAecfrSnKNTMFEwHQYDVR0OBBYEFJbYT9SVh1DU8WTr
RwI5O/hUUe3dMB8GA1UdIwQYMBaAFJbYT9SVh1DU8WTrRwI5O/hUUe3dMA8GA1Ud
EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIga6XwSU9uY9hJ1yICPn5UL9U/
cVTC3Vg/PqjjzRSdCCoCICMONGR7/PBK0cn/p1hnyaMFK6Cv9cq8jYZYsECmB24F
-----END CERTIFICATE-----
`;
const EC_CERT_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqVGlEEGMfHALOSZ3
28JjcW7I6zkRBB9PraPADD6MDuGhRANCAATRw3OBlwlkCwPH52W45vbI3syHREtk
w1eHWfKU341YkKwCy7G+YAESbcqeTdt2dCvyaV7lMPiVUTESgB5x+tKc
-----END PRIVATE KEY-----
`;

const now = (): number => Math.floor(Date.now() / 1000);
const userClaims = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  'x-svc-allowed-roles': ['user', 'editor'],
  'x-svc-default-role': 'user',
  'x-svc-user-id': '42',
  ...extra,
});

async function sign(
  payload: JWTPayload,
  key: KeyObject | Uint8Array,
  alg = 'RS256',
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ ...header, alg }).sign(key);
}

const tokenFor = (claims = userClaims(), extra: JWTPayload = {}, alg = 'RS256', key: KeyObject | Uint8Array = rsa.privateKey) =>
  sign({ sub: '42', iat: now(), exp: now() + 3600, [NS]: claims, ...extra }, key, alg);

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

async function kernelWith(
  jwtSecret: Record<string, unknown>,
  overrides: Partial<ServerConfig> = {},
  extra: { withUnauthorized?: boolean; pluginOptions?: Record<string, unknown>; logLines?: string[] } = {},
): Promise<Kernel> {
  const plugins = extra.withUnauthorized ? [adminSecret, jwt, unauthorizedRole] : [adminSecret, jwt];
  const logger = extra.logLines
    ? createLogger({ level: 'debug', enabledTypes: ['jwk-refresh-log'], sink: (l) => extra.logLines?.push(l) })
    : undefined;
  return createKernel({
    plugins,
    config: testConfig({ adminSecret: ADMIN_SECRET, jwtSecret, ...overrides }),
    ...(extra.pluginOptions ? { pluginOptions: extra.pluginOptions } : {}),
    ...(logger ? { logger } : {}),
  });
}

async function roleOf(kernel: Kernel, headers: Record<string, string>): Promise<string | undefined> {
  return (await authenticate(kernel, headers))?.role;
}

async function authenticate(kernel: Kernel, headers: Record<string, string>): Promise<Session | undefined> {
  return await kernel.hooks.onRequestAuth.promise({ headers, ip: '127.0.0.1', body: undefined, responseHeaders: [] });
}

/** The request must be refused: no session, an EngineError with exactly this code/status/message. */
async function expectRefused(
  kernel: Kernel,
  headers: Record<string, string>,
  code: string,
  message: string,
  status = 400,
): Promise<void> {
  let session: Session | undefined;
  let error: unknown;
  try {
    session = await authenticate(kernel, headers);
  } catch (e) {
    error = e;
  }
  expect(session, 'no session may be produced').to.equal(undefined);
  expect(error).to.be.instanceOf(EngineError);
  const err = error as EngineError;
  expect({ code: err.code, status: err.status, message: err.message, path: err.path }).to.deep.equal({
    code,
    status,
    message,
    path: '$',
  });
}

async function expectBootError(jwtSecret: Record<string, unknown>, message: string, overrides: Partial<ServerConfig> = {}) {
  let error: unknown;
  try {
    await kernelWith(jwtSecret, overrides);
  } catch (e) {
    error = e;
  }
  expect(error).to.be.instanceOf(BootError);
  expect((error as BootError).code).to.equal('E_OPTION_INVALID');
  expect((error as BootError).message).to.equal(`E_OPTION_INVALID: ${message}`);
}

describe('auth/jwt', () => {
  let rs: Kernel;
  before(async () => {
    rs = await kernelWith({ type: 'RS256', key: rsaPem });
  });

  it('uses the default claims namespace the config API reports', () => {
    expect(DEFAULT_CLAIMS_NAMESPACE).to.equal(NS);
    const status = configStatus(testConfig({ jwtSecret: { type: 'HS256', key: HS_KEY } }), new ProvidedFeatures([]));
    expect(status['jwt']).to.deep.equal({ claims_namespace: NS, claims_format: 'json' });
  });

  describe('a valid token', () => {
    it('gives the default role, the x-svc-* claims as variables and the expiry', async () => {
      const exp = now() + 600;
      const session = await authenticate(rs, bearer(await tokenFor(userClaims(), { exp })));
      expect(session).to.deep.equal({
        role: 'user',
        variables: { 'x-svc-user-id': '42', 'x-svc-role': 'user' },
        expiresAt: new Date(exp * 1000),
      });
    });

    it('takes the role asked for with X-Svc-Role among the allowed roles', async () => {
      const session = await authenticate(rs, { ...bearer(await tokenFor()), 'x-svc-role': 'editor' });
      expect(session?.role).to.equal('editor');
      expect(session?.variables['x-svc-role']).to.equal('editor');
    });

    it('lower-cases claim names and ignores claims outside x-svc-*, and request x-svc-* headers', async () => {
      const claims = { ...userClaims(), 'X-Svc-Org-Id': '7', name: 'ignored' };
      const session = await authenticate(rs, { ...bearer(await tokenFor(claims)), 'x-svc-user-id': 'forged' });
      expect(session?.variables).to.deep.equal({ 'x-svc-user-id': '42', 'x-svc-org-id': '7', 'x-svc-role': 'user' });
    });

    it('accepts other algorithms of the key family (RS512, PS256) like the reference engine', async () => {
      expect(await roleOf(rs, bearer(await tokenFor(userClaims(), {}, 'RS512')))).to.equal('user');
      expect(await roleOf(rs, bearer(await tokenFor(userClaims(), {}, 'PS256')))).to.equal('user');
    });

    it('is skipped when a valid admin secret is sent: the request is admin', async () => {
      const session = await authenticate(rs, { 'x-svc-admin-secret': ADMIN_SECRET, authorization: 'Bearer garbage' });
      expect(session?.role).to.equal('admin');
    });
  });

  describe('hostile tokens', () => {
    it('refuses a role that is not in the allowed roles', async () => {
      await expectRefused(
        rs,
        { ...bearer(await tokenFor()), 'x-svc-role': 'admin' },
        'access-denied',
        'Your requested role is not in allowed roles',
      );
    });

    it('refuses a default role that is not allowed', async () => {
      const token = await tokenFor(userClaims({ 'x-svc-default-role': 'admin' }));
      await expectRefused(rs, bearer(token), 'access-denied', 'Your requested role is not in allowed roles');
    });

    it('refuses an alg "none" token', async () => {
      const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ exp: now() + 60, [NS]: userClaims() })}.`;
      await expectRefused(rs, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWSError JWSNoSignatures');
    });

    it('refuses an expired token', async () => {
      const token = await tokenFor(userClaims(), { exp: now() - 60 });
      await expectRefused(rs, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWTExpired');
    });

    it('accepts a token expired within allowed_skew, and refuses one beyond it', async () => {
      const skewed = await kernelWith({ type: 'RS256', key: rsaPem, allowed_skew: 60 });
      const recent = await tokenFor(userClaims(), { exp: now() - 10 });
      expect(await roleOf(skewed, bearer(recent))).to.equal('user');
      const old = await tokenFor(userClaims(), { exp: now() - 120 });
      await expectRefused(skewed, bearer(old), 'invalid-jwt', 'Could not verify JWT: JWTExpired');
    });

    it('refuses a token not valid yet', async () => {
      const token = await tokenFor(userClaims(), { nbf: now() + 600 });
      await expectRefused(rs, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWTNotYetValid');
    });

    it('refuses a wrong audience, accepts a configured one', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem, audience: ['app-1', 'app-2'] });
      await expectRefused(
        k,
        bearer(await tokenFor(userClaims(), { aud: 'other-app' })),
        'invalid-jwt',
        'Could not verify JWT: JWTNotInAudience',
      );
      expect(await roleOf(k, bearer(await tokenFor(userClaims(), { aud: ['x', 'app-2'] })))).to.equal('user');
      // Stricter than the reference engine (which checks `aud` only when the token has one).
      await expectRefused(k, bearer(await tokenFor()), 'invalid-jwt', 'Could not verify JWT: JWTNotInAudience');
    });

    it('refuses a wrong issuer, accepts the configured one', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem, issuer: 'https://issuer.example' });
      await expectRefused(
        k,
        bearer(await tokenFor(userClaims(), { iss: 'https://evil.example' })),
        'invalid-jwt',
        'Could not verify JWT: JWTNotInIssuer',
      );
      const good = await tokenFor(userClaims(), { iss: 'https://issuer.example' });
      expect(await roleOf(k, bearer(good))).to.equal('user');
      // Stricter than the reference engine: a token without `iss` is not from the configured issuer.
      await expectRefused(k, bearer(await tokenFor()), 'invalid-jwt', 'Could not verify JWT: JWTNotInIssuer');
    });

    it('refuses an HS256 token signed with the RS256 public key PEM as HMAC secret (key confusion)', async () => {
      const token = await tokenFor(userClaims(), {}, 'HS256', Buffer.from(rsaPem));
      await expectRefused(rs, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
    });

    it('refuses a tampered payload', async () => {
      const [h, , s] = (await tokenFor()).split('.');
      const forged = Buffer.from(
        JSON.stringify({ exp: now() + 60, [NS]: userClaims({ 'x-svc-allowed-roles': ['user', 'admin'], 'x-svc-default-role': 'admin' }) }),
      ).toString('base64url');
      await expectRefused(rs, bearer(`${h}.${forged}.${s}`), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
    });

    it('refuses a token signed by another key', async () => {
      const token = await tokenFor(userClaims(), {}, 'RS256', otherRsa.privateKey);
      await expectRefused(rs, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
    });

    it('refuses tokens in the wrong header format', async () => {
      const token = await tokenFor();
      for (const authorization of [`Token ${token}`, `bearer ${token}`, token, 'Bearer', `Bearer ${token} extra`]) {
        await expectRefused(rs, { authorization }, 'invalid-headers', 'Malformed Authorization header');
      }
    });

    it('refuses something that is not a compact JWS', async () => {
      await expectRefused(
        rs,
        bearer('not-a-token'),
        'invalid-jwt',
        'Could not verify JWT: JWSError (CompactDecodeError Invalid number of parts: Expected 3 parts; got 1)',
      );
      await expectRefused(
        rs,
        bearer('e30.e30.***'),
        'invalid-jwt',
        'Could not verify JWT: JWSError (JSONDecodeError "Not valid base64url")',
      );
    });

    it('refuses a request without a token when there is no unauthorized role', async () => {
      await expectRefused(
        rs,
        {},
        'invalid-headers',
        "Missing 'Authorization' or 'Cookie' header in JWT authentication mode",
      );
    });

    it('gives the unauthorized role to a request without a token, but still refuses bad tokens', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem }, { unauthorizedRole: 'anonymous' }, { withUnauthorized: true });
      expect(await authenticate(k, { 'x-svc-user-id': '3' })).to.deep.equal({
        role: 'anonymous',
        variables: { 'x-svc-user-id': '3', 'x-svc-role': 'anonymous' },
      });
      await expectRefused(
        k,
        bearer(await tokenFor(userClaims(), { exp: now() - 60 })),
        'invalid-jwt',
        'Could not verify JWT: JWTExpired',
      );
    });
  });

  describe('the session cache', () => {
    const now_ = (k: Kernel, headers: Record<string, string>) =>
      authenticateNow(k.hooks, { headers, ip: '127.0.0.1', body: undefined, responseHeaders: [] });

    it('answers a token seen before from the cache: the same session, without a promise', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem });
      const headers = bearer(await tokenFor());
      const first = await now_(k, headers);
      const second = now_(k, headers);
      expect(second).not.to.be.instanceOf(Promise);
      expect(second).to.equal(first);
      expect(await authenticate(k, headers)).to.equal(first);
      expect(Object.isFrozen(first)).to.equal(true);
    });

    it('keeps the role asked for apart: X-Svc-Role changes the session', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem });
      const token = await tokenFor();
      expect((await now_(k, bearer(token))).role).to.equal('user');
      expect((await now_(k, { ...bearer(token), 'x-svc-role': 'editor' })).role).to.equal('editor');
      expect((await now_(k, bearer(token))).role).to.equal('user');
      expect((await now_(k, { ...bearer(token), 'x-svc-role': 'editor' })).variables['x-svc-role']).to.equal('editor');
      // A role outside the allowed ones is refused every time: failures are not cached.
      for (let i = 0; i < 2; i++) {
        await expectRefused(k, { ...bearer(token), 'x-svc-role': 'admin' }, 'access-denied', 'Your requested role is not in allowed roles');
      }
    });

    it('stops serving a token once it expires (exp + allowed_skew)', async function () {
      this.timeout(10_000);
      const k = await kernelWith({ type: 'RS256', key: rsaPem, allowed_skew: 1 });
      const exp = now() + 1;
      const headers = bearer(await tokenFor(userClaims(), { exp }));
      expect((await now_(k, headers)).role).to.equal('user');
      expect(now_(k, headers)).not.to.be.instanceOf(Promise);
      // Still within the skew after exp: served.
      await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now() + 100)));
      expect((await now_(k, headers)).role).to.equal('user');
      await new Promise((r) => setTimeout(r, Math.max(0, (exp + 1) * 1000 - Date.now() + 100)));
      await expectRefused(k, headers, 'invalid-jwt', 'Could not verify JWT: JWTExpired');
    });
  });

  describe('claims', () => {
    it('requires x-svc-allowed-roles and x-svc-default-role', async () => {
      const noAllowed = userClaims();
      delete noAllowed['x-svc-allowed-roles'];
      await expectRefused(
        rs,
        bearer(await tokenFor(noAllowed)),
        'jwt-missing-role-claims',
        'JWT claim does not contain x-svc-allowed-roles',
      );
      const noDefault = userClaims();
      delete noDefault['x-svc-default-role'];
      await expectRefused(
        rs,
        bearer(await tokenFor(noDefault)),
        'jwt-missing-role-claims',
        'JWT claim does not contain x-svc-default-role',
      );
    });

    it('refuses role claims of the wrong type', async () => {
      await expectRefused(
        rs,
        bearer(await tokenFor(userClaims({ 'x-svc-allowed-roles': 'user' }))),
        'jwt-invalid-claims',
        'invalid x-svc-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String',
      );
      await expectRefused(
        rs,
        bearer(await tokenFor(userClaims({ 'x-svc-default-role': 1 }))),
        'jwt-invalid-claims',
        'invalid x-svc-default-role; should be a single role name: parsing String failed, expected String, but encountered Number',
      );
    });

    it('refuses non-string session variable claims', async () => {
      await expectRefused(
        rs,
        bearer(await tokenFor(userClaims({ 'x-svc-user-id': 42 }))),
        'jwt-invalid-claims',
        'x-svc-* claims: parsing Text failed, expected String, but encountered Number',
      );
    });

    it('refuses a token without the claims namespace', async () => {
      const token = await sign({ exp: now() + 60, other: userClaims() }, rsa.privateKey);
      await expectRefused(rs, bearer(token), 'jwt-invalid-claims', `claims key: '${NS}' not found`);
    });

    it('reads claims at claims_namespace_path', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem, claims_namespace_path: '$.svc.claims' });
      const token = await sign({ exp: now() + 60, svc: { claims: userClaims() } }, rsa.privateKey);
      expect((await authenticate(k, bearer(token)))?.variables['x-svc-user-id']).to.equal('42');
      const missing = await sign({ exp: now() + 60, svc: {} }, rsa.privateKey);
      await expectRefused(k, bearer(missing), 'jwt-invalid-claims', "claims not found at claims_namespace_path: '$.svc.claims'");
    });

    it('reads stringified_json claims', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem, claims_format: 'stringified_json' });
      const token = await sign({ exp: now() + 60, [NS]: JSON.stringify(userClaims()) }, rsa.privateKey);
      expect(await roleOf(k, bearer(token))).to.equal('user');
      await expectRefused(
        k,
        bearer(await tokenFor()),
        'jwt-invalid-claims',
        'expecting a string when claims_format is stringified_json',
      );
    });

    it('maps claims with claims_map: JSON paths, defaults and literals', async () => {
      const k = await kernelWith({
        type: 'RS256',
        key: rsaPem,
        claims_map: {
          'x-svc-allowed-roles': { path: '$.roles' },
          'x-svc-default-role': { path: '$.primary_role', default: 'user' },
          'x-svc-user-id': { path: "$.user['id']" },
          'x-svc-tenant': 'acme',
        },
      });
      const token = await sign({ exp: now() + 60, roles: ['user', 'manager'], user: { id: '9' } }, rsa.privateKey);
      expect(await authenticate(k, { ...bearer(token), 'x-svc-role': 'manager' })).to.deep.include({
        role: 'manager',
        variables: { 'x-svc-user-id': '9', 'x-svc-tenant': 'acme', 'x-svc-role': 'manager' },
      });
      const noUser = await sign({ exp: now() + 60, roles: ['user'] }, rsa.privateKey);
      await expectRefused(k, bearer(noUser), 'jwt-invalid-claims', 'JWT claim from claims_map, x-svc-user-id not found');
      const noRoles = await sign({ exp: now() + 60, user: { id: '9' } }, rsa.privateKey);
      await expectRefused(k, bearer(noRoles), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles');
    });
  });

  describe('keys', () => {
    it('verifies HS256 shared secrets (and HS512 tokens with the same secret)', async () => {
      const k = await kernelWith({ type: 'HS256', key: HS_KEY });
      const secret = Buffer.from(HS_KEY);
      expect(await roleOf(k, bearer(await tokenFor(userClaims(), {}, 'HS256', secret)))).to.equal('user');
      expect(await roleOf(k, bearer(await tokenFor(userClaims(), {}, 'HS512', secret)))).to.equal('user');
      const rsToken = await tokenFor();
      await expectRefused(k, bearer(rsToken), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
    });

    it('verifies ES256 with a certificate and EdDSA with an Ed25519 public key', async () => {
      const ec = await kernelWith({ type: 'ES256', key: EC_CERT });
      const { createPrivateKey } = await import('node:crypto');
      const ecToken = await tokenFor(userClaims(), {}, 'ES256', createPrivateKey(EC_CERT_KEY));
      expect(await roleOf(ec, bearer(ecToken))).to.equal('user');

      const ed = generateKeyPairSync('ed25519');
      const edKernel = await kernelWith({ type: 'Ed25519', key: ed.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
      expect(await roleOf(edKernel, bearer(await tokenFor(userClaims(), {}, 'EdDSA', ed.privateKey)))).to.equal('user');
    });

    it('reads the token from the configured cookie', async () => {
      const k = await kernelWith({ type: 'RS256', key: rsaPem, header: { type: 'Cookie', name: 'svc_token' } });
      const token = await tokenFor();
      expect(await roleOf(k, { cookie: `a=1; svc_token=${token}; b=2` })).to.equal('user');
      await expectRefused(k, bearer(token), 'invalid-headers', "Missing 'Authorization' or 'Cookie' header in JWT authentication mode");
    });
  });

  describe('jwk_url', () => {
    interface JwksState {
      status: number;
      body: string;
      headers: Record<string, string>;
      hits: number;
    }
    let server: Server;
    let state: JwksState;
    let url: string;
    const kidA = 'key-a';
    const kidB = 'key-b';
    let setA: string;
    let setB: string;

    before(async () => {
      setA = JSON.stringify({ keys: [{ ...(await exportJWK(rsa.publicKey)), kid: kidA, use: 'sig', alg: 'RS256' }] });
      setB = JSON.stringify({ keys: [{ ...(await exportJWK(otherRsa.publicKey)), kid: kidB }] });
      state = { status: 200, body: setA, headers: {}, hits: 0 };
      server = createServer((_req, res) => {
        state.hits++;
        res.writeHead(state.status, { 'content-type': 'application/json', ...state.headers });
        res.end(state.body);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));
    beforeEach(() => {
      state.status = 200;
      state.body = setA;
      state.headers = {};
      state.hits = 0;
    });

    const kidToken = (kid: string, key: KeyObject) =>
      sign({ exp: now() + 60, [NS]: userClaims() }, key, 'RS256', { kid });

    it('verifies with the fetched set and fetches it once while it is fresh', async () => {
      const k = await kernelWith({ jwk_url: url });
      expect(state.hits, 'nothing is fetched at boot').to.equal(0);
      const token = await kidToken(kidA, rsa.privateKey);
      expect(await roleOf(k, bearer(token))).to.equal('user');
      expect(await roleOf(k, bearer(token))).to.equal('user');
      expect(state.hits).to.equal(1);
    });

    it('refetches after Cache-Control max-age and follows a key rotation', async () => {
      state.headers = { 'cache-control': 'max-age=1' };
      const k = await kernelWith({ jwk_url: url });
      const tokenA = await kidToken(kidA, rsa.privateKey);
      const tokenB = await kidToken(kidB, otherRsa.privateKey);
      expect(await roleOf(k, bearer(tokenA))).to.equal('user');
      state.body = setB;
      await expectRefused(k, bearer(tokenB), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
      await new Promise((r) => setTimeout(r, 1100));
      expect(await roleOf(k, bearer(tokenB))).to.equal('user');
      await expectRefused(k, bearer(tokenA), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
      expect(state.hits).to.equal(2);
    });

    it('drops sessions cached under a key set once the set is fetched again', async () => {
      state.headers = { 'cache-control': 'max-age=1' };
      const k = await kernelWith({ jwk_url: url });
      const tokenA = await kidToken(kidA, rsa.privateKey);
      const first = await authenticate(k, bearer(tokenA));
      expect(await authenticate(k, bearer(tokenA))).to.equal(first);
      state.body = setB;
      await new Promise((r) => setTimeout(r, 1100));
      await expectRefused(k, bearer(tokenA), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
      expect(state.hits).to.equal(2);
    });

    it('honours Expires when there is no Cache-Control', async () => {
      state.headers = { expires: new Date(Date.now() + 1000).toUTCString() };
      const k = await kernelWith({ jwk_url: url });
      expect(await roleOf(k, bearer(await kidToken(kidA, rsa.privateKey)))).to.equal('user');
      state.body = setB;
      await new Promise((r) => setTimeout(r, 1100));
      expect(await roleOf(k, bearer(await kidToken(kidB, otherRsa.privateKey)))).to.equal('user');
    });

    it('survives a JWK endpoint that is down at boot and comes up later, logging the failures', async () => {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const lines: string[] = [];
      const k = await kernelWith(
        { jwk_url: `http://127.0.0.1:${port}/jwks` },
        {},
        { logLines: lines, pluginOptions: { 'auth/jwt': { jwkRetrySeconds: 0 } } },
      );
      const token = await kidToken(kidA, rsa.privateKey);
      await expectRefused(k, bearer(token), 'invalid-jwt', 'Could not verify JWT: JWSError NoUsableKeys');
      const failures = lines.map((l) => JSON.parse(l) as { type: string; level: string; detail: { message: string } });
      expect(failures.some((l) => l.type === 'jwk-refresh-log' && l.level === 'error' && l.detail.message.startsWith('Error fetching JWK: '))).to.equal(true);

      const late = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(setA);
      });
      await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
      try {
        expect(await roleOf(k, bearer(token))).to.equal('user');
      } finally {
        await new Promise<void>((r) => late.close(() => r()));
      }
    });

    it('keeps the keys it has when a refresh fails', async () => {
      state.headers = { 'cache-control': 'max-age=0' };
      const lines: string[] = [];
      const k = await kernelWith({ jwk_url: url }, {}, { logLines: lines, pluginOptions: { 'auth/jwt': { jwkRetrySeconds: 0 } } });
      const token = await kidToken(kidA, rsa.privateKey);
      expect(await roleOf(k, bearer(token))).to.equal('user');
      state.status = 503;
      expect(await roleOf(k, bearer(token))).to.equal('user');
      expect(lines.some((l) => l.includes('Non-2xx response on fetching JWK from: '))).to.equal(true);
    });

    it('refuses an oversized JWK answer with a clear log line and keeps no keys from it', async () => {
      const lines: string[] = [];
      state.body = JSON.stringify({ keys: [], padding: 'x'.repeat(8192) });
      const k = await kernelWith({ jwk_url: url }, {}, { logLines: lines, pluginOptions: { 'auth/jwt': { jwkMaxResponseBytes: 4096 } } });
      await expectRefused(k, bearer(await kidToken(kidA, rsa.privateKey)), 'invalid-jwt', 'Could not verify JWT: JWSError NoUsableKeys');
      expect(lines.some((l) => l.includes('Error fetching JWK: response larger than 4096 bytes'))).to.equal(true);
    });

    it('gives up on a JWK endpoint that does not answer in time', async () => {
      const lines: string[] = [];
      const silent = createServer(() => {
        // never answers
      });
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      try {
        const k = await kernelWith(
          { jwk_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/jwks` },
          {},
          { logLines: lines, pluginOptions: { 'auth/jwt': { jwkFetchTimeoutSeconds: 0.2 } } },
        );
        const started = Date.now();
        await expectRefused(k, bearer(await kidToken(kidA, rsa.privateKey)), 'invalid-jwt', 'Could not verify JWT: JWSError NoUsableKeys');
        expect(Date.now() - started).to.be.lessThan(5000);
        expect(lines.some((l) => l.includes('Error fetching JWK: timed out after 200 ms'))).to.equal(true);
        await k.dispose();
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((r) => silent.close(() => r()));
      }
    });
  });

  describe('boot', () => {
    it('does nothing without --jwt-secret', async () => {
      const k = await createKernel({ plugins: [jwt], config: testConfig({}) });
      expect(k.hooks.onRequestAuth.taps).to.have.length(0);
    });

    it('needs an admin secret', async () => {
      let error: unknown;
      try {
        await createKernel({ plugins: [jwt], config: testConfig({ jwtSecret: { type: 'HS256', key: HS_KEY } }) });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(BootError);
      expect((error as BootError).message).to.equal(
        'E_OPTION_INVALID: --jwt-secret (SVC_GRAPHQL_JWT_SECRET) requires --admin-secret (SVC_GRAPHQL_ADMIN_SECRET) to be set',
      );
    });

    it('cannot be combined with webhook mode', async () => {
      await expectBootError(
        { type: 'HS256', key: HS_KEY },
        'Both webhook and JWT mode cannot be enabled at the same time (--auth-hook and --jwt-secret)',
        { authHook: 'http://127.0.0.1:1/hook' },
      );
    });

    const prefix = '--jwt-secret (SVC_GRAPHQL_JWT_SECRET): ';
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no key', { type: 'HS256' }, 'key and jwk_url both cannot be empty'],
      ['key and jwk_url', { type: 'HS256', key: HS_KEY, jwk_url: 'http://127.0.0.1/jwks' }, 'key, jwk_url both cannot be present'],
      ['key without type', { key: HS_KEY }, '"type" is required with "key"'],
      ['unknown type', { type: 'XS256', key: HS_KEY }, 'Invalid JWK: Key type: XS256 is not supported'],
      ['short HMAC key', { type: 'HS256', key: 'short' }, 'Invalid JWK: Key size too small; should be atleast 32 characters'],
      ['HS512 key size', { type: 'HS512', key: HS_KEY }, 'Invalid JWK: Key size too small; should be atleast 64 characters'],
      ['not a PEM', { type: 'RS256', key: 'not a pem' }, 'Invalid JWK: Could not decode PEM: No pem found'],
      [
        'a private key',
        { type: 'RS256', key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
        'Invalid JWK: Could not decode PEM: a private key was given; give the public key or a certificate',
      ],
      ['EC key for RS256', { type: 'RS256', key: EC_CERT }, 'Invalid JWK: RS256 needs an RSA key, but the PEM holds an EC key'],
      ['wrong curve', { type: 'ES384', key: EC_CERT }, 'Invalid JWK: ES384 needs a P-384 key, but the PEM holds a P-256 key'],
      ['unknown field', { type: 'HS256', key: HS_KEY, claim_namespace: 'x' }, 'unknown field(s) "claim_namespace"; known fields are type, key, jwk_url, claims_namespace, claims_namespace_path, claims_format, claims_map, audience, issuer, allowed_skew, header'],
      [
        'namespace and path',
        { type: 'HS256', key: HS_KEY, claims_namespace: 'a', claims_namespace_path: '$.a' },
        'claims_namespace and claims_namespace_path both cannot be set',
      ],
      ['bad claims_format', { type: 'HS256', key: HS_KEY, claims_format: 'xml' }, '"claims_format" must be "json" or "stringified_json"'],
      [
        'bad header type',
        { type: 'HS256', key: HS_KEY, header: { type: 'Query' } },
        "header: expected 'type' is 'Authorization' or 'Cookie' or 'CustomHeader'",
      ],
      ['cookie without name', { type: 'HS256', key: HS_KEY, header: { type: 'Cookie' } }, '"header.name" is required with "type": "Cookie"'],
      ['bad audience', { type: 'HS256', key: HS_KEY, audience: 5 }, '"audience" must be a string or a list of strings'],
      ['negative skew', { type: 'HS256', key: HS_KEY, allowed_skew: -1 }, '"allowed_skew" must be a non-negative number of seconds'],
      ['bad jwk_url', { jwk_url: 'ftp://example.com/jwks' }, '"jwk_url" must be an http or https URL: ftp://example.com/jwks'],
      [
        'bad JSON path',
        { type: 'HS256', key: HS_KEY, claims_namespace_path: '$.a b' },
        'invalid JSON path claims_namespace_path error: $.a b. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any other character in the name',
      ],
      [
        'claims_map without default role',
        { type: 'HS256', key: HS_KEY, claims_map: { 'x-svc-allowed-roles': ['user'] } },
        'claims_map: x-svc-default-role is expected but not found',
      ],
    ];
    for (const [name, secret, message] of cases) {
      it(`refuses a bad configuration: ${name}`, async () => {
        await expectBootError(secret, prefix + message);
      });
    }
  });
});
