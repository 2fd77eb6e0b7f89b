/**
 * API limit `batch_limit` (Document 2 §2.4): refuses the operations of a batched request that has
 * more operations than the role's limit, with `batch-limit-exceeded` (each slot of the batch
 * answers the error; nothing of it runs). Taps `onRequestLimit` EARLY, so a refused batch counts
 * against no rate limit. Active only while a batch limit is set. Admin is exempt. Safe to disable.
 */
import {
  definePlugin,
  EngineError,
  Stage,
} from '../../../core/sdk/index.js';
import { tapRoleLimit } from '../../metadata/api-limits/tap-role-limit.js';

const PLUGIN_ID = 'limits/batch';

export default definePlugin({
  name: 'batch',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    tapRoleLimit(container, hooks, {
      name: PLUGIN_ID,
      stage: Stage.EARLY,
      limit: 'batch',
      check(ctx, max) {
        if (ctx.operationCount <= max) return;
        throw new EngineError(
          'batch-limit-exceeded',
          `batch limit exceeded: the request has ${ctx.operationCount} operations, more than the limit of ${max}`,
          { path: '$' },
        );
      },
    });
  },
});
