/**
 * The unauthorized role (--unauthorized-role): a request that sent no credentials gets this role,
 * with session variables from its `X-Svc-*` headers. "No credentials" means no admin secret header
 * in admin-secret-only mode, and no token (Authorization header or configured cookie) in JWT mode;
 * the earlier auth plugins pass such requests on. As in the reference engine, the option needs an
 * admin secret and cannot be combined with webhook mode, where the webhook decides every request
 * (boot errors). Taps `onRequestAuth` LAST. Without the option it registers nothing; disabling it
 * makes credential-less requests fail with 401.
 */
import {
  BootError,
  definePlugin,
  makeSession,
  type ServerConfig,
  sessionVariablesFromHeaders,
  Stage,
} from '../../../core/sdk/index.js';

const PLUGIN_ID = 'auth/unauthorized-role';

interface UnauthorizedRoleOptions {
  role?: string;
}

export default definePlugin<UnauthorizedRoleOptions>({
  name: 'unauthorized-role',
  kind: 'auth',
  optionsSchema: {
    type: 'object',
    properties: { role: { type: 'string', minLength: 1, nullable: true } },
    additionalProperties: false,
  },
  optionsFromConfig: (config) => (config.unauthorizedRole !== undefined ? { role: config.unauthorizedRole } : {}),
  register(container, hooks, { role }) {
    if (role === undefined) return;
    const config = container.resolve<ServerConfig>('config');
    if (config.adminSecret === undefined || config.authHook !== undefined) {
      throw new BootError(
        'E_OPTION_INVALID',
        '--unauthorized-role (SVC_GRAPHQL_UNAUTHORIZED_ROLE) requires --admin-secret (SVC_GRAPHQL_ADMIN_SECRET) ' +
          'to be set and is not allowed when --auth-hook (SVC_GRAPHQL_AUTH_HOOK) is set',
      );
    }
    hooks.onRequestAuth.tap({ name: PLUGIN_ID, stage: Stage.LAST }, (req) =>
      makeSession(role, sessionVariablesFromHeaders(req.headers)),
    );
  },
});
