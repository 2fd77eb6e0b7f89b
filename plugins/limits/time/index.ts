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
  tapLimit,
} from '../../../core/sdk/index.js';
import { limitIsSet, roleLimits } from '../../metadata/api-limits/limits.js';

const PLUGIN_ID = 'limits/time';

export default definePlugin({
  name: 'time',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    tapLimit(container, hooks, {
      name: PLUGIN_ID,
      stage: Stage.LAST,
      activeIn: limitIsSet((l) => l.time),
      activeFor: (cache, role) => roleLimits(cache, role).time !== undefined,
      check(ctx) {
        const seconds = roleLimits(ctx.cache, ctx.session.role).time;
        if (seconds !== undefined) ctx.timeLimitSeconds = seconds;
      },
    });
  },
});
