/**
 * What `onSchemaBuild` passes along: the root fields of one role's schema as they are being
 * assembled. Each root field carries its GraphQL definition and how to plan it, so the executor
 * never runs resolvers for database fields.
 */
import type {
  GraphQLFieldConfigArgumentMap,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLFieldConfig,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
} from 'graphql';
import type { ExternalContext, FieldIR, RootFieldIR, StreamIR } from './ir.js';
import type { CollectedField } from './plan/selection.js';
import type { TableView } from './plan/view.js';
import type { MutationIR } from './ir-mutation.js';
import type { SchemaCache } from '../schema-cache/cache.js';
import type { ResolvedSource } from '../schema-cache/model.js';
import type { ServerConfig } from '../config/types.js';

/** Plan-time context for turning one GraphQL root field into IR. */
export interface PlanContext {
  schema: GraphQLSchema;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  role: string;
  /**
   * Reads a variable whose value shapes the statement (a whole `where` object, `@include(if:)`,
   * `order_by`, `distinct_on`); the executor keys the plan on the values read this way. Scalar
   * leaves should become `{kind: 'variable'}` values instead, so plans are shared.
   */
  readVariable(name: string): unknown;
  /** Whether the operation declares the variable (so a `{kind: 'variable'}` value may refer to it). */
  hasVariable(name: string): boolean;
  /** The declared GraphQL type of a variable, as written (e.g. `Int!`). */
  variableType(name: string): string | undefined;
  /** The operation being planned; subscriptions plan IR for multiplexing instead of statements. */
  operation?: 'query' | 'mutation' | 'subscription';
}

export interface DbRootFieldPlanner {
  kind: 'db';
  source: string;
  /** Build the IR of one occurrence of this root field (`field.alias` is the response key). */
  buildIR(field: FieldNode, parentType: GraphQLObjectType, ctx: PlanContext): RootFieldIR;
  /**
   * Set on mutation root fields only (and then `buildIR` is never called): the mutation IR of
   * one occurrence. Kept on the `db` planner kind, so code that walks root fields by kind keeps
   * working; the executor tells mutations apart by this member.
   */
  buildMutationIR?(field: FieldNode, parentType: GraphQLObjectType, ctx: PlanContext): MutationIR;
  /** Set on streaming subscription fields only (`<t>_stream`); then `buildIR` is never called. */
  buildStreamIR?(field: FieldNode, parentType: GraphQLObjectType, ctx: PlanContext): StreamIR;
}

/** A root field that is an object grouping other root fields (a source's root-field namespace). */
export interface NamespacePlanner {
  kind: 'namespace';
  fields: Map<string, RootFieldEntry>;
}

/**
 * A root field answered by another server (a remote schema). Root fields planned with the same
 * `group` are sent together: one request per group and operation, results split by field.
 */
export interface RemoteRootFieldPlanner {
  kind: 'remote';
  group: RemoteFieldGroup;
  /** Plan one occurrence (`field.alias` is the response key); the result goes to `group.run`. */
  plan(field: FieldNode, parentType: GraphQLObjectType, ctx: PlanContext): RemoteFieldPart;
}

/** One planned remote root field; opaque to the executor. */
export interface RemoteFieldPart {
  readonly group: RemoteFieldGroup;
}

export interface RemoteFieldGroup {
  /** Runs the parts of one operation in one call; the answer is the JSON text of each part's value. */
  run(parts: readonly RemoteFieldPart[], ctx: ExternalContext): Promise<string[]>;
  /**
   * Only for fields that may be subscribed to without a database (an asynchronous action's
   * result): one poll of the parts, and whether their answers are final (they will not change,
   * so the subscription completes). Groups without it are refused in subscriptions.
   */
  poll?(parts: readonly RemoteFieldPart[], ctx: ExternalContext): Promise<{ values: string[]; final: boolean }>;
}

export type RootFieldPlanner = DbRootFieldPlanner | NamespacePlanner | RemoteRootFieldPlanner;

/** A field a plugin adds to a table's row type (a remote relationship). */
export interface ExtraTableField {
  /** GraphQL field name. */
  field: string;
  /** The field's definition; a thunk, as the types it names are built lazily. */
  config(): GraphQLFieldConfig<unknown, unknown>;
  /** The IR of one selection of the field (usually a `remoteJoin`). */
  plan(field: CollectedField, ctx: PlanContext, path: string): FieldIR;
}

/** What a table-field extension may use to build its fields: the role's views and shared types. */
export interface SchemaKit {
  role: string;
  /** The role's views of a source's tables, by table key (`schema.name`); empty for an unknown source. */
  viewsOf(source: string): ReadonlyMap<string, TableView>;
  /** The row object type and select arguments of a view, from this schema's type registry. */
  objectType(view: TableView): GraphQLObjectType;
  selectArgs(view: TableView): GraphQLFieldConfigArgumentMap;
  /** The view's `<t>_aggregate` type (for `<rel>_aggregate` fields of joins to other sources). */
  aggregateType(view: TableView): GraphQLObjectType;
}

/** Adds fields to table row types; tapped into a draft by a plugin before the sources are added. */
export interface TableFieldExtension {
  fieldsFor(view: TableView, kit: SchemaKit): ExtraTableField[];
}

export interface RootFieldEntry {
  /** The field's GraphQL config; made when first read on an entry made by `lazyRootEntry`. */
  readonly config: GraphQLFieldConfig<unknown, unknown>;
  /**
   * What makes `config`, on an entry made by `lazyRootEntry`: roles of one read-type group share
   * it, and it is compared where the configs would be (comparing them would make them).
   */
  readonly lazy?: RootFieldConfig;
  planner: RootFieldPlanner;
}

/**
 * A root field's config, made when first read. A schema over 1,000 tables has thousands of root
 * fields, each with arguments naming a table's filter, ordering and column types, and a request
 * reaches a few (graphql/schema/lazy-schema.ts builds root types field by field).
 */
export class RootFieldConfig {
  private made: GraphQLFieldConfig<unknown, unknown> | null = null;

  constructor(private readonly make: () => GraphQLFieldConfig<unknown, unknown>) {}

  get config(): GraphQLFieldConfig<unknown, unknown> {
    return (this.made ??= this.make());
  }
}

/** A root field whose config is made by `lazy` when first read (a class: an object literal's getter would be a closure per entry). */
class LazyRootEntry implements RootFieldEntry {
  constructor(
    readonly lazy: RootFieldConfig,
    public planner: RootFieldPlanner,
  ) {}

  get config(): GraphQLFieldConfig<unknown, unknown> {
    return this.lazy.config;
  }
}

export function lazyRootEntry(lazy: RootFieldConfig, planner: RootFieldPlanner): RootFieldEntry {
  return new LazyRootEntry(lazy, planner);
}

export interface SchemaDraft {
  query: Map<string, RootFieldEntry>;
  mutation: Map<string, RootFieldEntry>;
  subscription: Map<string, RootFieldEntry>;
  /** Extra named types not reachable from root fields (rare; kept for completeness). */
  types: GraphQLNamedType[];
  /** Plugins adding fields to table row types (remote relationships); taps add theirs EARLY. */
  tableFields: TableFieldExtension[];
  /**
   * Another flavour of the role's table views (Relay's: `Node` ids, connections), applied once per
   * source when the draft first builds its views; every type and planner of the draft then reads
   * the adapted views. Absent: the views as built.
   */
  adaptViews?: (views: Map<string, TableView>, source: ResolvedSource) => Map<string, TableView>;
  /**
   * The read types (rows, aggregates, `bool_exp`, `order_by`, enums, ...) of a group of roles whose
   * select permissions are alike (core/schema-cache/role-shape.ts): every draft given the same map
   * gets the same type objects (schema/registry.ts); write types stay the draft's own. A type reads
   * the views of the draft that first asks for it, so only roles that see every table alike, with
   * no plugin field of their own on row types, may share one. Set before the taps run.
   */
  sharedTypes?: Map<string, GraphQLNamedType>;
  /**
   * The table views of a group of roles whose select permissions are alike down to their row
   * filters and limits (core/schema-cache/role-shape.ts), by source: the first draft of the group
   * to build a source's views leaves them here, the others take them. Used only by drafts with no
   * plugin adapting the views or adding fields to them (schema/extra-fields.ts).
   */
  sharedViews?: SharedViews;
}

/** Table views by source name, then by table key (SchemaDraft.sharedViews). */
export type SharedViews = Map<string, Map<string, TableView>>;

export interface SchemaBuildContext {
  role: string;
  cache: SchemaCache;
  config: ServerConfig;
}

/** A role's finished schema and the planners of its root fields, by operation type and name. */
export interface RoleSchema {
  role: string;
  schema: GraphQLSchema;
  roots: {
    query: ReadonlyMap<string, RootFieldEntry>;
    mutation: ReadonlyMap<string, RootFieldEntry>;
    subscription: ReadonlyMap<string, RootFieldEntry>;
  };
}

export const emptySchemaDraft = (): SchemaDraft => ({
  query: new Map(),
  mutation: new Map(),
  subscription: new Map(),
  types: [],
  tableFields: [],
});
