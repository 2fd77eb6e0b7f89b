/**
 * Per-role mutation schema for database sources.
 *
 * API:
 *   addMutationsToDraft(draft, source, ctx, naming, selectViews): void
 *     Adds the source's mutation root fields for `ctx.role` to `draft.mutation` (under the
 *     source's root-field namespace, typed `<namespace>_mutation_frontend`, when it has one).
 *     `selectViews` are the role's read views of the source (addSourceToDraft builds them), so
 *     `returning` and `<t>_by_pk` results reuse the query types. Types are shared through the
 *     draft's registry.
 *   buildMutationViews(source, role, naming, selectViews): Map<string, MutationView>
 *
 * The generated types follow the reference engine (names, descriptions, and which exist):
 * `<t>_insert_input`, `<t>_obj_rel_insert_input`, `<t>_arr_rel_insert_input`, `<t>_on_conflict`,
 * `<t>_constraint`, `<t>_update_column`, `<t>_set_input`, `<t>_inc_input`, `<t>_append_input`,
 * `<t>_prepend_input`, `<t>_delete_key_input`, `<t>_delete_elem_input`,
 * `<t>_delete_at_path_input`, `<t>_pk_columns_input`, `<t>_updates`, `<t>_mutation_response`.
 */
import type { ResolvedSource } from '../../../schema-cache/model.js';
import type { NamespacePlanner, RootFieldEntry, SchemaBuildContext, SchemaDraft } from '../../schema-draft.js';
import type { TableView } from '../../plan/view.js';
import { LazyRootType } from '../lazy-schema.js';
import type { Naming } from '../naming.js';
import { registryFor } from '../registry.js';
import { tableMutationFields } from './root-fields.js';
import { buildMutationViews } from './views.js';

export { buildMutationViews, mutationTypeNames } from './views.js';

export function addMutationsToDraft(
  draft: SchemaDraft,
  source: ResolvedSource,
  ctx: SchemaBuildContext,
  naming: Naming,
  selectViews: ReadonlyMap<string, TableView>,
  /** Other mutation root fields of the source (VOLATILE functions), placed alike. */
  extra: ReadonlyMap<string, RootFieldEntry> = new Map(),
): void {
  const reg = registryFor(draft);
  const views = buildMutationViews(source, ctx.role, naming, selectViews);
  const entries = new Map<string, RootFieldEntry>();
  const updateMany = !ctx.config.experimentalFeatures.includes('hide_update_many_fields');
  for (const key of [...views.keys()].sort()) {
    for (const [name, entry] of tableMutationFields(reg, views.get(key)!, updateMany)) {
      if (!entries.has(name)) entries.set(name, entry);
    }
  }
  for (const [name, entry] of extra) if (!entries.has(name)) entries.set(name, entry);
  if (entries.size === 0) return;

  const namespace = source.customization.root_fields?.namespace;
  if (!namespace) {
    // The first source to claim a name keeps it; clashes are the schema cache's to report.
    for (const [name, entry] of entries) if (!draft.mutation.has(name)) draft.mutation.set(name, entry);
    return;
  }
  const existing = draft.mutation.get(namespace);
  if (existing?.planner.kind === 'namespace') {
    for (const [name, entry] of entries) if (!existing.planner.fields.has(name)) existing.planner.fields.set(name, entry);
    return;
  }
  if (existing) return;
  const planner: NamespacePlanner = { kind: 'namespace', fields: entries };
  const type = new LazyRootType(naming.type(`${namespace}_mutation_frontend`), undefined, entries);
  draft.mutation.set(namespace, { config: { type }, planner });
}
