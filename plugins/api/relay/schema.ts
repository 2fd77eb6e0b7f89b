/**
 * A role's Relay schema, built from the same snapshot as its `/v1/graphql` schema and kept for
 * the snapshot's lifetime: `query_root` (and `subscription_root`) with `<t>_connection` per
 * table with a `Node` the role may select, `<fn>_connection` per tracked function returning such
 * rows, and `node(id:)`; no `<t>`, `<t>_by_pk` or aggregates,
 * as the reference. `mutation_root` is the sources' ordinary mutations (the core's, over the
 * Relay views, so `returning` rows carry global ids); actions and remote schemas are not part of
 * it. Sources whose kind lacks the `relay` capability are left out.
 */
import {
  GraphQLID,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  assertValidSchema,
  type GraphQLFieldConfigMap,
} from 'graphql';
import {
  addSourceToDraft,
  ARGS_FIELD,
  argsArgument,
  argumentsOf,
  buildCall,
  functionViews,
  namingOf,
  withArgs,
  type NamespacePlanner,
  type FunctionView,
  boolExpType,
  emptySchemaDraft,
  orderByType,
  selectColumnEnum,
  objectType,
  qualifiedTableName,
  registryFor,
  type ServerConfig,
  type CollectedField,
  type DbRootFieldPlanner,
  type ExtraTableField,
  type FieldIR,
  type PlanContext,
  type RelationshipView,
  type RoleSchema,
  type RootFieldEntry,
  type SchemaCache,
} from '../../../core/sdk/index.js';
import { buildConnection, connectionArgs, connectionType } from './connection.js';
import { NODE_INTERFACE, nodePlanner } from './node.js';
import { relayViews, type RelayView } from './views.js';

const NO_QUERIES_FIELD = 'no_queries_available';

const built = new WeakMap<SchemaCache, Map<string, Promise<RoleSchema>>>();

/** The role's Relay schema of this snapshot, built on first use. */
export function relaySchemaFor(cache: SchemaCache, role: string, config: ServerConfig): Promise<RoleSchema> {
  let byRole = built.get(cache);
  if (!byRole) built.set(cache, (byRole = new Map()));
  let schema = byRole.get(role);
  if (!schema) {
    schema = Promise.resolve().then(() => buildRelaySchema(cache, role, config));
    byRole.set(role, schema);
    // A failed build is not kept: the next request tries again (and reports the error again).
    schema.catch(() => byRole.delete(role));
  }
  return schema;
}

function buildRelaySchema(cache: SchemaCache, role: string, config: ServerConfig): RoleSchema {
  const draft = emptySchemaDraft();
  const reg = registryFor(draft);
  let node: GraphQLInterfaceType | undefined;
  const nodeInterface = (): GraphQLInterfaceType =>
    (node ??= new GraphQLInterfaceType({
      name: NODE_INTERFACE,
      description: 'An object with globally unique ID',
      fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier' } },
    }));
  const connectionField = (rel: RelationshipView & { target: RelayView }, name: string): ExtraTableField => ({
    field: name,
    config: () => ({
      type: new GraphQLNonNull(connectionType(reg, rel.target)),
      args: connectionArgs(reg, rel.target),
      description: rel.rel.comment ?? 'An array relationship connection',
    }),
    plan: (f: CollectedField, ctx: PlanContext, path: string): FieldIR => ({
      kind: 'arrayConnection',
      alias: f.key,
      mapping: rel.rel.mapping,
      connection: buildConnection(rel.target, f, ctx, path),
    }),
  });

  // The core builds the sources' views (and mutations) through this: every type reads Relay views.
  const relayBySource = new Map<string, Map<string, RelayView>>();
  draft.adaptViews = (views, source) => {
    // Inputs (`where`, `order_by`, `distinct_on`) are the ordinary views' everywhere, mutations'
    // included: registered first, the registry hands these out to every later asker.
    for (const view of views.values()) {
      boolExpType(reg, view);
      orderByType(reg, view);
      if (view.distinctOn !== false) selectColumnEnum(reg, view);
    }
    const adapted = relayViews(views, { nodeInterface, connectionField });
    relayBySource.set(source.name, adapted);
    return adapted;
  };

  const query = new Map<string, RootFieldEntry>();
  const subscription = new Map<string, RootFieldEntry>();
  const nodeTables: RelayView[] = [];
  let nodeSubscriptions = false;
  for (const source of [...cache.sources.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (source.capabilities?.relay !== true) continue;
    addSourceToDraft(draft, source, { role, cache, config }, { mutations: source.capabilities.mutations === true });
    const views = relayBySource.get(source.name) ?? new Map<string, RelayView>();
    const live = source.capabilities.subscriptions === true;
    const sourceQuery = new Map<string, RootFieldEntry>();
    const sourceSubscription = new Map<string, RootFieldEntry>();
    for (const key of [...views.keys()].sort()) {
      const view = views.get(key)!;
      if (!view.nodeKey) continue;
      nodeTables.push(view);
      nodeSubscriptions ||= live;
      const name = `${view.naming.rootFields(view.table).select}_connection`;
      const entry: RootFieldEntry = {
        config: {
          type: new GraphQLNonNull(connectionType(reg, view)),
          args: connectionArgs(reg, view),
          description: `fetch data from the table: "${qualifiedTableName(view.table.table)}"`,
        },
        planner: connectionPlanner(view),
      };
      if (allows(view.access.queryRootFields) && !sourceQuery.has(name)) sourceQuery.set(name, entry);
      if (live && allows(view.access.subscriptionRootFields) && !sourceSubscription.has(name)) sourceSubscription.set(name, entry);
    }
    // Tracked functions returning rows of a table with a Node: `<fn>_connection`, under both roots.
    for (const fv of functionViews(source, role, views, config.inferFunctionPermissions)) {
      const target = fv.target as RelayView;
      if (fv.fn.exposedAs !== 'query' || !target.nodeKey) continue;
      const name = `${fv.fn.rootFields.function}_connection`;
      const description = `execute function "${qualifiedTableName(fv.fn.function)}" which returns "${qualifiedTableName(target.table.table)}"`;
      const args = argsArgument(reg, fv.fn.argsTypeName, fv.args, `input parameters for function "${name}"`);
      const entry: RootFieldEntry = {
        config: { type: new GraphQLNonNull(connectionType(reg, target)), args: withArgs(args, connectionArgs(reg, target)), description },
        planner: functionConnectionPlanner(fv, target),
      };
      if (!sourceQuery.has(name)) sourceQuery.set(name, entry);
      if (live && !sourceSubscription.has(name)) sourceSubscription.set(name, entry);
    }
    // A source's root-field namespace holds its connections, as its mutations (the core's); `node` stays at the root.
    const namespace = source.customization.root_fields?.namespace;
    const naming = namingOf(source.customization);
    placeIn(query, sourceQuery, namespace, () => naming.type(`${namespace}_query`));
    placeIn(subscription, sourceSubscription, namespace, () => naming.type(`${namespace}_subscription`));
  }
  if (nodeTables.length > 0) {
    const entry: RootFieldEntry = {
      config: {
        type: nodeInterface(),
        args: { id: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique id' } },
        description: 'fetch the row with the given global id',
      },
      planner: nodePlanner(nodeTables),
    };
    query.set('node', entry);
    if (nodeSubscriptions) subscription.set('node', entry);
  }

  const schema = new GraphQLSchema({
    query: rootType('query_root', 'query root', query),
    mutation: draft.mutation.size > 0 ? rootType('mutation_root', 'mutation root', draft.mutation) : null,
    subscription: subscription.size > 0 ? rootType('subscription_root', 'subscription root', subscription) : null,
    // Every table type implementing Node must be known to the schema, reachable from a root or not.
    types: nodeTables.map((view) => objectType(reg, view)),
  });
  assertValidSchema(schema);
  return { role, schema, roots: { query, mutation: new Map(draft.mutation), subscription } };
}

const allows = (only: readonly string[] | null): boolean => only === null || only.includes('select');

function connectionPlanner(view: RelayView): DbRootFieldPlanner {
  return {
    kind: 'db',
    source: view.source,
    buildIR: (field, _parent, ctx) => {
      const key = field.alias?.value ?? field.name.value;
      const collected: CollectedField = { key, name: field.name.value, nodes: [field] };
      return { kind: 'connection', source: view.source, connection: buildConnection(view, collected, ctx, `$.selectionSet.${key}`) };
    },
  };
}

function functionConnectionPlanner(fv: FunctionView, target: RelayView): DbRootFieldPlanner {
  return {
    kind: 'db',
    source: target.source,
    buildIR: (field, _parent, ctx) => {
      const key = field.alias?.value ?? field.name.value;
      const path = `$.selectionSet.${key}`;
      const collected: CollectedField = { key, name: field.name.value, nodes: [field] };
      const call = buildCall(fv.fn.function, fv.fn.args, fv.args, argumentsOf(field).get(ARGS_FIELD), fv.fn.argsTypeName, ctx, `${path}.args.${ARGS_FIELD}`);
      return { kind: 'connection', source: target.source, connection: { ...buildConnection(target, collected, ctx, path), function: call } };
    },
  };
}

/** The source's entries at the root, or under its namespace (shared with other sources naming it). */
function placeIn(root: Map<string, RootFieldEntry>, entries: Map<string, RootFieldEntry>, namespace: string | undefined, typeName: () => string): void {
  if (entries.size === 0) return;
  if (!namespace) {
    for (const [name, entry] of entries) if (!root.has(name)) root.set(name, entry);
    return;
  }
  const existing = root.get(namespace);
  if (existing?.planner.kind === 'namespace') {
    for (const [name, entry] of entries) if (!existing.planner.fields.has(name)) existing.planner.fields.set(name, entry);
    return;
  }
  if (existing) return;
  const planner: NamespacePlanner = { kind: 'namespace', fields: entries };
  root.set(namespace, { config: { type: new GraphQLObjectType({ name: typeName(), fields: () => fieldMap(entries) }) }, planner });
}

function fieldMap(entries: ReadonlyMap<string, RootFieldEntry>): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const k of [...entries.keys()].sort()) fields[k] = entries.get(k)!.config;
  return fields;
}

function rootType(name: string, description: string, entries: ReadonlyMap<string, RootFieldEntry>): GraphQLObjectType {
  if (entries.size === 0) {
    // As `/v1/graphql`: a role that can query nothing gets the placeholder field.
    return new GraphQLObjectType({
      name,
      description,
      fields: { [NO_QUERIES_FIELD]: { type: new GraphQLNonNull(GraphQLString), description: 'There are no queries available to the current role.' } },
    });
  }
  return new GraphQLObjectType({ name, description, fields: fieldMap(entries) });
}
