/**
 * Remote relationships (Document 1 §2.6, §4.5): from a table to a remote schema field or to a
 * table of another source, and from a remote schema type to either. Taps `onMetadataOperation`
 * (`<prefix>_create/update/delete_remote_relationship` for kinds with `remoteRelationships`,
 * their legacy /v1/query names, `create/update/delete_remote_schema_remote_relationship`),
 * `onSchemaCacheBuild` (checks them, reports what does not resolve) and `onSchemaBuild` EARLY
 * (puts its table-field extension in the draft before the database plugins build row types);
 * adds remote-type fields through the remote-schemas plugin. Joins are batched: one call per
 * relationship and level for all parent rows. Safe to disable: the fields disappear.
 */
import { definePlugin, inconsistencyDroppers, registerMetadataOperations, Stage, toQualifiedTable } from '../../../core/sdk/index.js';
import { remotesOf } from '../remote-schemas/operations.js';
import { remoteTypeFieldProviders } from '../remote-schemas/index.js';
import { tapPlainOperations } from '../query-collections/collections.js';
import { REMOTE_OPERATIONS, TABLE_OPERATIONS } from './operations.js';
import { resolveRelationships } from './resolve.js';
import { remoteTypeFields, tableExtension } from './schema.js';

const PLUGIN_ID = 'metadata/remote-relationships';

export default definePlugin({
  name: 'remote-relationships',
  kind: 'metadata',
  dependsOn: ['metadata/remote-schemas'],
  register(container, hooks) {
    registerMetadataOperations(hooks, PLUGIN_ID, { prefixed: TABLE_OPERATIONS, requires: 'remoteRelationships' });
    tapPlainOperations(hooks, PLUGIN_ID, REMOTE_OPERATIONS, ['metadata']);
    hooks.onSchemaCacheBuild.tap(PLUGIN_ID, (build) => resolveRelationships(build));
    hooks.onSchemaBuild.tap({ name: PLUGIN_ID, stage: Stage.EARLY }, (draft, ctx) => {
      draft.tableFields.push(tableExtension(draft, ctx));
      return draft;
    });
    remoteTypeFieldProviders(container).push(remoteTypeFields);

    const droppers = inconsistencyDroppers(container);
    droppers.set('remote_relationship', (draft, o) => {
      const def = o.definition as { name?: string; source?: string; table?: unknown };
      const table = toQualifiedTable(def.table);
      const source = draft.sources.find((s) => s.name === def.source);
      const meta = table && source?.tables.find((t) => t.table.schema === table.schema && t.table.name === table.name);
      if (!meta) return;
      meta.remote_relationships = (meta.remote_relationships ?? []).filter((r) => r['name'] !== def.name);
      if (meta.remote_relationships.length === 0) delete meta.remote_relationships;
    });
    droppers.set('remote_schema_remote_relationship', (draft, o) => {
      const def = o.definition as { remote_schema?: string; type_name?: string; name?: string };
      const remote = remotesOf(draft).find((r) => r.name === def.remote_schema);
      const group = remote?.remote_relationships?.find((g) => g.type_name === def.type_name);
      if (group) group.relationships = group.relationships.filter((r) => r['name'] !== def.name);
    });
  },
});
