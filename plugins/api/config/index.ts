/**
 * Serves `GET /v1alpha1/config` (admin only): the server configuration status of Document 2 §2.5,
 * read from the live configuration. Part of the `config` API of --enabled-apis.
 */
import { definePlugin } from '../../../core/plugin.js';
import { EngineError } from '../../../core/errors.js';
import { authenticateRequest } from '../../../core/http/auth.js';
import { isAdmin } from '../../../core/auth/session.js';
import { ENGINE_VERSION } from '../../../core/version.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../auth/jwt/config.js';

export function configStatus(config: ServerConfig): Record<string, unknown> {
  const jwt = config.jwtSecret;
  return {
    version: ENGINE_VERSION,
    is_function_permissions_inferred: config.inferFunctionPermissions,
    is_remote_schema_permissions_enabled: config.enableRemoteSchemaPermissions,
    is_admin_secret_set: config.adminSecret !== undefined,
    is_auth_hook_set: config.authHook !== undefined,
    is_jwt_set: jwt !== undefined,
    jwt: jwt
      ? {
          claims_namespace:
            typeof jwt['claims_namespace'] === 'string' ? jwt['claims_namespace'] : DEFAULT_CLAIMS_NAMESPACE,
          claims_format: typeof jwt['claims_format'] === 'string' ? jwt['claims_format'] : 'json',
        }
      : null,
    is_allow_list_enabled: config.enableAllowlist,
    live_queries: {
      batch_size: config.liveQueriesMultiplexedBatchSize,
      refetch_delay: config.liveQueriesMultiplexedRefetchInterval,
    },
    streaming_queries: {
      batch_size: config.streamingQueriesMultiplexedBatchSize,
      refetch_delay: config.streamingQueriesMultiplexedRefetchInterval,
    },
    console_assets_dir: config.consoleAssetsDir ?? null,
    experimental_features: config.experimentalFeatures,
  };
}

export default definePlugin({
  name: 'config',
  kind: 'api',
  api: 'config',
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    hooks.onHttpRoutes.tap('api/config', ({ router }) => {
      router.get('/v1alpha1/config', async (ctx) => {
        const session = await authenticateRequest(ctx, hooks);
        if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        ctx.body = configStatus(config);
      });
    });
  },
});
