/**
 * Turns a validated operation into an execution plan: one step per root field, where a database
 * field is one compiled statement. Plans are built once per (schema version, role, query text,
 * operation name) and, when variables shape the statement, per their values; everything else is
 * bound per request.
 */
import {
  Kind,
  getNamedType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import { EngineError } from '../../errors.js';
import type { CompiledMutation, CompiledStatement, SourceConnection } from '../../db/contract.js';
import type { CompileOptions, SubscriptionFieldIR } from '../ir.js';
import type { PlanContext, RemoteFieldPart, RoleSchema, RootFieldEntry } from '../schema-draft.js';
import { joinShapeOfMutation, joinShapeOfQuery, joinShapeOfSelect, type JoinShape } from './remote-joins.js';
import type { SchemaCache } from '../../schema-cache/cache.js';
import type { ResolvedSource } from '../../schema-cache/model.js';
import { collectFieldNodes } from '../plan/selection.js';
import { sessionVariablesOf } from './mutation.js';
import { sessionVariablesOfQuery } from '../plan/session-variables.js';
import { NO_QUERIES_FIELD } from '../schema/assemble.js';

export type RootStep =
  | { kind: 'typename'; key: string; value: string }
  /** `sessionVariables`: what the statement reads from the session; a missing one is an error. */
  | {
      kind: 'db';
      key: string;
      connection: SourceConnection;
      statement: CompiledStatement;
      sessionVariables?: readonly string[];
      /** Remote joins to fill into the answer; absent (the usual case) when there are none. */
      joins?: JoinShape;
    }
  /** A remote schema's root field; sent with the other fields of its group in one request. */
  | { kind: 'remote'; key: string; part: RemoteFieldPart }
  | { kind: 'namespace'; key: string; steps: RootStep[] }
  /** A mutation root field; run with the other mutations of its source in one transaction. */
  | {
      kind: 'mutation';
      key: string;
      source: string;
      connection: SourceConnection;
      mutation: CompiledMutation;
      /** Session variables the role's presets, filters and checks read; missing ones are an error. */
      sessionVariables: readonly string[];
      joins?: JoinShape;
    }
  | { kind: 'introspection'; key: string; field: FieldNode }
  /** A subscription's database field: its IR, compiled with the others into one multiplexed statement. */
  | { kind: 'live'; key: string; source: string; connection: SourceConnection; field: SubscriptionFieldIR };

export interface CompiledOperation {
  steps: RootStep[];
  /** Root introspection fields, run through graphql-js as one small document; null when none. */
  introspection: DocumentNode | null;
  /** Whether any step (at any depth) is a remote root field. */
  remote: boolean;
  /**
   * The `data` object's JSON text when every root field is answered by the plan alone
   * (`{ __typename }`): built once here instead of spliced per request.
   */
  constantData?: string;
}

export type OperationKind = 'query' | 'mutation' | 'subscription';

/** A parsed, validated operation, shared by every request with the same text. */
export interface PreparedOperation {
  roleSchema: RoleSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The same node as `operation`: the name `onRequestLimit` enforcers read it by (LimitedOperation). */
  definition: OperationDefinitionNode;
  kind: OperationKind;
  fragments: Record<string, FragmentDefinitionNode>;
  /** Variables whose values shape the plan; the variant key is made of their values. */
  structural: string[];
  variants: Map<string, CompiledOperation>;
}

export const MAX_VARIANTS = 64;

export function variantKey(structural: readonly string[], variables: Readonly<Record<string, unknown>>): string {
  if (structural.length === 0) return '';
  return JSON.stringify(structural.map((n) => variables[n] ?? null));
}

export function rootType(prepared: PreparedOperation): GraphQLObjectType {
  const schema = prepared.roleSchema.schema;
  const type =
    prepared.kind === 'query' ? schema.getQueryType() : prepared.kind === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!type) throw new EngineError('validation-failed', `no ${prepared.kind}s exist`, { path: '$' });
  return type;
}

/**
 * Builds the plan for the given variable values. Returns the names of variables read for
 * structure, so the caller can key the plan on them.
 */
export function compileOperation(
  prepared: PreparedOperation,
  cache: SchemaCache,
  variables: Readonly<Record<string, unknown>>,
  options: CompileOptions,
): { compiled: CompiledOperation; structuralReads: Set<string> } {
  const reads = new Set<string>();
  const definitions = new Map(
    (prepared.operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d] as const),
  );
  const ctx: PlanContext = {
    schema: prepared.roleSchema.schema,
    fragments: prepared.fragments,
    role: prepared.roleSchema.role,
    operation: prepared.kind,
    readVariable(name) {
      reads.add(name);
      return variables[name];
    },
    hasVariable: (name) => definitions.has(name),
    variableType(name) {
      const def = definitions.get(name);
      return def ? printType(def.type) : undefined;
    },
  };
  const type = rootType(prepared);
  const roots =
    prepared.kind === 'mutation' ? prepared.roleSchema.roots.mutation : prepared.kind === 'subscription' ? prepared.roleSchema.roots.subscription : prepared.roleSchema.roots.query;
  const introspectionFields: FieldNode[] = [];
  const steps = planSelection(type, prepared.operation, roots, cache, ctx, options, introspectionFields);
  const introspection: DocumentNode | null =
    introspectionFields.length === 0
      ? null
      : {
          kind: Kind.DOCUMENT,
          definitions: [
            { ...prepared.operation, selectionSet: { kind: Kind.SELECTION_SET, selections: introspectionFields } },
            ...Object.values(prepared.fragments),
          ],
        };
  const compiled: CompiledOperation = { steps, introspection, remote: hasRemote(steps) };
  if (introspection === null && steps.every((s) => s.kind === 'typename')) {
    compiled.constantData = `{${steps.map((s) => `${JSON.stringify(s.key)}:${JSON.stringify(s.value)}`).join(',')}}`;
  }
  return { compiled, structuralReads: reads };
}

function planSelection(
  type: GraphQLObjectType,
  node: { selectionSet: OperationDefinitionNode['selectionSet'] },
  roots: ReadonlyMap<string, RootFieldEntry>,
  cache: SchemaCache,
  ctx: PlanContext,
  options: CompileOptions,
  introspectionFields: FieldNode[],
): RootStep[] {
  const steps: RootStep[] = [];
  const fields = collectFieldNodes(node.selectionSet, { fragments: ctx.fragments, readVariable: (n) => ctx.readVariable(n), typeName: type.name });
  for (const [key, nodes] of fields) {
    const field = nodes[0]!;
    const name = field.name.value;
    if (name === '__typename') {
      steps.push({ kind: 'typename', key, value: type.name });
      continue;
    }
    if (name === '__schema' || name === '__type') {
      // Every node of the key: a field asked twice under one key answers both selections, merged.
      introspectionFields.push(...nodes);
      steps.push({ kind: 'introspection', key, field });
      continue;
    }
    const entry = roots.get(name);
    // The placeholder of a role that can query nothing answers with its own description, as the reference does.
    const placeholder = name === NO_QUERIES_FIELD && !entry ? type.getFields()[name] : undefined;
    if (placeholder) {
      steps.push({ kind: 'typename', key, value: placeholder.description ?? '' });
      continue;
    }
    if (!entry) throw new EngineError('validation-failed', `field '${name}' not found in type: '${type.name}'`, { path: `$.selectionSet.${name}` });
    const merged = mergeFieldNodes(nodes);
    if (entry.planner.kind === 'namespace') {
      const nsType = getNamedType(type.getFields()[name]!.type);
      if (!isObjectType(nsType) || !merged.selectionSet) throw new EngineError('validation-failed', `field '${name}' needs a selection set`, { path: `$.selectionSet.${name}` });
      steps.push({ kind: 'namespace', key, steps: planSelection(nsType, { selectionSet: merged.selectionSet }, entry.planner.fields, cache, ctx, options, introspectionFields) });
      continue;
    }
    if (entry.planner.kind === 'remote') {
      steps.push({ kind: 'remote', key, part: entry.planner.plan(merged, type, ctx) });
      continue;
    }
    const source = cache.sources.get(entry.planner.source);
    if (!source) throw new EngineError('unexpected', `source "${entry.planner.source}" is not available`);
    if (entry.planner.buildMutationIR) {
      const conn = source.connection;
      if (!conn.compileMutation || !conn.runMutations) {
        throw new EngineError('not-supported', `mutations are not supported on source "${source.name}"`, { path: `$.selectionSet.${name}` });
      }
      const mir = entry.planner.buildMutationIR(merged, type, ctx);
      steps.push({
        kind: 'mutation',
        key,
        source: source.name,
        connection: conn,
        mutation: conn.compileMutation(mir, options),
        sessionVariables: sessionVariablesOf(mir),
        ...withJoins(joinShapeOfMutation(mir)),
      });
      continue;
    }
    if (ctx.operation === 'subscription') {
      const planner = entry.planner;
      const field: SubscriptionFieldIR = planner.buildStreamIR
        ? { kind: 'stream', key, ir: planner.buildStreamIR(merged, type, ctx) }
        : { kind: 'root', key, ir: planner.buildIR(merged, type, ctx) };
      // A poll answers many subscribers with one statement; a remote join per poll would not batch.
      if (field.kind === 'stream' ? joinShapeOfSelect(field.ir.select) : joinShapeOfQuery(field.ir)) {
        throw new EngineError('not-supported', 'Remote relationships are not allowed in subscriptions', { path: `$.selectionSet.${name}` });
      }
      const live = field.kind === 'stream' ? source : irSource(cache, field.ir.source, name);
      steps.push({ kind: 'live', key, source: live.name, connection: live.connection, field });
      continue;
    }
    const ir = entry.planner.buildIR(merged, type, ctx);
    // The IR names its source: a field whose source depends on its arguments (Relay's `node`) picks it there.
    const read = irSource(cache, ir.source, name);
    const statement = read.connection.compileQuery(ir, options);
    steps.push({ kind: 'db', key, connection: read.connection, statement, sessionVariables: sessionVariablesOfQuery(ir), ...withJoins(joinShapeOfQuery(ir)) });
  }
  return steps;
}

function irSource(cache: SchemaCache, name: string, field: string): ResolvedSource {
  const source = cache.sources.get(name);
  if (!source) throw new EngineError('unexpected', `source "${name}" is not available`, { path: `$.selectionSet.${field}` });
  return source;
}

const hasRemote = (steps: readonly RootStep[]): boolean =>
  steps.some((s) => s.kind === 'remote' || (s.kind === 'namespace' && hasRemote(s.steps)));

const withJoins = (joins: JoinShape | null): { joins?: JoinShape } => (joins ? { joins } : {});

/** Fields with one response key are merged (validation guarantees they are compatible). */
function mergeFieldNodes(nodes: FieldNode[]): FieldNode {
  if (nodes.length === 1) return nodes[0]!;
  const first = nodes[0]!;
  const selections = nodes.flatMap((n) => n.selectionSet?.selections ?? []);
  return { ...first, selectionSet: first.selectionSet ? { ...first.selectionSet, selections } : undefined };
}

function printType(t: NonNullable<OperationDefinitionNode['variableDefinitions']>[number]['type']): string {
  if (t.kind === Kind.NON_NULL_TYPE) return `${printType(t.type)}!`;
  if (t.kind === Kind.LIST_TYPE) return `[${printType(t.type)}]`;
  return t.name.value;
}
