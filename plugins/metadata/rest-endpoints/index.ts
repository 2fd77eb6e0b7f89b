/**
 * REST endpoints as metadata (Document 1 §2.13, §4.11): create_rest_endpoint and
 * drop_rest_endpoint on `onMetadataOperation` (both endpoints, the legacy /v1/query too), and on
 * `onSchemaCacheBuild` the endpoints that cannot be served are reported as inconsistent objects.
 * The api/rest plugin serves them. Safe to disable together with api/rest.
 */
import { definePlugin, inconsistencyDroppers, Stage } from '../../../core/sdk/index.js';
import { restEndpointsOf, tapPlainOperations } from '../query-collections/collections.js';
import { REST_ENDPOINT_OPERATIONS } from './operations.js';
import { resolvedEndpoints } from './resolve.js';

const PLUGIN_ID = 'metadata/rest-endpoints';

export default definePlugin({
  name: 'rest-endpoints',
  kind: 'metadata',
  dependsOn: ['metadata/query-collections'],
  register(container, hooks) {
    tapPlainOperations(hooks, PLUGIN_ID, REST_ENDPOINT_OPERATIONS);
    inconsistencyDroppers(container).set('rest_endpoint', (draft, o) => {
      const name = o.name.replace(/^rest_endpoint /, '');
      draft.rest_endpoints = restEndpointsOf(draft).filter((e) => e.name !== name) as unknown as Record<string, unknown>[];
    });
    // LATE, like query collections: endpoints are checked against the whole schema.
    hooks.onSchemaCacheBuild.tap({ name: PLUGIN_ID, stage: Stage.LATE }, (build) => {
      for (const problem of resolvedEndpoints(build.cache).problems) build.addInconsistency(problem);
    });
  },
});
