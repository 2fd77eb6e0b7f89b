/**
 * Executes GraphQL requests on the hot path: plan-cache lookup (schema version, role, query
 * text, operation name), variable coercion, parameter binding, one statement per database root
 * field, and the response spliced together from the database's JSON text without parsing it.
 * Mutation fields run first, one transaction per source (./mutation.ts), then splice the same way.
 */
import {
  execute,
  getOperationAST,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  getVariableValues,
  Kind,
  visit,
  type ASTNode,
  type FragmentDefinitionNode,
  type TypeNode,
  type VariableDefinitionNode,
} from 'graphql';
import { EngineError } from '../../errors.js';
import { sessionVariablesJson, type Session } from '../../auth/session.js';
import type { ServerConfig } from '../../config/types.js';
import type { SchemaCacheRef } from '../../schema-cache/ref.js';
import type { SchemaCache } from '../../schema-cache/cache.js';
import type { ExternalContext, TypedValueIR } from '../ir.js';
import type { RemoteFieldGroup, RemoteFieldPart, RoleSchema } from '../schema-draft.js';
import { applyRemoteJoins } from './remote-joins.js';
import type { CompiledStatement, RunOptions, SourceConnection } from '../../db/contract.js';
import type { LimitHooks } from './limits.js';
import type { LimitGate } from './limit-pass.js';
import type { GraphQLRequest } from './request.js';
import { PlanCache } from './plan-cache.js';
import { parseDocument, validateDocument } from './validate.js';
import { compileOperation, MAX_VARIANTS, variantKey, type CompiledOperation, type OperationKind, type PreparedOperation, type RootStep } from './plan.js';
import { runMutationSteps } from './mutation.js';
import { requireSessionVariables } from '../plan/session-variables.js';
import type { MetricsRegistry } from '../../metrics/registry.js';
import { tracing } from '../../tracing/tracing.js';
import { introspectionAnswers, introspectionKey, type IntrospectionAnswers, type IntrospectionTexts } from './introspection-answers.js';
import { introspectionTexts } from './introspection-text.js';

/** Where a request came from, for API limits and the allow-list (`onRequestLimit`). */
export interface ExecutionMeta {
  /** `graphql` (HTTP), `rest`, `websocket`. */
  endpoint: string;
  ip: string;
  /** Operations in the request (a batch's length; 1 otherwise). */
  operationCount: number;
  /** Set by the executor once the operation is known (query, mutation, subscription), for metrics. */
  operationType?: string;
  /** GraphQL over GET: any operation but a query is refused with 405 before it runs. */
  queryOnly?: boolean;
  /** The client's request headers, for remote schemas that forward them; absent: none. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** Where the HTTP transport collects headers for its response (a remote's Set-Cookie). */
  responseHeaders?: Array<[string, string]>;
}

const DEFAULT_META = (): ExecutionMeta => ({ endpoint: 'graphql', ip: '', operationCount: 1 });

/** The limit hook and its gate; absent in executors built without a kernel (no limits then). */
export interface ExecutorLimits {
  hooks: LimitHooks;
  gate: LimitGate;
}

/**
 * Which schema a role's requests run against: by default the snapshot's role schema; another API
 * over the same snapshot (Relay's) passes its own, built from the same snapshot and memoised there.
 */
export type SchemaFlavour = (cache: SchemaCache, role: string) => Promise<RoleSchema>;

export class GraphQLExecutor {
  private readonly prepared: PlanCache<PreparedOperation>;
  private readonly preparing = new Map<string, Promise<PreparedOperation>>();
  /** The snapshot version whose plans `prepared` holds. */
  private cachedVersion = 0;

  constructor(
    private readonly ref: SchemaCacheRef,
    private readonly config: ServerConfig,
    private readonly limits?: ExecutorLimits,
    private readonly metrics?: MetricsRegistry,
    private readonly flavour?: SchemaFlavour,
  ) {
    this.prepared = new PlanCache(config.queryPlanCacheSize);
  }

  /** The introspection answers this executor keeps (shared by every executor of the process). */
  get introspectionAnswers(): IntrospectionAnswers {
    return introspectionAnswers;
  }

  /** Runs one request; returns the response body as JSON text. Throws EngineError for request errors. */
  async execute(request: GraphQLRequest, session: Session, meta: ExecutionMeta = DEFAULT_META()): Promise<string> {
    return `{"data":${await this.executeData(request, session, meta)}}`;
  }

  /**
   * `execute` without a promise when it can: a plan-cache hit whose operation needs nothing
   * awaited but its database answers (a query whose limits decide at once, with no remote fields or introspection)
   * returns its text at once when it has no database field (`{ __typename }`), and otherwise the
   * database's promise, chained. Errors are thrown synchronously then; the answers and errors are
   * those of `execute`, to which every other case goes.
   */
  executeNow(request: GraphQLRequest, session: Session, meta: ExecutionMeta = DEFAULT_META()): string | Promise<string> {
    if (tracing.active) return this.execute(request, session, meta);
    const cache = this.ref.current;
    const prepared = this.prepare(cache, request, session.role);
    if (prepared instanceof Promise) return prepared.then((p) => this.runPrepared(p, cache, request, session, meta)).then(wrapData);
    this.admitKind(prepared, meta);
    if (prepared.kind !== 'query') return this.runPrepared(prepared, cache, request, session, meta).then(wrapData);
    // The limit pass decides at once unless a check must wait (a rate limit's refill): then the async way.
    const admitted = this.checkLimits(prepared, cache, session, meta);
    if (admitted instanceof Promise) {
      return admitted.then((run) => this.runAdmitted(prepared, cache, request, session, meta, run)).then(wrapData);
    }
    const variables = coerceVariables(prepared, request);
    const compiled = this.compiled(prepared, cache, variables);
    if (compiled.constantData !== undefined) return `{"data":${compiled.constantData}}`;
    if (compiled.remote || compiled.introspection) return this.runAdmitted(prepared, cache, request, session, meta, admitted).then(wrapData);
    const external = this.externalContext(prepared, request, session, meta, variables, admitted);
    const data = this.runSteps(compiled.steps, variables, session, sessionVariablesJson(session), null, NO_RESULTS, NO_REMOTE, external, admitted);
    return typeof data === 'string' ? `{"data":${data}}` : data.then(wrapData);
  }

  /** Runs one request; returns the JSON text of its `data` object (REST endpoints answer it bare). */
  async executeData(request: GraphQLRequest, session: Session, meta: ExecutionMeta = DEFAULT_META()): Promise<string> {
    const cache = this.ref.current;
    // A plan-cache hit is answered synchronously: no promise, no extra turn of the microtask queue.
    const planned = tracing.active
      ? tracing.span('graphql.plan', { 'graphql.operation.name': request.operationName ?? '' }, async () => this.prepare(cache, request, session.role))
      : this.prepare(cache, request, session.role);
    const prepared = planned instanceof Promise ? await planned : planned;
    return this.runPrepared(prepared, cache, request, session, meta);
  }

  /** What every operation goes through once planned: the kind checks, limits, then its steps. */
  private async runPrepared(
    prepared: PreparedOperation,
    cache: SchemaCache,
    request: GraphQLRequest,
    session: Session,
    meta: ExecutionMeta,
  ): Promise<string> {
    this.admitKind(prepared, meta);
    // A pass that decides at once (always, when no limit is set) is not awaited.
    const admitted = this.checkLimits(prepared, cache, session, meta);
    return this.runAdmitted(prepared, cache, request, session, meta, admitted instanceof Promise ? await admitted : admitted);
  }

  /** Runs an operation its kind checks and limits have let through, with the run options they gave. */
  private async runAdmitted(
    prepared: PreparedOperation,
    cache: SchemaCache,
    request: GraphQLRequest,
    session: Session,
    meta: ExecutionMeta,
    run: RunOptions | undefined,
  ): Promise<string> {
    const variables = coerceVariables(prepared, request);
    const compiled = tracing.active
      ? await tracing.span('graphql.compile', { 'graphql.operation.type': prepared.kind }, async () => this.compiled(prepared, cache, variables))
      : this.compiled(prepared, cache, variables);
    const sessionJson = sessionVariablesJson(session);
    const external = this.externalContext(prepared, request, session, meta, variables, run);
    // Mutations run first, in one transaction per source; the splice below just reads their results.
    const mutated =
      prepared.kind === 'mutation' ? await this.mutate(compiled.steps, variables, session, sessionJson, external, run) : NO_RESULTS;
    // Remote root fields: one request per remote schema, under way while the database answers.
    const remote = compiled.remote ? startRemoteGroups(compiled.steps, external) : NO_REMOTE;
    const introspection = compiled.introspection ? await this.introspect(prepared, compiled, request) : null;
    return this.runSteps(compiled.steps, variables, session, sessionJson, introspection, mutated, remote, external, run);
  }

  /** Records the operation type, and refuses what HTTP cannot run: a non-query over GET, a subscription. */
  private admitKind(prepared: PreparedOperation, meta: ExecutionMeta): void {
    meta.operationType = prepared.kind;
    if (meta.queryOnly && prepared.kind !== 'query') {
      throw new EngineError('method-not-allowed', `${prepared.kind}s are not allowed over GET; use POST`, { status: 405, path: '$' });
    }
    if (prepared.kind === 'subscription') {
      throw new EngineError('validation-failed', 'subscriptions are not supported over HTTP, use websockets instead', { path: '$' });
    }
  }

  private externalContext(
    prepared: PreparedOperation,
    request: GraphQLRequest,
    session: Session,
    meta: ExecutionMeta,
    variables: Record<string, unknown>,
    run: RunOptions | undefined,
  ): ExternalContext {
    const external: ExternalContext = { session, variables, headers: meta.headers ?? NO_HEADERS, query: request.query };
    if (run?.deadline !== undefined) external.deadline = run.deadline;
    // The name of the operation that runs (the document's, whether or not the client named it).
    if (prepared.operation.name) external.operationName = prepared.operation.name.value;
    if (meta.responseHeaders) external.responseHeaders = meta.responseHeaders;
    return external;
  }

  private async mutate(
    steps: readonly RootStep[],
    variables: Record<string, unknown>,
    session: Session,
    sessionJson: string,
    external: ExternalContext,
    run?: RunOptions,
  ): Promise<ReadonlyMap<RootStep, string>> {
    const results = await runMutationSteps(steps, variables, session, sessionJson, bindParams, run);
    for (const [step, json] of results) {
      if (step.kind === 'mutation' && step.joins) results.set(step, await applyRemoteJoins(json, step.joins, external));
    }
    return results;
  }

  /**
   * The allow-list and API-limit checks alone (for transports that run operations their own way,
   * such as subscriptions): throws when the operation is refused; otherwise returns the run
   * options (the time limit's deadline) its statements must be given.
   */
  async admit(request: GraphQLRequest, session: Session, meta: ExecutionMeta = DEFAULT_META()): Promise<RunOptions | undefined> {
    const cache = this.ref.current;
    const prepared = await this.prepare(cache, request, session.role);
    return this.checkLimits(prepared, cache, session, meta);
  }

  /** The role's limit pass (./limit-pass.ts): synchronous unless a check must wait or the hook path runs. */
  private checkLimits(
    prepared: PreparedOperation,
    cache: SchemaCache,
    session: Session,
    meta: ExecutionMeta,
  ): RunOptions | undefined | Promise<RunOptions | undefined> {
    // No limit set anywhere (the usual case): the gate answers at once, with no context object and no hook call.
    return this.limits?.gate.admit(prepared, cache, session, meta);
  }

  /**
   * Plans a subscription for the websocket transport: the compiled operation (shared by every
   * request with the same text and shaping variables) and the request's coerced variables.
   * Null when the operation is a query or mutation, which `execute` runs.
   */
  async planSubscription(request: GraphQLRequest, session: Session): Promise<SubscriptionRequestPlan | null> {
    const cache = this.ref.current;
    const prepared = await this.prepare(cache, request, session.role);
    if (prepared.kind !== 'subscription') return null;
    const variables = coerceVariables(prepared, request);
    return { compiled: this.compiled(prepared, cache, variables), variables, schemaVersion: cache.version };
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

  private prepare(cache: SchemaCache, request: GraphQLRequest, role: string): PreparedOperation | Promise<PreparedOperation> {
    const operationName = request.operationName ?? '';
    const hit = this.prepared.get(request.query, cache.version, role, operationName);
    if (this.metrics?.enabled) this.metrics.engine.planCacheLookups.inc({ result: hit ? 'hit' : 'miss' });
    if (hit) return hit;
    // Concurrent first requests of one text (a burst of subscribers) parse and validate it once.
    const key = `${cache.version}\u0000${role}\u0000${operationName}\u0000${request.query}`;
    let pending = this.preparing.get(key);
    if (!pending) {
      pending = this.prepareNew(cache, request, role).finally(() => this.preparing.delete(key));
      this.preparing.set(key, pending);
    }
    return pending;
  }

  private async prepareNew(cache: SchemaCache, request: GraphQLRequest, role: string): Promise<PreparedOperation> {
    const roleSchema = await (this.flavour ? this.flavour(cache, role) : cache.schemaFor(role));
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
      definition: operation,
      fragments,
      structural: [],
      variants: new Map(),
    };
    this.cachePrepared(cache.version, request.query, role, request.operationName ?? '', prepared);
    return prepared;
  }

  /**
   * Plans are keyed by snapshot version, so an older snapshot's are never hit again once a newer
   * one serves; left in the cache they kept that snapshot's role schemas alive (740 MB of heap for
   * 20 roles over 1,000 tables) until evicted. The first plan of a newer snapshot drops them, and
   * a request still finishing on an older snapshot does not cache its plan.
   */
  private cachePrepared(version: number, text: string, role: string, operationName: string, prepared: PreparedOperation): void {
    if (version < this.cachedVersion) return;
    if (version > this.cachedVersion) {
      this.prepared.clear();
      this.cachedVersion = version;
    }
    this.prepared.set(text, version, role, operationName, prepared);
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
  ): Promise<IntrospectionTexts | null> {
    if (!compiled.introspection) return null;
    const schema = prepared.roleSchema.schema;
    const key = introspectionKey(compiled.introspection, request.variables);
    const kept = introspectionAnswers.get(schema, key);
    if (kept !== undefined) return await kept;
    const written = introspectionTexts(schema, compiled.introspection, request.variables);
    if (written !== null) {
      void introspectionAnswers.set(schema, key, written);
      return written;
    }
    // What graphql-js answers with errors (introspection-text.ts): its own execution gives them.
    const result = await execute({
      schema,
      document: compiled.introspection,
      variableValues: request.variables,
      rootValue: {},
    });
    if (result.errors?.length) throw new EngineError('validation-failed', result.errors[0]!.message, { path: '$' });
    const texts: Record<string, string> = {};
    for (const [field, value] of Object.entries(result.data ?? {})) texts[field] = JSON.stringify(value ?? null);
    void introspectionAnswers.set(schema, key, texts);
    return texts;
  }

  /** The `data` object's text: at once when no step waits, else a promise of it. */
  private runSteps(
    steps: readonly RootStep[],
    variables: Record<string, unknown>,
    session: Session,
    sessionJson: string,
    introspection: IntrospectionTexts | null,
    mutated: ReadonlyMap<RootStep, string>,
    remote: ReadonlyMap<RootStep, Promise<string>>,
    external: ExternalContext,
    run?: RunOptions,
  ): string | Promise<string> {
    // Steps answered without waiting give their text at once; only database and remote answers are awaited.
    const values = new Array<string | Promise<string>>(steps.length);
    let waiting = 0;
    let last = -1;
    try {
      for (let i = 0; i < steps.length; i++) {
        const v = this.stepValue(steps[i]!, variables, session, sessionJson, introspection, mutated, remote, external, run);
        values[i] = v;
        if (typeof v !== 'string') {
          waiting++;
          last = i;
        }
      }
    } catch (e) {
      // Answers already under way are dropped with the request: their failures must not go unhandled.
      for (const v of values) if (v !== undefined && typeof v !== 'string') v.catch(() => undefined);
      throw e;
    }
    if (waiting === 0) return splice(steps, values as string[]);
    if (waiting === 1) {
      return (values[last] as Promise<string>).then((text) => {
        values[last] = text;
        return splice(steps, values as string[]);
      });
    }
    return Promise.all(values).then((all) => splice(steps, all));
  }

  private stepValue(
    step: RootStep,
    variables: Record<string, unknown>,
    session: Session,
    sessionJson: string,
    introspection: IntrospectionTexts | null,
    mutated: ReadonlyMap<RootStep, string>,
    remote: ReadonlyMap<RootStep, Promise<string>>,
    external: ExternalContext,
    run?: RunOptions,
  ): string | Promise<string> {
    switch (step.kind) {
      case 'typename':
        return JSON.stringify(step.value);
      case 'introspection':
        return introspection?.[step.key] ?? 'null';
      case 'namespace':
        return this.runSteps(step.steps, variables, session, sessionJson, introspection, mutated, remote, external, run);
      case 'mutation':
        return mutated.get(step) ?? 'null';
      case 'live':
        throw new EngineError('unexpected', 'a subscription field reached the query executor');
      case 'remote':
        return (remote.get(step) ?? Promise.resolve(null)).then((text) => text ?? 'null');
      case 'db': {
        requireSessionVariables(step.sessionVariables, session);
        const bound = bindParams(step.statement.params, variables, session);
        const json = step.connection.runQuery(step.statement, sessionJson, bound, run);
        const joins = step.joins;
        return joins ? json.then((text) => applyRemoteJoins(text, joins, external)) : json;
      }
    }
  }
}

function splice(steps: readonly RootStep[], values: readonly string[]): string {
  let out = '{';
  for (let i = 0; i < steps.length; i++) {
    if (i > 0) out += ',';
    out += JSON.stringify(steps[i]!.key) + ':' + values[i]!;
  }
  return out + '}';
}

const wrapData = (data: string): string => `{"data":${data}}`;

export interface PlannedField {
  /** The response key; under a namespace, `namespace.key`. */
  field: string;
  /** Null for fields answered without a database (`__typename`, introspection). */
  db: { connection: SourceConnection; statement: CompiledStatement; sessionJson: string; values: unknown[] } | null;
}

export interface SubscriptionRequestPlan {
  compiled: CompiledOperation;
  variables: Record<string, unknown>;
  /** The schema cache version the plan was made against. */
  schemaVersion: number;
}

export interface RequestPlan {
  kind: OperationKind;
  fields: PlannedField[];
}

function plannedFields(steps: readonly RootStep[], prefix: string, variables: Record<string, unknown>, session: Session): PlannedField[] {
  const sessionJson = sessionVariablesJson(session);
  return steps.flatMap((step): PlannedField[] => {
    const field = prefix + step.key;
    if (step.kind === 'namespace') return plannedFields(step.steps, field + '.', variables, session);
    if (step.kind !== 'db') return [{ field, db: null }];
    const values = bindParams(step.statement.params, variables, session);
    return [{ field, db: { connection: step.connection, statement: step.statement, sessionJson, values } }];
  });
}

const NO_RESULTS: ReadonlyMap<RootStep, string> = new Map();
const NO_REMOTE: ReadonlyMap<RootStep, Promise<string>> = new Map();
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

type RemoteStep = Extract<RootStep, { kind: 'remote' }>;

function collectRemote(steps: readonly RootStep[], out: RemoteStep[]): void {
  for (const s of steps) {
    if (s.kind === 'remote') out.push(s);
    else if (s.kind === 'namespace') collectRemote(s.steps, out);
  }
}

/** Starts one call per remote group (a remote schema) with all of its root fields of the operation. */
function startRemoteGroups(steps: readonly RootStep[], external: ExternalContext): Map<RootStep, Promise<string>> {
  const all: RemoteStep[] = [];
  collectRemote(steps, all);
  const groups = new Map<RemoteFieldGroup, RemoteStep[]>();
  for (const s of all) {
    const group = groups.get(s.part.group);
    if (group) group.push(s);
    else groups.set(s.part.group, [s]);
  }
  const out = new Map<RootStep, Promise<string>>();
  for (const [group, members] of groups) {
    const answer = group.run(members.map((m): RemoteFieldPart => m.part), external);
    members.forEach((m, i) => {
      const text = answer.then((texts) => texts[i] ?? 'null');
      // Read by runSteps; if another field fails first nobody does, which must not go unhandled.
      text.catch(() => undefined);
      out.set(m, text);
    });
  }
  return out;
}

/** The JSON kinds the built-in scalars take, and how the reference names what it expected. */
const SCALAR_VARIABLES: Readonly<Record<string, { expected: string; ok(v: unknown): boolean }>> = {
  Int: { expected: 'a 32-bit integer', ok: (v) => typeof v === 'number' },
  Float: { expected: 'a float', ok: (v) => typeof v === 'number' },
  String: { expected: 'a string', ok: (v) => typeof v === 'string' },
  Boolean: { expected: 'a boolean', ok: (v) => typeof v === 'boolean' },
};

function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return { boolean: 'a boolean', string: 'a string', number: 'a number', object: 'an object' }[typeof v as string] ?? 'a value';
}

/**
 * The reference engine's errors for the commonest variable mistakes: a required variable left out
 * (`expecting a value for non-nullable variable: "id"`), and a built-in scalar given the wrong
 * JSON kind (`expected a 32-bit integer for type 'Int', but found a string`). Anything else is
 * left to graphql-js's coercion.
 */
function variableProblem(definitions: readonly VariableDefinitionNode[], values: Record<string, unknown>): EngineError | null {
  for (const d of definitions) {
    const name = d.variable.name.value;
    const value = values[name];
    if (value === undefined) {
      if (d.type.kind === Kind.NON_NULL_TYPE && !d.defaultValue) {
        return new EngineError('validation-failed', `expecting a value for non-nullable variable: "${name}"`, { path: '$' });
      }
      continue;
    }
    const nonNull = d.type.kind === Kind.NON_NULL_TYPE;
    const inner = nonNull ? (d.type as { type: TypeNode }).type : d.type;
    if (inner.kind !== Kind.NAMED_TYPE || (value === null && !nonNull)) continue;
    const scalar = SCALAR_VARIABLES[inner.name.value];
    if (scalar && !scalar.ok(value)) {
      const message = `expected ${scalar.expected} for type '${inner.name.value}', but found ${describeJson(value)}`;
      return new EngineError('validation-failed', message, { path: '$.variableValues' });
    }
  }
  return null;
}

const NO_VARIABLES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

const USED_VARIABLES = new WeakMap<PreparedOperation, ReadonlySet<string>>();

/** The variables the operation reads, through the fragments it spreads; computed once per plan. */
function usedVariables(prepared: PreparedOperation): ReadonlySet<string> {
  let used = USED_VARIABLES.get(prepared);
  if (used) return used;
  const names = new Set<string>();
  const seen = new Set<string>();
  const pending: ASTNode[] = [prepared.operation.selectionSet, ...(prepared.operation.directives ?? [])];
  while (pending.length > 0) {
    visit(pending.pop()!, {
      Variable(node) {
        names.add(node.name.value);
      },
      FragmentSpread(node) {
        const fragment = prepared.fragments[node.name.value];
        if (fragment && !seen.has(node.name.value)) {
          seen.add(node.name.value);
          pending.push(fragment);
        }
      },
    });
  }
  used = names;
  USED_VARIABLES.set(prepared, used);
  return used;
}

/** Coerces the request's variables against the operation; operations without variables skip graphql-js. */
function coerceVariables(prepared: PreparedOperation, request: GraphQLRequest): Record<string, unknown> {
  const given = request.variables;
  if (given) {
    // As the reference: a value for a variable the operation never uses is refused.
    let unexpected: string[] | undefined;
    for (const name of Object.keys(given)) {
      if (!usedVariables(prepared).has(name)) (unexpected ??= []).push(name);
    }
    if (unexpected) {
      throw new EngineError('validation-failed', `unexpected variables in variableValues: ${unexpected.join(', ')}`, { path: '$' });
    }
  }
  const definitions = prepared.operation.variableDefinitions;
  if (!definitions || definitions.length === 0) return NO_VARIABLES;
  const quick = coerceBuiltInScalars(prepared, request.variables);
  if (quick) return quick;
  const problem = variableProblem(definitions, request.variables ?? {});
  if (problem) throw problem;
  const coerced = getVariableValues(prepared.roleSchema.schema, definitions, request.variables);
  if (coerced.errors) {
    throw new EngineError('validation-failed', coerced.errors[0]!.message, { path: '$.variableValues' });
  }
  return coerced.coerced;
}

interface ScalarVariable {
  name: string;
  nonNull: boolean;
  /** The value as graphql-js would coerce it, or undefined when it would not accept it as is. */
  coerce: (v: unknown) => unknown;
}

const MAX_INT = 2147483647;
const MIN_INT = -2147483648;
/** graphql-js's parseValue of the built-in scalars, for the values they accept unchanged (or, ID, as text). */
const BUILT_IN_COERCIONS = new Map<GraphQLScalarType, (v: unknown) => unknown>([
  [GraphQLInt, (v) => (typeof v === 'number' && Number.isInteger(v) && v <= MAX_INT && v >= MIN_INT ? v : undefined)],
  [GraphQLFloat, (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)],
  [GraphQLString, (v) => (typeof v === 'string' ? v : undefined)],
  [GraphQLBoolean, (v) => (typeof v === 'boolean' ? v : undefined)],
  [GraphQLID, (v) => (typeof v === 'string' ? v : typeof v === 'number' && Number.isInteger(v) ? String(v) : undefined)],
]);

const SCALAR_VARIABLE_PLANS = new WeakMap<PreparedOperation, readonly ScalarVariable[] | null>();

/** Null when a definition is not a built-in scalar without a default value (graphql-js coerces those). */
function scalarVariablePlan(prepared: PreparedOperation): readonly ScalarVariable[] | null {
  let plan = SCALAR_VARIABLE_PLANS.get(prepared);
  if (plan !== undefined) return plan;
  const scalars: ScalarVariable[] = [];
  plan = scalars;
  for (const d of prepared.operation.variableDefinitions ?? []) {
    const nonNull = d.type.kind === Kind.NON_NULL_TYPE;
    const named = nonNull ? (d.type as { type: TypeNode }).type : d.type;
    const type = named.kind === Kind.NAMED_TYPE ? prepared.roleSchema.schema.getType(named.name.value) : undefined;
    const coerce = type instanceof GraphQLScalarType ? BUILT_IN_COERCIONS.get(type) : undefined;
    if (d.defaultValue || !coerce) {
      plan = null;
      break;
    }
    scalars.push({ name: d.variable.name.value, nonNull, coerce });
  }
  SCALAR_VARIABLE_PLANS.set(prepared, plan);
  return plan;
}

/**
 * The common case without graphql-js: every variable a built-in scalar given a value of its kind
 * (or a nullable one given null or nothing). Anything else returns undefined, and the full
 * coercion runs, with its errors.
 */
function coerceBuiltInScalars(prepared: PreparedOperation, given: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const plan = scalarVariablePlan(prepared);
  if (plan === null) return undefined;
  const out: Record<string, unknown> = {};
  for (const v of plan) {
    const value = given !== undefined && Object.hasOwn(given, v.name) ? given[v.name] : undefined;
    if (value === undefined || value === null) {
      if (v.nonNull) return undefined;
      if (value === null) out[v.name] = null;
      continue;
    }
    const coerced = v.coerce(value);
    if (coerced === undefined) return undefined;
    out[v.name] = coerced;
  }
  return out;
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
