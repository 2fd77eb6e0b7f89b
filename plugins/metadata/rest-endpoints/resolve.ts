/**
 * The REST endpoints of a snapshot, resolved once: each endpoint's URL split into literal and
 * `:param` segments, its query found in its collection and parsed. What cannot be served becomes
 * an inconsistent object with the reference's reasons (empty segments, duplicate variables,
 * ambiguous URLs, a missing query, a subscription) and is left out of routing.
 */
import { getOperationAST, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import {
  type InconsistentObject,
  perSnapshot,
  type SchemaCache,
} from '../../../core/sdk/index.js';
import { findCollection, isRestMethod, parseGraphQL, restEndpointsIn, type RestEndpoint, type RestMethod } from '../query-collections/collections.js';

export type Segment = { kind: 'literal'; value: string } | { kind: 'param'; name: string };

export interface ResolvedEndpoint {
  name: string;
  url: string;
  segments: Segment[];
  methods: ReadonlySet<RestMethod>;
  query: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  comment: string | null;
}

export interface ResolvedEndpoints {
  endpoints: ResolvedEndpoint[];
  problems: InconsistentObject[];
}

export const splitUrl = (url: string): string[] => url.split('/');

export function toSegments(url: string): Segment[] {
  return splitUrl(url).map((s) => (s.startsWith(':') ? { kind: 'param', name: s.slice(1) } : { kind: 'literal', value: s }));
}

/** Two endpoints answer some same request: same length, every segment pair equal or a param. */
function overlaps(a: readonly Segment[], b: readonly Segment[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const t = b[i]!;
    return s.kind === 'param' || t.kind === 'param' || s.value === t.value;
  });
}

const endpointObject = (e: RestEndpoint, reason: string): InconsistentObject => ({
  type: 'rest_endpoint',
  name: `rest_endpoint ${e.name}`,
  definition: e,
  reason,
});

function resolveOne(cache: SchemaCache, e: RestEndpoint): ResolvedEndpoint | { problem: string } {
  const context = (message: string) => ({ problem: `Inconsistent object: in endpoint ${e.name}: ${message}` });
  const segments = splitUrl(e.url);
  if (segments.some((s) => s === '' || s === ':')) return { problem: `Empty segments or unnamed variables are not allowed: ${e.url}` };
  const params = segments.filter((s) => s.startsWith(':'));
  if (new Set(params).size !== params.length) return { problem: `Duplicate variables found in endpoint path: ${e.url}` };
  if (!Array.isArray(e.methods) || e.methods.length === 0 || !e.methods.every(isRestMethod)) return context('methods must be a non-empty list of GET, POST, PUT, PATCH, DELETE');
  const ref = e.definition?.query;
  const collection = findCollection(cache.metadata, ref?.collection_name);
  if (!collection) return context(`query collection with name "${ref?.collection_name}" does not exist`);
  const listed = collection.definition?.queries?.find((q) => q.name === ref.query_name);
  if (!listed) return context(`query with name "${ref.query_name}" not found in collection "${ref.collection_name}"`);
  let document: DocumentNode;
  try {
    document = parseGraphQL(listed.query, '$');
  } catch (err) {
    return context((err as Error).message);
  }
  const operation = getOperationAST(document);
  if (!operation) return context(`query with name ${listed.name} must contain exactly one operation`);
  if (operation.operation === 'subscription') return context(`query with name ${listed.name} is a subscription`);
  return {
    name: e.name,
    url: e.url,
    segments: toSegments(e.url),
    methods: new Set(e.methods),
    query: listed.query,
    document,
    operation,
    comment: e.comment ?? null,
  };
}

export const resolvedEndpoints = perSnapshot((cache: SchemaCache): ResolvedEndpoints => {
  const endpoints: ResolvedEndpoint[] = [];
  const problems: InconsistentObject[] = [];
  const byName = new Map<string, RestEndpoint>();
  for (const e of restEndpointsIn(cache.metadata)) {
    const r = resolveOne(cache, e);
    if ('problem' in r) problems.push(endpointObject(e, r.problem));
    else {
      endpoints.push(r);
      byName.set(r.name, e);
    }
  }
  // Ambiguity is judged among the endpoints that resolved; each one involved is reported.
  const ambiguous = new Set<ResolvedEndpoint>();
  for (const [i, a] of endpoints.entries()) {
    const clash = endpoints.filter((b, j) => j !== i && overlaps(a.segments, b.segments) && [...a.methods].some((m) => b.methods.has(m)));
    if (clash.length === 0) continue;
    ambiguous.add(a);
    problems.push(endpointObject(byName.get(a.name)!, `Ambiguous URL paths: ${[a, ...clash].map((x) => x.url).join(', ')}`));
  }
  return { endpoints: endpoints.filter((e) => !ambiguous.has(e)), problems };
});

export type RouteMatch =
  | { kind: 'found'; endpoint: ResolvedEndpoint; params: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; allowed: RestMethod[] }
  | { kind: 'ambiguous' };

export function matchEndpoint(cache: SchemaCache, path: string, method: string): RouteMatch {
  const parts = splitUrl(path).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const onPath = resolvedEndpoints(cache).endpoints.filter(
    (e) => e.segments.length === parts.length && e.segments.every((s, i) => s.kind === 'param' || s.value === parts[i]),
  );
  if (onPath.length === 0) return { kind: 'not-found' };
  const withMethod = onPath.filter((e) => e.methods.has(method as RestMethod));
  if (withMethod.length === 0) {
    const allowed = new Set<RestMethod>();
    for (const e of onPath) for (const m of e.methods) allowed.add(m);
    return { kind: 'method-not-allowed', allowed: [...allowed] };
  }
  if (withMethod.length > 1) return { kind: 'ambiguous' };
  const endpoint = withMethod[0]!;
  const params: Record<string, string> = {};
  endpoint.segments.forEach((s, i) => {
    if (s.kind === 'param') params[s.name] = parts[i]!;
  });
  return { kind: 'found', endpoint, params };
}
