/**
 * `test_webhook_transform` on /v1/metadata: renders a request transform over sample data (mock
 * environment, headers, session variables) and answers the request that would be sent, calling
 * nothing. The transform language itself is core/webhooks, shared by every webhook caller.
 * Taps `onMetadataOperation`; safe to disable (only the test operation goes away).
 */
import { definePlugin, ARGS_PATH, argsObject, testWebhookTransform } from '../../../core/sdk/index.js';

const PLUGIN_ID = 'metadata/webhook-transforms';

export default definePlugin({
  name: 'webhook-transforms',
  kind: 'metadata',
  register(_container, hooks) {
    hooks.onMetadataOperation
      .for('test_webhook_transform')
      .tapPromise(PLUGIN_ID, async (op, ctx) => (ctx.endpoint === 'metadata' ? { body: testWebhookTransform(argsObject(op.args), ARGS_PATH) } : undefined));
  },
});
