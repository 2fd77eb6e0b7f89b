/**
 * Executes GraphQL requests on the hot path: plan-cache lookup (schema version, role, query
 * text, operation name), variable coercion, parameter binding, one statement per database root
 * field, and the response spliced together from the database's JSON text without parsing it.
 * Mutation fields run first, one transaction per source (./mutation.ts), then splice the same way.
 */
import { execute, getOperationAST, getVariableValues, Kind, type FragmentDefinitionNode } from 'graphql';
import { EngineError } from '../../errors.js';
import type { Session } from '../../auth/session.js';
import type { ServerConfig } from '../../config/types.js';
import type { SchemaCacheRef } from '../../schema-cache/ref.js';
import type { SchemaCache } from '../../schema-cache/cache.js';
import type { TypedValueIR } from '../ir.js';
import type { CompiledStatement, SourceConnection } from '../../db/contract.js';
import type { GraphQLRequest } from './request.js';
import { LruCache } from './lru.js';
import { parseDocument, validateDocument } from './validate.js';
import { compileOperation, MAX_VARIANTS, variantKey, type CompiledOperation, type OperationKind, type PreparedOperation, type RootStep } from './plan.js';
import { runMutationSteps } from './mutation.js';
import { requireSessionVariables } from '../plan/session-variables.js';

export class GraphQLExecutor {
  private readonly prepared: LruCache<string, PreparedOperation>;

  constructor(
    private readonly ref: SchemaCacheRef,
    private readonly config: ServerConfig,
  ) {
    this.prepared = new LruCache(config.queryPlanCacheSize);
  }

  /** Runs one request; returns the response body as JSON text. Throws EngineError for request errors. */
  async execute(request: GraphQLRequest, session: Session): Promise<string> {
    const cache = this.ref.current;
    const prepared = await this.prepare(cache, request, session.role);
    if (prepared.kind === 'subscription') {
      throw new EngineError('validation-failed', 'subscriptions are not supported over HTTP, use websockets instead', { path: '$' });
    }
    const variables = coerceVariables(prepared, request);
    const compiled = this.compiled(prepared, cache, variables);
    const sessionJson = JSON.stringify(session.variables);
    // Mutations run first, in one transaction per source; the splice below just reads their results.
    const mutated =
      prepared.kind === 'mutation' ? await runMutationSteps(compiled.steps, variables, session, sessionJson, bindParams) : NO_RESULTS;
    const parts = await this.runSteps(compiled.steps, variables, session, sessionJson, await this.introspect(prepared, compiled, request), mutated);
    return `{"data":${parts}}`;
  }

  /**
   * The plan `execute` would run for this request, without running it (the explain API): per
   * root field, the compiled statement and its values bound for this session.
   */
  async plan(request: GraphQLRequest, session: Session): Promise<RequestPlan> {
    const cache = this.ref.current;
    const prepared = await this.prepare(cache, request, session.role);
    const variables = coerceVariables(prepared, request);
    const compiled = this.compiled(prepared, cache, variables);
    return { kind: prepared.kind, fields: plannedFields(compiled.steps, '', variables, session) };
  }

  private async prepare(cache: SchemaCache, request: GraphQLRequest, role: string): Promise<PreparedOperation> {
    const key = `${cache.version}\u0000${role}\u0000${request.operationName ?? ''}\u0000${request.query}`;
    const hit = this.prepared.get(key);
    if (hit) return hit;
    const roleSchema = await cache.schemaFor(role);
    const document = parseDocument(request.query);
    validateDocument(roleSchema.schema, document);
    const operation = getOperationAST(document, request.operationName ?? undefined);
    if (!operation) {
      const message = request.operationName
        ? `no such operation found in the document: "${request.operationName}"`
        : 'exactly one operation has to be present in the document when operationName is not specified';
      throw new EngineError('validation-failed', message, { path: '$' });
    }
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    const prepared: PreparedOperation = {
      roleSchema,
      document,
      operation,
      kind: operation.operation as OperationKind,
      fragments,
      structural: [],
      variants: new Map(),
    };
    this.prepared.set(key, prepared);
    return prepared;
  }

  private compiled(prepared: PreparedOperation, cache: SchemaCache, variables: Record<string, unknown>): CompiledOperation {
    const key = variantKey(prepared.structural, variables);
    const hit = prepared.variants.get(key);
    if (hit) return hit;
    const { compiled, structuralReads } = compileOperation(prepared, cache, variables, {
      stringifyNumericTypes: this.config.stringifyNumericTypes,
    });
    const learned = [...structuralReads].filter((n) => !prepared.structural.includes(n));
    if (learned.length > 0) {
      // The set of shaping variables grew: earlier variants were keyed on fewer values.
      prepared.structural = [...prepared.structural, ...learned].sort();
      prepared.variants.clear();
    }
    if (prepared.variants.size < MAX_VARIANTS) prepared.variants.set(variantKey(prepared.structural, variables), compiled);
    return compiled;
  }

  private async introspect(
    prepared: PreparedOperation,
    compiled: CompiledOperation,
    request: GraphQLRequest,
  ): Promise<Record<string, unknown> | null> {
    if (!compiled.introspection) return null;
    const result = await execute({
      schema: prepared.roleSchema.schema,
      document: compiled.introspection,
      variableValues: request.variables,
      rootValue: {},
    });
    if (result.errors?.length) throw new EngineError('validation-failed', result.errors[0]!.message, { path: '$' });
    return (result.data ?? {}) as Record<string, unknown>;
  }

  private async runSteps(
    steps: readonly RootStep[],
    variables: Record<string, unknown>,
    session: Session,
    sessionJson: string,
    introspection: Record<string, unknown> | null,
    mutated: ReadonlyMap<RootStep, string>,
  ): Promise<string> {
    const values = await Promise.all(
      steps.map(async (step): Promise<string> => {
        switch (step.kind) {
          case 'typename':
            return JSON.stringify(step.value);
          case 'introspection':
            return JSON.stringify(introspection?.[step.key] ?? null);
          case 'namespace':
            return this.runSteps(step.steps, variables, session, sessionJson, introspection, mutated);
          case 'mutation':
            return mutated.get(step) ?? 'null';
          case 'db': {
            requireSessionVariables(step.sessionVariables, session);
            const bound = bindParams(step.statement.params, variables, session);
            return step.connection.runQuery(step.statement, sessionJson, bound);
          }
        }
      }),
    );
    let out = '{';
    for (let i = 0; i < steps.length; i++) {
      if (i > 0) out += ',';
      out += JSON.stringify(steps[i]!.key) + ':' + values[i];
    }
    return out + '}';
  }
}

export interface PlannedField {
  /** The response key; under a namespace, `namespace.key`. */
  field: string;
  /** Null for fields answered without a database (`__typename`, introspection). */
  db: { connection: SourceConnection; statement: CompiledStatement; sessionJson: string; values: unknown[] } | null;
}

export interface RequestPlan {
  kind: OperationKind;
  fields: PlannedField[];
}

function plannedFields(steps: readonly RootStep[], prefix: string, variables: Record<string, unknown>, session: Session): PlannedField[] {
  const sessionJson = JSON.stringify(session.variables);
  return steps.flatMap((step): PlannedField[] => {
    const field = prefix + step.key;
    if (step.kind === 'namespace') return plannedFields(step.steps, field + '.', variables, session);
    if (step.kind !== 'db') return [{ field, db: null }];
    const values = bindParams(step.statement.params, variables, session);
    return [{ field, db: { connection: step.connection, statement: step.statement, sessionJson, values } }];
  });
}

const NO_RESULTS: ReadonlyMap<RootStep, string> = new Map();

const NO_VARIABLES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** Coerces the request's variables against the operation; operations without variables skip graphql-js. */
function coerceVariables(prepared: PreparedOperation, request: GraphQLRequest): Record<string, unknown> {
  const definitions = prepared.operation.variableDefinitions;
  if (!definitions || definitions.length === 0) return NO_VARIABLES;
  const coerced = getVariableValues(prepared.roleSchema.schema, definitions, request.variables);
  if (coerced.errors) {
    throw new EngineError('validation-failed', coerced.errors[0]!.message, { path: '$.variableValues' });
  }
  return coerced.coerced;
}

export function bindParams(params: readonly TypedValueIR[], variables: Record<string, unknown>, session: Session): unknown[] {
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const v = params[i]!.value;
    if (v.kind === 'const') {
      out[i] = v.value;
    } else if (v.kind === 'variable') {
      let value: unknown = variables[v.name];
      for (const step of v.path) value = value == null ? undefined : (value as Record<string | number, unknown>)[step];
      out[i] = value ?? null;
    } else {
      const value = session.variables[v.name.toLowerCase()];
      if (value === undefined) throw new EngineError('not-found', `missing session variable: "${v.name}"`, { path: '$' });
      out[i] = value;
    }
  }
  return out;
}
