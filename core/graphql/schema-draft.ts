/**
 * What `onSchemaBuild` passes along: the root fields of one role's schema as they are being
 * assembled. Each root field carries its GraphQL definition and how to plan it, so the executor
 * never runs resolvers for database fields.
 */
import type {
  FieldNode,
  FragmentDefinitionNode,
  GraphQLFieldConfig,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
} from 'graphql';
import type { RootFieldIR } from './ir.js';
import type { MutationIR } from './ir-mutation.js';
import type { SchemaCache } from '../schema-cache/cache.js';
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
}

/** A root field that is an object grouping other root fields (a source's root-field namespace). */
export interface NamespacePlanner {
  kind: 'namespace';
  fields: Map<string, RootFieldEntry>;
}

export type RootFieldPlanner = DbRootFieldPlanner | NamespacePlanner;

export interface RootFieldEntry {
  config: GraphQLFieldConfig<unknown, unknown>;
  planner: RootFieldPlanner;
}

export interface SchemaDraft {
  query: Map<string, RootFieldEntry>;
  mutation: Map<string, RootFieldEntry>;
  subscription: Map<string, RootFieldEntry>;
  /** Extra named types not reachable from root fields (rare; kept for completeness). */
  types: GraphQLNamedType[];
}

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
});
