/**
 * Serves the legacy schema/metadata API, `POST /v1/query` (deprecated by the reference engine but
 * still used by older clients and migration scripts). Legacy operation names dispatch only here.
 * Part of the `metadata` API of --enabled-apis.
 */
import { definePlugin, metadataRoute } from '../../../core/sdk/index.js';

export default definePlugin({
  name: 'query',
  kind: 'api',
  api: 'metadata',
  register(container, hooks) {
    hooks.onHttpRoutes.tap('api/query', ({ router }) => {
      router.post('/v1/query', metadataRoute(container, 'query'));
    });
  },
});
