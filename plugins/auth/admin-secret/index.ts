/**
 * Admin access. With an admin secret configured, a matching `X-Svc-Admin-Secret` (or the legacy
 * `X-Svc-Access-Key`) makes the request admin, and the admin may act as another role through
 * `X-Svc-Role` with session variables from `X-Svc-*` headers; a wrong secret is refused. Without
 * a secret, the `X-Svc-Role` header decides (default admin): the open development mode.
 * A request without the header is left to the next auth mode (JWT, webhook, unauthorized role).
 * Taps `onRequestAuth` at EARLY. Disabling it leaves only the other auth modes.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  ADMIN_ROLE,
  definePlugin,
  EngineError,
  makeSession,
  sessionVariablesFromHeaders,
  Stage,
} from '../../../core/sdk/index.js';
import type { IncomingHttpHeaders } from 'node:http';

const PLUGIN_ID = 'auth/admin-secret';

interface AdminSecretOptions {
  secret?: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `scratch` (as long as `expected`) receives the given secret: no buffer allocated per request. */
function secretsMatch(given: string, expected: Buffer, scratch: Buffer): boolean {
  if (Buffer.byteLength(given) !== expected.length) return false;
  scratch.write(given);
  return timingSafeEqual(scratch, expected);
}

export default definePlugin<AdminSecretOptions>({
  name: 'admin-secret',
  kind: 'auth',
  optionsSchema: {
    type: 'object',
    properties: { secret: { type: 'string', minLength: 1, nullable: true } },
    additionalProperties: false,
  },
  optionsFromConfig: (config) => (config.adminSecret !== undefined ? { secret: config.adminSecret } : {}),
  register(_container, hooks, { secret }) {
    const expected = secret === undefined ? undefined : Buffer.from(secret);
    const scratch = Buffer.alloc(expected?.length ?? 0);
    hooks.onRequestAuth.tap({ name: PLUGIN_ID, stage: Stage.EARLY }, (req) => {
      const variables = sessionVariablesFromHeaders(req.headers);
      const role = variables['x-svc-role'] ?? ADMIN_ROLE;
      if (expected === undefined) return makeSession(role, variables);
      const given = header(req.headers, 'x-svc-admin-secret') ?? header(req.headers, 'x-svc-access-key');
      if (given === undefined) return undefined;
      if (!secretsMatch(given, expected, scratch)) {
        throw new EngineError('access-denied', 'invalid "x-svc-admin-secret"/"x-svc-access-key"', { status: 401 });
      }
      return makeSession(role, variables);
    });
  },
});
