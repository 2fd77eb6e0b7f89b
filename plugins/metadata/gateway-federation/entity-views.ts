/**
 * Which of a role's tables are entities: tracked with federation enabled, with a primary key
 * whose columns the role may all select (the `@key` names them, so they must be fields).
 */
import { schemaKit, type SchemaBuildContext, type SchemaDraft, type TableView, type ColumnView } from '../../../core/sdk/index.js';

export interface EntityView {
  view: TableView;
  /** The primary-key columns, in key order, as the role's fields. */
  key: ColumnView[];
}

export function entityViews(draft: SchemaDraft, ctx: SchemaBuildContext): Map<string, EntityView> {
  const kit = schemaKit(draft, ctx);
  const out = new Map<string, EntityView>();
  for (const source of [...ctx.cache.sources.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    for (const view of kit.viewsOf(source.name).values()) {
      const enabled = view.table.metadata.apollo_federation_config?.enable;
      const pk = view.table.primaryKey;
      if (!enabled || !pk || pk.length === 0) continue;
      const key = pk.map((name) => view.columns.find((c) => c.column.name === name));
      if (key.some((c) => c === undefined)) continue;
      // The first source to name a type keeps it, as root fields do.
      if (!out.has(view.names.object)) out.set(view.names.object, { view, key: key as ColumnView[] });
    }
  }
  return out;
}

/** The `fields` of the type's `@key` directive: the key's field names, space separated. */
export const keyFields = (e: EntityView): string => e.key.map((c) => c.field).join(' ');
