/**
 * Per-role GraphQL schema generation for database sources (read API).
 *
 * API:
 *   addSourceToDraft(draft: SchemaDraft, source: ResolvedSource, ctx: SchemaBuildContext): SchemaDraft
 *     Adds the source's read root fields for `ctx.role` (`<t>`, `<t>_by_pk`, `<t>_aggregate`) to
 *     `draft.query` and, mirrored, to `draft.subscription`; under the source's root-field
 *     namespace when it has one (a NamespacePlanner entry). Each entry carries its GraphQL field
 *     config and a DbRootFieldPlanner whose `buildIR` makes the RootFieldIR (see ../plan).
 *     Types are shared per draft: call it with the same draft object for every source of a role.
 *     Also adds the source's mutation root fields to `draft.mutation` (./mutation), and the
 *     root fields of the tracked functions the role may call (./function-fields.ts).
 *   assembleRoleSchema(draft: SchemaDraft, role: string): RoleSchema
 *     The role's GraphQLSchema (`query_root`, optional `mutation_root` and `subscription_root`;
 *     `no_queries_available: String!` when there is nothing to query), built as requests reach
 *     its types and validated when it is completed (./lazy-schema.ts).
 *   shareRoleSchema(draft: SchemaDraft, role: string, built: RoleSchema): RoleSchema | null
 *     The role's planners over another role's schema of the same shape (no types built); null
 *     when the root fields differ.
 *
 * Permissions are folded in while generating: a non-admin role sees a table only through its
 * select permission, only the permitted columns, relationships only to tables it may select, and
 * aggregates only with `allow_aggregations`.
 */
import type { GraphQLFieldConfig } from 'graphql';
import type { ResolvedSource } from '../../schema-cache/model.js';
import type { NamespacePlanner, RootFieldEntry, SchemaBuildContext, SchemaDraft } from '../schema-draft.js';
import { namingOf } from './naming.js';
import { registryFor } from './registry.js';
import { tableRootFields, type ReadRoot } from './root-fields.js';
import { roleViews } from './extra-fields.js';
import { LazyRootType } from './lazy-schema.js';
import { addMutationsToDraft } from './mutation/index.js';
import { functionViews } from './function-views.js';
import { functionRootFields } from './function-fields.js';

export { assembleRoleSchema, shareRoleSchema, NO_QUERIES_FIELD } from './assemble.js';
export { Naming, namingConventionOf, namingOf, tableTypeNames, type NamingConvention, type TableTypeNames } from './naming.js';
export { buildTableViews } from './views.js';

export interface AddSourceOptions {
  /** Whether the source's kind can write (`mutations` capability); without it no mutation root fields. Default true. */
  mutations?: boolean;
}

export function addSourceToDraft(draft: SchemaDraft, source: ResolvedSource, ctx: SchemaBuildContext, options: AddSourceOptions = {}): SchemaDraft {
  const reg = registryFor(draft);
  reg.aggregatePredicates = !ctx.config.experimentalFeatures.includes('hide_aggregation_predicates');
  const naming = namingOf(source.customization);
  const views = roleViews(draft, source, ctx);
  const functions = functionRootFields(reg, functionViews(source, ctx.role, views, ctx.config.inferFunctionPermissions));
  // Mutation fields first: a role may write a table it cannot read.
  if (options.mutations !== false) addMutationsToDraft(draft, source, ctx, naming, views, functions.mutation);

  const streams = !ctx.config.experimentalFeatures.includes('hide_stream_fields');
  const keys = [...views.keys()].sort();
  const rootEntries = (root: ReadRoot): Map<string, RootFieldEntry> => {
    const entries = new Map<string, RootFieldEntry>();
    for (const key of keys) {
      for (const [name, entry] of tableRootFields(reg, views.get(key)!, root, streams)) {
        if (!entries.has(name)) entries.set(name, entry);
      }
    }
    for (const [name, entry] of functions.query) if (!entries.has(name)) entries.set(name, entry);
    return entries;
  };
  const namespace = source.customization.root_fields?.namespace;
  addRootEntries(draft.query, rootEntries('query'), namespace, naming.type(`${namespace}_query`));
  // A kind declaring capabilities but not `subscriptions` cannot run them: no subscription fields.
  if (source.capabilities === undefined || source.capabilities.subscriptions === true) {
    addRootEntries(draft.subscription, rootEntries('subscription'), namespace, naming.type(`${namespace}_subscription`));
  }
  return draft;
}

/** Adds a source's entries to one root, under the source's namespace when it has one. */
function addRootEntries(root: Map<string, RootFieldEntry>, entries: Map<string, RootFieldEntry>, namespace: string | undefined, nsType: string): void {
  if (entries.size === 0) return;
  if (!namespace) {
    // The first source to claim a name keeps it; clashes are the schema cache's to report.
    for (const [name, entry] of entries) if (!root.has(name)) root.set(name, entry);
    return;
  }
  const existing = root.get(namespace);
  if (existing?.planner.kind === 'namespace') {
    for (const [name, entry] of entries) if (!existing.planner.fields.has(name)) existing.planner.fields.set(name, entry);
    return;
  }
  if (!existing) root.set(namespace, namespaceEntry(nsType, entries));
}

/** A root field grouping other root fields; its type reads the map when first read, so later sources can add to it. */
function namespaceEntry(typeName: string, fields: Map<string, RootFieldEntry>): RootFieldEntry {
  const planner: NamespacePlanner = { kind: 'namespace', fields };
  const type = new LazyRootType(typeName, undefined, fields);
  const config: GraphQLFieldConfig<unknown, unknown> = { type };
  return { config, planner };
}
