/**
 * Actions in a role's schema (`onSchemaBuild`, after the sources): each action the role may run
 * (admin: every one) is a root field of its type, answered by a custom planner. A synchronous
 * action calls its handler and answers the output; an asynchronous one (a mutation) stores the
 * request and answers its id at once, and a query field of the same name reads the result
 * (`id`, `created_at`, `errors`, `output`) for the session that asked.
 */
import {
  GraphQLNonNull,
  GraphQLObjectType,
  getArgumentValues,
  getNamedType,
  type FieldNode,
  type GraphQLField,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLOutputType,
} from 'graphql';
import {
  ADMIN_ROLE,
  EngineError,
  collectFields,
  toEngineError,
  isAdmin,
  registryFor,
  scalarType,
  subSelection,
  type ExternalContext,
  type RemoteFieldGroup,
  type RemoteFieldPart,
  type RemoteRootFieldPlanner,
  type Session,
  type Json,
  type OutgoingHttp,
  type PlanContext,
  type RootFieldEntry,
  type SchemaBuildContext,
  type SchemaDraft,
} from '../../../core/sdk/index.js';
import type { ResolvedAction, ResolvedActions } from './resolve.js';
import { CustomTypeBuilder } from './types.js';
import { planSelection, projectOutput, type SelectionPlan } from './output.js';
import { callHandler, forwardedHeaders } from './call.js';
import type { ActionLogStore } from './action-log.js';

export interface ActionSchemaDeps {
  actions(ctx: SchemaBuildContext): ResolvedActions;
  http(): OutgoingHttp;
  actionLog(): ActionLogStore;
  stringifyNumericTypes: boolean;
}

/** What an action field's run gets per request (the executor's external-call context). */
type ActionRequest = ExternalContext;
type ActionRun = (req: ActionRequest) => Promise<string>;
interface ActionPart extends RemoteFieldPart {
  run: ActionRun;
}

/**
 * Actions ride on the executor's `remote` root fields (answered outside the databases): each
 * action field is its own group, and every occurrence in an operation runs on its own.
 */
function actionPlanner(plan: (field: FieldNode, parent: GraphQLObjectType, ctx: PlanContext) => ActionRun): RemoteRootFieldPlanner {
  const group: RemoteFieldGroup = { run: (parts, ctx) => Promise.all(parts.map((p) => (p as ActionPart).run(ctx).catch(withNullData))) };
  return { kind: 'remote', group, plan: (field, parent, ctx): ActionPart => ({ group, run: plan(field, parent, ctx) }) };
}

/** The reference answers an action's failure as `{"errors":[...],"data":null}`. */
function withNullData(e: unknown): never {
  const err = toEngineError(e);
  throw new EngineError(err.code, err.message, {
    status: err.status,
    path: err.path,
    internal: err.internal,
    cause: err.cause,
    ...(err.extensions ? { extensions: err.extensions } : {}),
    nullData: true,
  });
}

type ResultRead = (req: ActionRequest) => Promise<{ text: string; final: boolean }>;
interface ResultPart extends RemoteFieldPart {
  read: ResultRead;
}

/**
 * An asynchronous action's result field: read once by a query, polled by a subscription until
 * the action has completed or failed (core/subscriptions/polled.ts).
 */
function resultPlanner(plan: (field: FieldNode, parent: GraphQLObjectType, ctx: PlanContext) => ResultRead): RemoteRootFieldPlanner {
  const read = (parts: readonly RemoteFieldPart[], ctx: ActionRequest) => Promise.all(parts.map((p) => (p as ResultPart).read(ctx)));
  const group: RemoteFieldGroup = {
    run: async (parts, ctx) => (await read(parts, ctx)).map((r) => r.text),
    poll: async (parts, ctx) => {
      const results = await read(parts, ctx);
      return { values: results.map((r) => r.text), final: results.every((r) => r.final) };
    },
  };
  return { kind: 'remote', group, plan: (field, parent, ctx): ResultPart => ({ group, read: plan(field, parent, ctx) }) };
}

const sessionOf = (req: ActionRequest): Session => req.session as Session;

const rootPath = (field: FieldNode): string => `$.selectionSet.${field.alias?.value ?? field.name.value}`;

function fieldOf(parent: GraphQLObjectType, field: FieldNode): GraphQLField<unknown, unknown> {
  return parent.getFields()[field.name.value]!;
}

function inputOf(def: GraphQLField<unknown, unknown>, field: FieldNode, variables: Readonly<Record<string, unknown>>): Json {
  // Plain objects, so the payload serialises as the client wrote it.
  return JSON.parse(JSON.stringify(getArgumentValues(def, field, variables as Record<string, unknown>))) as Json;
}

export function addActionsToDraft(draft: SchemaDraft, ctx: SchemaBuildContext, deps: ActionSchemaDeps): SchemaDraft {
  const resolved = deps.actions(ctx);
  if (resolved.actions.size === 0) return draft;
  const reg = registryFor(draft);
  const types = new CustomTypeBuilder(reg, resolved.types, ctx.cache, ctx.role);
  const planDeps = { types, objects: resolved.types.objects };
  for (const action of resolved.actions.values()) {
    if (ctx.role !== ADMIN_ROLE && !action.roles.has(ctx.role)) continue;
    const def = action.meta.definition;
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const a of action.arguments) args[a.name] = { type: types.input(a.type), ...(a.description !== undefined ? { description: a.description } : {}) };
    const description = action.meta.comment !== undefined ? { description: action.meta.comment } : {};
    const target = def.type === 'query' ? draft.query : draft.mutation;
    if (target.has(action.name)) continue;
    if (def.kind === 'synchronous') {
      target.set(action.name, { config: { type: types.output(action.outputType), args, ...description }, planner: syncPlanner(action, ctx, deps, planDeps) });
      continue;
    }
    target.set(action.name, { config: { type: new GraphQLNonNull(scalarType('uuid')), args, ...description }, planner: asyncMutationPlanner(action, deps) });
    // The result is read by a query field and, polled, by a subscription field of the same name.
    const result = asyncQueryEntry(action, ctx, deps, types, planDeps);
    if (!draft.query.has(action.name)) draft.query.set(action.name, result);
    if (!draft.subscription.has(action.name)) draft.subscription.set(action.name, result);
  }
  return draft;
}

function syncPlanner(action: ResolvedAction, ctx: SchemaBuildContext, deps: ActionSchemaDeps, planDeps: Parameters<typeof planSelection>[2]): RemoteRootFieldPlanner {
  return actionPlanner((field, parent, plan) => {
      const def = fieldOf(parent, field);
      const selection = planSelection(getNamedType(def.type) as GraphQLObjectType, field.selectionSet, planDeps, plan, rootPath(field));
      return async (req: ActionRequest) => {
        const output = await callHandler({
          http: deps.http(),
          webhook: action.webhook,
          actionName: action.name,
          input: inputOf(def, field, req.variables),
          sessionVariables: req.session.variables,
          requestQuery: req.query ?? null,
          forwarded: action.meta.definition.forward_client_headers ? forwardedHeaders(req.headers) : [],
        });
        return projectOutput(output, def.type, selection, runContext(ctx, req, deps));
      };
  });
}

function runContext(ctx: SchemaBuildContext, req: ActionRequest, deps: ActionSchemaDeps) {
  return {
    cache: ctx.cache,
    variables: req.variables,
    session: sessionOf(req),
    stringifyNumericTypes: deps.stringifyNumericTypes,
    // The operation's time limit covers the relationship statements too.
    ...(req.deadline !== undefined ? { run: { deadline: req.deadline } } : {}),
  };
}

function asyncMutationPlanner(action: ResolvedAction, deps: ActionSchemaDeps): RemoteRootFieldPlanner {
  return actionPlanner((field, parent) => {
      const def = fieldOf(parent, field);
      return async (req: ActionRequest) => {
        const forwarded = action.meta.definition.forward_client_headers ? forwardedHeaders(req.headers) : [];
        const { id } = await deps.actionLog().create({
          actionName: action.name,
          input: inputOf(def, field, req.variables),
          sessionVariables: req.session.variables,
          requestHeaders: forwarded,
        });
        return JSON.stringify(id);
      };
  });
}

/** `<action>(id: uuid!): <action>` with `id`, `created_at`, `errors`, `output`. */
function asyncQueryEntry(
  action: ResolvedAction,
  ctx: SchemaBuildContext,
  deps: ActionSchemaDeps,
  types: CustomTypeBuilder,
  planDeps: Parameters<typeof planSelection>[2],
): RootFieldEntry {
  const outputType: GraphQLOutputType = types.output(action.outputType);
  const resultType = types.registry.get(action.name, () =>
    new GraphQLObjectType({
      name: action.name,
      description: `fields of action: "${action.name}"`,
      fields: () => ({
        id: { type: new GraphQLNonNull(scalarType('uuid')), description: 'the unique id of an action' },
        created_at: { type: new GraphQLNonNull(scalarType('timestamptz')), description: 'the time at which this action was created' },
        errors: { type: scalarType('json'), description: 'errors related to the invocation' },
        output: { type: outputType, description: 'the output fields of this action' },
      }),
    }),
  );
  const planner = resultPlanner((field, parent, plan) => {
      const def = fieldOf(parent, field);
      type Part = { key: string; kind: 'id' | 'created_at' | 'errors' | 'typename' } | { key: string; kind: 'output'; selection: SelectionPlan };
      const parts: Part[] = collectFields(field.selectionSet, plan).map((f): Part => {
        if (f.name === 'output') {
          const named = getNamedType(outputType) as GraphQLObjectType;
          return { key: f.key, kind: 'output', selection: planSelection(named, subSelection(f), planDeps, plan, `${rootPath(field)}.${f.key}`) };
        }
        return { key: f.key, kind: f.name === '__typename' ? 'typename' : (f.name as 'id' | 'created_at' | 'errors') };
      });
      return async (req: ActionRequest) => {
        const input = getArgumentValues(def, field, req.variables as Record<string, unknown>) as { id: string };
        const admin = isAdmin(sessionOf(req));
        const row = await deps.actionLog().read(action.name, String(input.id), req.session.variables, admin);
        // Not there (or not this session's): nothing will change for this subscriber either.
        if (!row) return { text: 'null', final: true };
        const out: string[] = [];
        for (const p of parts) {
          let value: string;
          switch (p.kind) {
            case 'id':
              value = JSON.stringify(row.id);
              break;
            case 'created_at':
              value = JSON.stringify(row.createdAt);
              break;
            case 'typename':
              value = JSON.stringify(action.name);
              break;
            case 'errors':
              value = JSON.stringify(admin ? row.errors : withoutInternal(row.errors));
              break;
            case 'output':
              value = row.status === 'completed' ? await projectOutput(row.output, outputType, p.selection, runContext(ctx, req, deps)) : 'null';
              break;
          }
          out.push(`${JSON.stringify(p.key)}:${value}`);
        }
        return { text: `{${out.join(',')}}`, final: row.status === 'completed' || row.status === 'error' };
      };
  });
  return {
    config: { type: resultType, args: { id: { type: new GraphQLNonNull(scalarType('uuid')) } }, ...(action.meta.comment !== undefined ? { description: action.meta.comment } : {}) },
    planner,
  };
}

/** Non-admins do not see the `internal` part of a stored error. */
function withoutInternal(errors: Json): Json {
  if (errors === null || typeof errors !== 'object' || Array.isArray(errors)) return errors;
  const { internal: _internal, ...rest } = errors as Record<string, Json>;
  return rest;
}
