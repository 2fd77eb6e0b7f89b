/**
 * Serves the schema API, `POST /v2/query`, where `run_sql` lives. Part of the `metadata` API of
 * --enabled-apis.
 */
import { definePlugin, metadataRoute } from '../../../core/sdk/index.js';

export default definePlugin({
  name: 'schema',
  kind: 'api',
  api: 'metadata',
  register(container, hooks) {
    hooks.onHttpRoutes.tap('api/schema', ({ router }) => {
      router.post('/v2/query', metadataRoute(container, 'schema'));
    });
  },
});
