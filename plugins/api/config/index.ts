/**
 * Serves `GET /v1alpha1/config` (admin only): the server configuration status of Document 2 §2.5,
 * read from the live configuration; a feature reads as enabled only when a loaded plugin enforces
 * it (core/features). Part of the `config` API of --enabled-apis.
 */
import {
  authenticateRequest,
  definePlugin,
  ENGINE_VERSION,
  EngineError,
  isAdmin,
  type ProvidedFeatures,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../auth/jwt/config.js';

/** Only what is enforced is reported on: a feature no loaded plugin provides reads as off. */
export function configStatus(config: ServerConfig, features: ProvidedFeatures): Record<string, unknown> {
  const jwt = config.jwtSecret;
  return {
    version: ENGINE_VERSION,
    is_function_permissions_inferred: config.inferFunctionPermissions,
    is_remote_schema_permissions_enabled: config.enableRemoteSchemaPermissions && features.has('remote-schema-permissions'),
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
    is_allow_list_enabled: config.enableAllowlist && features.has('allowlist'),
    // The reference engine reports the refetch delay in seconds (1 for the default 1000 ms).
    live_queries: {
      batch_size: config.liveQueriesMultiplexedBatchSize,
      refetch_delay: config.liveQueriesMultiplexedRefetchInterval / 1000,
    },
    streaming_queries: {
      batch_size: config.streamingQueriesMultiplexedBatchSize,
      refetch_delay: config.streamingQueriesMultiplexedRefetchInterval / 1000,
    },
    console_assets_dir: features.has('console') ? (config.consoleAssetsDir ?? null) : null,
    experimental_features: config.experimentalFeatures,
  };
}

export default definePlugin({
  name: 'config',
  kind: 'api',
  api: 'config',
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const features = container.resolve<ProvidedFeatures>('features');
    hooks.onHttpRoutes.tap('api/config', ({ router }) => {
      router.get('/v1alpha1/config', async (ctx) => {
        const session = await authenticateRequest(ctx, hooks);
        if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        ctx.body = configStatus(config, features);
      });
    });
  },
});
