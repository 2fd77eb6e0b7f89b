/**
 * API limit `time_limit` (Document 2 §2.4): gives the operation the role's time limit in seconds;
 * the executor hands the deadline to the database kind, which cancels the running statement in
 * the database when it passes (a mutation's transaction rolls back) and answers
 * `time-limit-exceeded`. Taps `onRequestLimit` LAST, after every refusal. Active only while a
 * time limit is set. Admin is exempt. Safe to disable.
 */
import {
  definePlugin,
  Stage,
} from '../../../core/sdk/index.js';
import { tapRoleLimit } from '../../metadata/api-limits/tap-role-limit.js';

const PLUGIN_ID = 'limits/time';

export default definePlugin({
  name: 'time',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    tapRoleLimit(container, hooks, {
      name: PLUGIN_ID,
      stage: Stage.LAST,
      limit: 'time',
      check(ctx, seconds) {
        ctx.timeLimitSeconds = seconds;
      },
    });
  },
});
