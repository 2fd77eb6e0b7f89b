/**
 * API limit `batch_limit` (Document 2 §2.4): refuses the operations of a batched request that has
 * more operations than the role's limit, with `batch-limit-exceeded` (each slot of the batch
 * answers the error; nothing of it runs). Taps `onRequestLimit` EARLY, so a refused batch counts
 * against no rate limit. Active only while a batch limit is set. Admin is exempt. Safe to disable.
 */
import {
  definePlugin,
  EngineError,
  isAdmin,
  Stage,
  whenActive,
} from '../../../core/sdk/index.js';
import { limitFor, limitIsSet } from '../../metadata/api-limits/limits.js';

const PLUGIN_ID = 'limits/batch';

export default definePlugin({
  name: 'batch',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    whenActive(container, PLUGIN_ID, limitIsSet((l) => l.batch));
    hooks.onRequestLimit.tap({ name: PLUGIN_ID, stage: Stage.EARLY }, (ctx) => {
      if (isAdmin(ctx.session)) return;
      const max = limitFor(ctx.cache, (l) => l.batch, ctx.session.role);
      if (max === undefined || ctx.operationCount <= max) return;
      throw new EngineError(
        'batch-limit-exceeded',
        `batch limit exceeded: the request has ${ctx.operationCount} operations, more than the limit of ${max}`,
        { path: '$' },
      );
    });
  },
});
