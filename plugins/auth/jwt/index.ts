/**
 * JWT mode (--jwt-secret). A request without an admin secret header must carry a token
 * (`Authorization: Bearer`, a cookie or a custom header, per the `header` setting); it is verified
 * against the configured key or the JWK set at `jwk_url`, and its `x-svc-*` claims give the role
 * (`X-Svc-Role` chooses among `x-svc-allowed-roles`, else `x-svc-default-role`) and the session
 * variables; `exp` becomes the session's expiry. Without a token the request is left to the
 * unauthorized-role plugin when --unauthorized-role is set, and refused otherwise.
 * Requires an admin secret and excludes webhook mode (boot errors). Taps `onRequestAuth` at
 * DEFAULT, after admin-secret. Without --jwt-secret it registers nothing; disabling it turns JWT
 * mode off.
 */
import {
  type AuthRequest,
  checkAuthModeRequirements,
  definePlugin,
  type Logger,
  makeSession,
  type OutgoingHttp,
  type ServerConfig,
  type Session,
  SessionCache,
  shareSession,
  Stage,
} from '../../../core/sdk/index.js';
import { parseJwtSecret } from './config.js';
import { findToken, missingTokenError } from './location.js';
import { verifyToken, type KeySource } from './verify.js';
import { requestedRole, resolveClaims } from './claims.js';
import { RemoteJwkSet } from './jwks.js';
import type { VerificationKey } from './keys.js';

export { DEFAULT_CLAIMS_NAMESPACE } from './config.js';

const PLUGIN_ID = 'auth/jwt';

export interface JwtOptions {
  /** The --jwt-secret JSON object; without it the plugin does nothing. */
  secret?: Record<string, unknown>;
  /** Deadline of one fetch of the JWK set at `jwk_url`. */
  jwkFetchTimeoutSeconds: number;
  /** Shortest wait before a failed or stale JWK set is fetched again. */
  jwkRetrySeconds: number;
  /** Larger JWK set answers are refused and logged; the keys already held stay in use. */
  jwkMaxResponseBytes: number;
}

export default definePlugin<JwtOptions>({
  name: 'jwt',
  kind: 'auth',
  optionsSchema: {
    type: 'object',
    properties: {
      secret: { type: 'object', nullable: true },
      jwkFetchTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, default: 30 },
      jwkRetrySeconds: { type: 'number', minimum: 0, default: 1 },
      jwkMaxResponseBytes: { type: 'integer', minimum: 1, default: 1048576 },
    },
    required: ['jwkFetchTimeoutSeconds', 'jwkRetrySeconds', 'jwkMaxResponseBytes'],
    additionalProperties: false,
  },
  optionsFromConfig: (config) => (config.jwtSecret !== undefined ? { secret: config.jwtSecret } : {}),
  register(container, hooks, options) {
    if (options.secret === undefined) return;
    const settings = parseJwtSecret(options.secret);
    const config = container.resolve<ServerConfig>('config');
    checkAuthModeRequirements(config, 'jwt');
    const source = settings.key;
    const keys: KeySource =
      source.kind === 'static'
        ? fixedKeys([source.key])
        : new RemoteJwkSet({
            url: source.url,
            http: container.resolve<OutgoingHttp>('outgoingHttp'),
            timeoutMs: options.jwkFetchTimeoutSeconds * 1000,
            maxResponseBytes: options.jwkMaxResponseBytes,
            retryMs: options.jwkRetrySeconds * 1000,
            logger: container.resolve<Logger>('logger'),
          });
    // The reference engine answers a token-less request with the unauthorized role when one is set.
    const tokenOptional = config.unauthorizedRole !== undefined;
    const sessions = new SessionCache();

    /** Verifies the token and resolves its session; caches it when the key set stayed the same. */
    const verifyNew = async (token: string, asked: string | undefined, req: AuthRequest, keysBefore: unknown): Promise<Session> => {
      const verified = await verifyToken(token, keys, settings);
      const { role, variables } = resolveClaims(verified.claims, settings.claims, req.headers);
      const made = makeSession(role, variables);
      const session = shareSession(Object.freeze(verified.expiresAt ? { ...made, expiresAt: verified.expiresAt } : { ...made }));
      const keysAfter = keys.current?.();
      if (keysAfter !== undefined && (keysBefore === undefined || keysBefore === keysAfter)) {
        const exp = verified.claims['exp'];
        const validUntilMs = typeof exp === 'number' ? (exp + settings.allowedSkewSeconds) * 1000 : Number.POSITIVE_INFINITY;
        sessions.set(token, asked, keysAfter, session, validUntilMs);
      }
      return session;
    };

    // A synchronous tap: a token verified before answers from the session cache without a promise;
    // otherwise the answer is the verification's promise (a final answer, see onRequestAuth).
    hooks.onRequestAuth.tap({ name: PLUGIN_ID, stage: Stage.DEFAULT }, (req): Session | Promise<Session> | undefined => {
      const token = findToken(req.headers, settings.location);
      if (token === undefined) {
        if (tokenOptional) return undefined;
        throw missingTokenError();
      }
      const role = requestedRole(req.headers);
      const held = keys.current?.();
      if (held !== undefined) {
        const hit = sessions.get(token, role, held, Date.now());
        if (hit !== undefined) return hit;
      }
      return verifyNew(token, role, req, held);
    });
  },
});

function fixedKeys(keys: readonly VerificationKey[]): KeySource {
  return { keys: async () => keys, current: () => keys };
}

