/**
 * API-limit metadata (Document 2 §2.4, §4.4): `set_api_limits` replaces the stored `api_limits`
 * with its args (checked first), `remove_api_limits` (also spelt `remove_api_limit`) removes them.
 * Taps `onMetadataOperation` for those types and `onSchemaCacheBuild` to report stored limits that
 * do not parse. The enforcers are the limits/* plugins; without this plugin limits can still
 * arrive through replace_metadata.
 */
import {
  ARGS_PATH,
  definePlugin,
  inconsistencyDroppers,
  SUCCESS,
} from '../../../core/sdk/index.js';
import { tapPlainOperations, type PlainHandler } from '../query-collections/collections.js';
import { apiLimitsOf, parseApiLimits } from './limits.js';

const PLUGIN_ID = 'metadata/api-limits';

const set: PlainHandler = (ctx, args) => {
  const parsed = parseApiLimits(args, ARGS_PATH);
  ctx.draft.api_limits = { ...args, disabled: parsed.disabled };
  ctx.markChanged();
  return SUCCESS;
};

const remove: PlainHandler = (ctx) => {
  delete ctx.draft.api_limits;
  ctx.markChanged();
  return SUCCESS;
};

export default definePlugin({
  name: 'api-limits',
  kind: 'metadata',
  register(container, hooks) {
    tapPlainOperations(hooks, PLUGIN_ID, { set_api_limits: set, remove_api_limits: remove, remove_api_limit: remove }, ['metadata']);
    inconsistencyDroppers(container).set('api_limits', (draft) => {
      delete draft.api_limits;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      const problem = apiLimitsOf(build.cache).problem;
      if (problem) {
        build.addInconsistency({ type: 'api_limits', name: 'api_limits', definition: build.cache.metadata.api_limits, reason: `Inconsistent object: ${problem}` });
      }
    });
  },
});
