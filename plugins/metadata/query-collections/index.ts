/**
 * Query collections (Document 1 §2.12, §4.10): create_query_collection, rename_query_collection,
 * drop_query_collection, add_query_to_collection, drop_query_from_collection. Taps
 * `onMetadataOperation` for those types and `onSchemaCacheBuild` to validate every listed query
 * against the admin schema. The allow-list and REST endpoints build on the collections, so
 * disabling this plugin leaves them without a way to define their queries.
 */
import { definePlugin, inconsistencyDroppers, Stage } from '../../../core/sdk/index.js';
import { collectionsOf, tapPlainOperations } from './collections.js';
import { COLLECTION_OPERATIONS } from './operations.js';
import { validateCollections } from './validate.js';

const PLUGIN_ID = 'metadata/query-collections';

export default definePlugin({
  name: 'query-collections',
  kind: 'metadata',
  register(container, hooks) {
    tapPlainOperations(hooks, PLUGIN_ID, COLLECTION_OPERATIONS);
    // A listed query that does not validate is dropped from its collection; a malformed collection whole.
    inconsistencyDroppers(container).set('query_collections', (draft, o) => {
      const m = /^query_collections (?:(.*) in )?(.*)$/.exec(o.name);
      if (!m) return;
      const [, query, collection] = m;
      if (query === undefined) {
        draft.query_collections = collectionsOf(draft).filter((c) => c.name !== collection) as unknown as Record<string, unknown>[];
        return;
      }
      const c = collectionsOf(draft).find((x) => x.name === collection);
      if (c) c.definition.queries = c.definition.queries.filter((q) => q.name !== query);
    });
    // LATE: queries are validated against the whole schema, after remote schemas, actions and
    // other contributors have added theirs (a role's schema is built once per snapshot).
    hooks.onSchemaCacheBuild.tapPromise({ name: PLUGIN_ID, stage: Stage.LATE }, validateCollections);
  },
});
