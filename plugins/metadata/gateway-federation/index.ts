/**
 * Apollo Federation subgraph support (`--experimental-features gateway_federation`, the
 * reference's `apollo_federation`): tables tracked with `gateway_federation_config: {enable:
 * "v1"}` (stored as `apollo_federation_config`, metadata/tables) become entities. Taps
 * `onSchemaBuild` LATE, after the sources: when the feature is on it adds `_service { sdl }` to
 * every role's `query_root` and, when the role sees at least one entity, `_entities` with the
 * `_Any`, `_Entity` and `_Service` types. Provides `gateway-federation`; safe to disable (the
 * feature is then refused at boot, and the stored setting stays inert as without the flag).
 */
import { definePlugin, Stage } from '../../../core/sdk/index.js';
import { addFederationFields } from './schema.js';

const PLUGIN_ID = 'metadata/gateway-federation';
export const FEATURE_FLAG = 'gateway_federation';

export default definePlugin({
  name: 'gateway-federation',
  kind: 'metadata',
  provides: ['gateway-federation'],
  register(_container, hooks) {
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.LATE }, (draft, ctx) => {
      if (!ctx.config.experimentalFeatures.includes(FEATURE_FLAG)) return draft;
      addFederationFields(draft, ctx);
      return draft;
    });
  },
});
