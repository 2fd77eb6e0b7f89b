/**
 * Serves the metadata API, `POST /v1/metadata`. Part of the `metadata` API of --enabled-apis;
 * the operations themselves are `metadata/*` plugins.
 */
import { definePlugin, metadataRoute } from '../../../core/sdk/index.js';

export default definePlugin({
  name: 'metadata',
  kind: 'api',
  api: 'metadata',
  register(container, hooks) {
    hooks.onHttpRoutes.tap('api/metadata', ({ router }) => {
      router.post('/v1/metadata', metadataRoute(container, 'metadata'));
    });
  },
});
