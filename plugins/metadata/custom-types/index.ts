/**
 * Custom GraphQL types (Document 1 §2.10, §4.9): `set_custom_types` replaces the set (on
 * /v1/metadata and the legacy /v1/query); on `onSchemaCacheBuild` the set is validated against
 * itself and the sources (resolve.ts) and reported as the inconsistent object `custom_types` when
 * it fails. The types reach a role's schema through the actions that use them
 * (metadata/actions). Safe to disable only together with metadata/actions.
 */
import {
  ARGS_PATH,
  assertConsistent,
  definePlugin,
  inconsistencyDroppers,
  registerMetadataOperations,
  SUCCESS,
  type OperationHandler,
} from '../../../core/sdk/index.js';
import { parseCustomTypes } from './parse.js';
import { customTypesOf } from './resolve.js';

const PLUGIN_ID = 'metadata/custom-types';

const setCustomTypes: OperationHandler = async (op, ctx) => {
  const def = parseCustomTypes(op.args ?? {}, ARGS_PATH);
  if (Object.keys(def).length === 0) delete ctx.draft.custom_types;
  else ctx.draft.custom_types = def as Record<string, unknown>;
  ctx.markChanged();
  await assertConsistent(ctx, ['custom_types']);
  return SUCCESS;
};

export default definePlugin({
  name: 'custom-types',
  kind: 'metadata',
  register(container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, {
      unprefixed: { set_custom_types: setCustomTypes },
      endpoints: { unprefixed: ['metadata', 'query'] },
    });
    inconsistencyDroppers(container).set('custom_types', (draft) => {
      delete draft.custom_types;
    });
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => {
      for (const problem of customTypesOf(build.cache).problems) build.addInconsistency(problem);
    });
  },
});
