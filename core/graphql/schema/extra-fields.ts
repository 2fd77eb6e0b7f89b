/**
 * The role's table views of one schema build, made once per source and draft, with the fields
 * other plugins add to row types (remote relationships) attached. Both the source's own root
 * fields and a plugin reaching into another source (a relationship to a table there) use these,
 * so one table has one view, and one row type, per role schema.
 */
import type { ResolvedSource } from '../../schema-cache/model.js';
import type { ExtraTableField, SchemaBuildContext, SchemaDraft, SchemaKit } from '../schema-draft.js';
import type { TableView } from '../plan/view.js';
import { namingOf } from './naming.js';
import { buildTableViews } from './views.js';
import { registryFor } from './registry.js';
import { aggregateType, objectType, selectArgs } from './objects.js';

const built = new WeakMap<SchemaDraft, Map<string, Map<string, TableView>>>();

const NO_VIEWS: ReadonlyMap<string, TableView> = new Map();

export function roleViews(draft: SchemaDraft, source: ResolvedSource, ctx: SchemaBuildContext): Map<string, TableView> {
  let bySource = built.get(draft);
  if (!bySource) built.set(draft, (bySource = new Map()));
  const known = bySource.get(source.name);
  if (known) return known;
  // Views are shared only as built: a plugin adapting them or adding fields to them does so per
  // draft. (Roles are given shared views only while the metadata has no remote relationship, the
  // one kind of field added here; a view that gets one anyway is kept to this draft.)
  const sharing = draft.sharedViews !== undefined && draft.adaptViews === undefined;
  const shared = sharing ? draft.sharedViews!.get(source.name) : undefined;
  if (shared) {
    bySource.set(source.name, shared);
    return shared;
  }
  const made = buildTableViews(source, ctx.role, namingOf(source.customization), {
    optimisePermissionFilters: ctx.config.experimentalFeatures.includes('optimise_permission_filters'),
  });
  const views = draft.adaptViews ? draft.adaptViews(made, source) : made;
  // Registered before the extensions run: they may ask for this source's views again.
  bySource.set(source.name, views);
  let extended = false;
  if (draft.tableFields.length > 0) {
    const kit = schemaKit(draft, ctx);
    for (const view of views.values()) {
      const extra = new Map<string, ExtraTableField>();
      for (const ext of draft.tableFields) for (const f of ext.fieldsFor(view, kit)) if (!extra.has(f.field)) extra.set(f.field, f);
      if (extra.size > 0) {
        (view as { extraFields?: ReadonlyMap<string, ExtraTableField> }).extraFields = extra;
        extended = true;
      }
    }
  }
  if (sharing && !extended) draft.sharedViews!.set(source.name, views);
  return views;
}

/** The kit of one role schema build (a plugin adding fields to other types uses it too). */
export function schemaKit(draft: SchemaDraft, ctx: SchemaBuildContext): SchemaKit {
  const reg = registryFor(draft);
  return {
    role: ctx.role,
    viewsOf(name) {
      const source = ctx.cache.sources.get(name);
      return source ? roleViews(draft, source, ctx) : NO_VIEWS;
    },
    objectType: (view) => objectType(reg, view),
    selectArgs: (view) => selectArgs(reg, view),
    aggregateType: (view) => aggregateType(reg, view),
  };
}
