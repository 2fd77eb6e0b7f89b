/**
 * API limit `depth_limit` (Document 2 §2.4): refuses an operation nested deeper than the role's
 * limit (`global` unless the role has its own), with `depth-limit-exceeded`. Taps
 * `onRequestLimit`; active only while a depth limit is set and limits are not disabled. Admin is
 * exempt. Safe to disable (depth limits in the metadata are then not enforced).
 */
import {
  definePlugin,
  EngineError,
} from '../../../core/sdk/index.js';
import { tapRoleLimit } from '../../metadata/api-limits/tap-role-limit.js';
import { measuresOf } from '../../metadata/api-limits/measure.js';

const PLUGIN_ID = 'limits/depth';

export default definePlugin({
  name: 'depth',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    tapRoleLimit(container, hooks, {
      name: PLUGIN_ID,
      limit: 'depth',
      check(ctx, max) {
        const depth = measuresOf(ctx.operation).depth;
        if (depth > max) {
          throw new EngineError('depth-limit-exceeded', `depth limit exceeded: the operation is nested ${depth} levels deep, more than the limit of ${max}`, {
            path: '$',
          });
        }
      },
    });
  },
});
