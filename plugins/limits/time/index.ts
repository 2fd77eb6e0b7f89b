/**
 * API limit `time_limit` (Document 2 §2.4): gives the operation the role's time limit in seconds;
 * the executor hands the deadline to the database kind, which cancels the running statement in
 * the database when it passes (a mutation's transaction rolls back) and answers
 * `time-limit-exceeded`. Taps `onRequestLimit` LAST, after every refusal. Active only while a
 * time limit is set. Admin is exempt. Safe to disable.
 */
import {
  definePlugin,
  isAdmin,
  Stage,
  whenActive,
} from '../../../core/sdk/index.js';
import { limitFor, limitIsSet } from '../../metadata/api-limits/limits.js';

const PLUGIN_ID = 'limits/time';

export default definePlugin({
  name: 'time',
  kind: 'limits',
  provides: ['api-limits'],
  register(container, hooks) {
    whenActive(container, PLUGIN_ID, limitIsSet((l) => l.time));
    hooks.onRequestLimit.tap({ name: PLUGIN_ID, stage: Stage.LAST }, (ctx) => {
      if (isAdmin(ctx.session)) return;
      const seconds = limitFor(ctx.cache, (l) => l.time, ctx.session.role);
      if (seconds !== undefined) ctx.timeLimitSeconds = seconds;
    });
  },
});
