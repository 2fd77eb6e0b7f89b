/**
 * Running remote parts of a request. A RoleRemote is one remote schema as one role sees it (its
 * view, customized types and presets); `send` posts one operation with several root selections
 * and turns the answer back into the client's shape: `__typename` values customized, joins of
 * remote relationships on remote types filled (one call per relationship per level), phantom
 * join fields removed and keys kept in selection order.
 */
import { Kind, print, type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLSchema, type SelectionNode } from 'graphql';
import {
  EngineError,
  stringifyLossless,
  type ExternalContext,
  type OutgoingHttp,
  type PlanContext,
  type RemoteFieldGroup,
  type RemoteFieldPart,
  type RemoteJoin,
} from '../../../core/sdk/index.js';
import { answerData, postGraphQL, type RemoteCall } from './client.js';
import type { Customizer } from './customize.js';
import type { RemoteSchemaDefinition } from './definition.js';
import { configuredHeaders, DEFAULT_TIMEOUT_SECONDS, resolveUrl, writtenUrl } from './definition.js';
import { remoteHeaders } from './headers.js';
import type { PresetIndex } from './presets.js';
import { newShape, Rewriter, type Shape } from './rewrite.js';
import type { RemoteRoleTypes } from './types.js';

/** One remote schema of a snapshot: its definition, upstream schema and how to call it. */
export interface RemoteRuntime {
  name: string;
  definition: RemoteSchemaDefinition;
  upstream: GraphQLSchema;
  customizer: Customizer;
  http: OutgoingHttp;
  env: NodeJS.ProcessEnv;
}

/** A remote relationship on a remote type, as the rewriter needs it. */
export interface TypeJoin {
  /** Fields of the type the join reads (original names). */
  lhs: string[];
  /** The join of one selection of the field in this request. */
  plan(node: FieldNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>, ctx: ExternalContext, declared: ReadonlyMap<string, string>): RemoteJoin;
}

export interface RoleRemote {
  runtime: RemoteRuntime;
  role: string;
  /** The role's restricted schema (original names), or the upstream schema. */
  view: GraphQLSchema;
  types: RemoteRoleTypes;
  presets: PresetIndex | null;
  /** A remote relationship named `field` (customized) on a type of this remote (original name). */
  typeJoin(typeOriginal: string, field: string): TypeJoin | undefined;
}

/** The call for this request: URL, configured, session and (when forwarded) client headers. */
export function remoteCall(runtime: Pick<RemoteRuntime, 'definition' | 'env'>, ctx: ExternalContext | null): RemoteCall {
  const def = runtime.definition;
  let url: string;
  let configured: Array<[string, string]>;
  try {
    url = resolveUrl(def, runtime.env);
    configured = configuredHeaders(def, runtime.env);
  } catch (e) {
    throw new EngineError('remote-schema-error', (e as Error).message);
  }
  const session = ctx ? ctx.session.variables : { 'x-svc-role': 'admin' };
  const headers = remoteHeaders({ configured, session, client: ctx && def.forward_client_headers ? ctx.headers : null });
  return { url, writtenUrl: writtenUrl(def), headers, timeoutMs: (def.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000 };
}

export interface OutgoingRoot {
  /** The field as sent (original names); its response key is its alias or name. */
  node: FieldNode;
  shape: Shape;
}

/** Sends root selections in one operation; answers each root's value, processed for the client. */
export async function send(
  remote: RoleRemote,
  rewriter: Rewriter,
  ctx: ExternalContext,
  operation: 'query' | 'mutation',
  roots: readonly OutgoingRoot[],
  declared: ReadonlyMap<string, string>,
): Promise<unknown[]> {
  const data = await post(remote, rewriter, ctx, operation, roots.map((r) => r.node), declared);
  const out = roots.map((r) => {
    const key = r.node.alias?.value ?? r.node.name.value;
    if (!(key in data)) throw new EngineError('remote-schema-error', `expecting key ${key}`);
    return data[key];
  });
  await Promise.all(roots.map((r, i) => processAnswer(out[i], r.shape, remote, ctx)));
  return out;
}

type Obj = Record<string, unknown>;

/** Customizes `__typename` values, fills joins and strips phantoms, in place. */
export async function processAnswer(value: unknown, shape: Shape, remote: RoleRemote, ctx: ExternalContext): Promise<void> {
  const batches = new Map<RemoteJoin, { rows: Obj[]; keys: string[]; lhs: Array<Array<[string, string]>> }>();
  const withJoins: Array<{ row: Obj; shape: Shape }> = [];
  const walk = (v: unknown, s: Shape): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, s);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const row = v as Obj;
    for (const k of s.typenames) {
      const t = row[k];
      if (typeof t === 'string') row[k] = remote.runtime.customizer.typeName(t);
    }
    for (const [k, child] of s.children) walk(row[k], child);
    if (s.joins.length === 0) return;
    withJoins.push({ row, shape: s });
    for (const j of s.joins) {
      // Phantoms missing: the object is of another type than the one the relationship is on.
      if (!j.lhs.every(([, alias]) => alias in row)) continue;
      let b = batches.get(j.join);
      if (!b) batches.set(j.join, (b = { rows: [], keys: [], lhs: [] }));
      b.rows.push(row);
      b.keys.push(j.key);
      b.lhs.push(j.lhs);
    }
  };
  walk(value, shape);
  if (withJoins.length === 0) return;
  await Promise.all(
    [...batches].map(async ([join, b]) => {
      const keys = b.rows.map((row, i) => Object.fromEntries(b.lhs[i]!.map(([f, alias]) => [f, row[alias] ?? null])));
      const values = await join.resolve(keys, ctx);
      b.rows.forEach((row, i) => (row[b.keys[i]!] = values[i] ?? null));
    }),
  );
  for (const { row, shape: s } of withJoins) {
    const entries: Array<[string, unknown]> = [];
    for (const k of s.order) if (k in row) entries.push([k, row[k]]);
    for (const k of Object.keys(row)) delete row[k];
    for (const [k, v] of entries) if (!s.phantoms.has(k)) row[k] = v;
  }
}

/** One planned root field of a remote schema. */
export interface RemotePart extends RemoteFieldPart {
  field: FieldNode;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** Declared types of the operation's variables the field may use (customized names). */
  declared: ReadonlyMap<string, string>;
  /** The part is a root-field namespace: its selection is the remote operation's. */
  namespace: boolean;
}

/** Runs a role's root fields of one remote schema and operation type: one request per operation. */
export class RemoteRootGroup implements RemoteFieldGroup {
  constructor(
    readonly remote: RoleRemote,
    readonly operation: 'query' | 'mutation',
    readonly rootType: GraphQLObjectType,
  ) {}

  plan(field: FieldNode, ctx: PlanContext, namespace: boolean): RemotePart {
    const declared = new Map<string, string>();
    const fragments = ctx.fragments;
    const note = (name: string): void => {
      const t = ctx.variableType(name);
      if (t) declared.set(name, t);
    };
    // Every variable the operation declares may be reached through fragments: note them all.
    for (const name of variablesIn(field, fragments)) note(name);
    return { group: this, field, fragments, declared, namespace };
  }

  async run(parts: readonly RemoteFieldPart[], ctx: ExternalContext): Promise<string[]> {
    const own = parts as readonly RemotePart[];
    const flat = own.filter((p) => !p.namespace);
    const results = new Map<RemotePart, string>();
    const jobs: Array<Promise<void>> = [];
    if (flat.length > 0) {
      jobs.push(
        (async () => {
          const declared = new Map(flat.flatMap((p) => [...p.declared]));
          const rewriter = new Rewriter(this.remote, flat[0]!.fragments, ctx, declared);
          const roots = flat.map((p): OutgoingRoot => {
            const shape = newShape();
            const [node] = rewriter.field(p.field, this.rootType.name, shape) as FieldNode[];
            return { node: node!, shape: shape.children.get(p.field.alias?.value ?? p.field.name.value) ?? newShape() };
          });
          const values = await send(this.remote, rewriter, ctx, this.operation, roots, declared);
          flat.forEach((p, i) => results.set(p, stringifyLossless(values[i] ?? null)));
        })(),
      );
    }
    for (const p of own.filter((x) => x.namespace)) {
      jobs.push(
        (async () => {
          const rewriter = new Rewriter(this.remote, p.fragments, ctx, p.declared);
          const shape = newShape();
          const set = rewriter.selectionSet(p.field.selectionSet!, this.rootType.name, shape);
          const value = await sendSelection(this.remote, rewriter, ctx, this.operation, set.selections, shape, p.declared);
          results.set(p, stringifyLossless(value));
        })(),
      );
    }
    await Promise.all(jobs);
    return own.map((p) => results.get(p) ?? 'null');
  }
}

/** Sends a whole selection set as the operation (a namespace's fields); answers the processed data. */
async function sendSelection(
  remote: RoleRemote,
  rewriter: Rewriter,
  ctx: ExternalContext,
  operation: 'query' | 'mutation',
  selections: readonly SelectionNode[],
  shape: Shape,
  declared: ReadonlyMap<string, string>,
): Promise<unknown> {
  const data = await post(remote, rewriter, ctx, operation, selections, declared);
  await processAnswer(data, shape, remote, ctx);
  return data;
}

/** One operation of these selections (original names) with the variables they use; answers `data`. */
async function post(
  remote: RoleRemote,
  rewriter: Rewriter,
  ctx: ExternalContext,
  operation: 'query' | 'mutation',
  selections: readonly SelectionNode[],
  declared: ReadonlyMap<string, string>,
): Promise<Record<string, unknown>> {
  const { definitions, values } = rewriter.variables(selections, declared);
  const query = print({
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: operation as never,
        // The client's operation name is kept, as the reference does (the remote's logs name it).
        ...(ctx.operationName ? { name: { kind: Kind.NAME, value: ctx.operationName } } : {}),
        variableDefinitions: definitions,
        selectionSet: { kind: Kind.SELECTION_SET, selections },
      },
    ],
  });
  const body: Record<string, unknown> = { query };
  if (definitions.length > 0) body['variables'] = values;
  if (ctx.operationName) body['operationName'] = ctx.operationName;
  return answerData(await postGraphQL(remote.runtime.http, remoteCall(remote.runtime, ctx), body, ctx.responseHeaders));
}

/** Names of the variables a field uses, through the fragments it spreads. */
export function variablesIn(field: FieldNode, fragments: Readonly<Record<string, FragmentDefinitionNode>>): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as { kind?: string; name?: { value: string } };
    if (n.kind === Kind.VARIABLE && n.name) out.add(n.name.value);
    if (n.kind === Kind.FRAGMENT_SPREAD && n.name && !seen.has(n.name.value)) {
      seen.add(n.name.value);
      const f = fragments[n.name.value];
      if (f) walk(f.selectionSet);
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'loc' && typeof v === 'object') walk(v);
  };
  walk(field);
  return out;
}
