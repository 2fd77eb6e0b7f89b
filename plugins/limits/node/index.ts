/**
 * API limit `node_limit` (Document 2 §2.4): refuses an operation with more nodes (fields that
 * have a selection set) than the role's limit, with `node-limit-exceeded`. Taps `onRequestLimit`;
 * active only while a node limit is set and limits are not disabled. Admin is exempt. Safe to
 * disable (node limits in the metadata are then not enforced).
 */
import {
  definePlugin,
  EngineError,
} from '../../../core/sdk/index.js';
import { tapRoleLimit } from '../../metadata/api-limits/tap-role-limit.js';
import { measuresOf } from '../../metadata/api-limits/measure.js';

const PLUGIN_ID = 'limits/node';

export default definePlugin({
  name: 'node',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    tapRoleLimit(container, hooks, {
      name: PLUGIN_ID,
      limit: 'node',
      check(ctx, max) {
        const nodes = measuresOf(ctx.operation).nodes;
        if (nodes > max) {
          throw new EngineError('node-limit-exceeded', `node limit exceeded: the operation has ${nodes} nodes, more than the limit of ${max}`, { path: '$' });
        }
      },
    });
  },
});
