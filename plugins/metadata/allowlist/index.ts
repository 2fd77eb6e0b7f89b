/**
 * The allow-list (Document 1 §2.12, §4.10; Document 2 --enable-allowlist). Operations:
 * add_collection_to_allowlist, update_scope_of_collection_in_allowlist,
 * drop_collection_from_allowlist (on `onMetadataOperation`). With --enable-allowlist, taps
 * `onRequestLimit` and refuses any operation of a non-admin role whose document (normalised as the
 * reference does) is not in a globally listed collection or one scoped to the role: over HTTP,
 * REST endpoints and websockets alike, since the check runs in the executor. Also reports allow-list
 * entries that cannot be served on `onSchemaCacheBuild`. Provides the `allowlist` feature:
 * disabling it while --enable-allowlist is set leaves the option without effect, which the engine
 * must refuse.
 */
import {
  definePlugin,
  EngineError,
  inconsistencyDroppers,
  isAdmin,
  type ServerConfig,
  whenActive,
} from '../../../core/sdk/index.js';
import { allowlistOf } from '../query-collections/collections.js';
import { tapPlainOperations } from '../query-collections/collections.js';
import { ALLOWLIST_OPERATIONS } from './operations.js';
import { inlinedAllowlist, reportAllowlistProblems } from './resolve.js';
import { canonicalQueryOf } from './normalise.js';

const PLUGIN_ID = 'metadata/allowlist';

export default definePlugin({
  name: 'allowlist',
  kind: 'metadata',
  provides: ['allowlist'],
  dependsOn: ['metadata/query-collections'],
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    tapPlainOperations(hooks, PLUGIN_ID, ALLOWLIST_OPERATIONS);
    inconsistencyDroppers(container).set('allowlist', (draft, o) => {
      const collection = (o.definition as { collection?: unknown } | null)?.collection;
      draft.allowlist = allowlistOf(draft).filter((e) => e.collection !== collection) as unknown as Record<string, unknown>[];
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, reportAllowlistProblems);
    if (!config.enableAllowlist) return;
    whenActive(container, PLUGIN_ID, () => true);
    hooks.onRequestLimit.tap(PLUGIN_ID, (ctx) => {
      if (isAdmin(ctx.session)) return;
      const allowed = inlinedAllowlist(ctx.cache);
      const text = canonicalQueryOf(ctx.operation.document);
      if (allowed.global.has(text) || allowed.perRole.get(ctx.session.role)?.has(text)) return;
      throw new EngineError('validation-failed', 'query is not allowed', {
        path: '$',
        internal: { message: 'query is not in any of the allowlists' },
      });
    });
  },
});
