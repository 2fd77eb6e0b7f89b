/**
 * One GraphQL-over-HTTP exchange, independent of the web framework: authenticate, check limits,
 * execute one request or a batch, and render errors. `/v1/graphql` answers errors with HTTP 200
 * (401 too unless --preserve-401-errors); `/v1alpha1/graphql`, and any request accepting
 * `application/graphql-response+json`, keep the real status. Errors of the HTTP exchange itself
 * (405 a mutation over GET, 415 not JSON) keep their status everywhere: they say
 * the request was never a GraphQL request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  authenticateNow,
  type AuthRequest,
  type AwilixContainer,
  type ExecutionMeta,
  graphqlErrorJson,
  type GraphQLExecutor,
  type GraphQLHttpRequest,
  type GraphQLRequest,
  type KernelHooks,
  type ServerConfig,
  type Session,
  showInternalTo,
} from '../../../core/sdk/index.js';
import { GRAPHQL_RESPONSE_JSON, responseMediaType, type GraphQLMediaType } from './media-type.js';

export type GraphQLMode = 'v1' | 'v1alpha1';

export interface GraphQLExchange {
  status: number;
  body: string;
  contentType: GraphQLMediaType;
  /** Headers an auth mode or a remote schema asked for (a webhook's or a remote's Set-Cookie). */
  headers: Array<[string, string]>;
  session: Session | undefined;
  /** query, mutation, subscription, `batch`, or '' when the request failed before planning. */
  operationType: string;
}

export interface GraphQLHandlerDeps {
  container: AwilixContainer;
  hooks: KernelHooks;
  config: ServerConfig;
}

// The executor is a container singleton: resolved once per container, not once per request.
const EXECUTORS = new WeakMap<AwilixContainer, GraphQLExecutor>();

function executorOf(deps: GraphQLHandlerDeps): GraphQLExecutor {
  let executor = EXECUTORS.get(deps.container);
  if (executor === undefined) {
    executor = deps.container.resolve<GraphQLExecutor>('graphqlExecutor');
    EXECUTORS.set(deps.container, executor);
  }
  return executor;
}

const TRANSPORT_STATUSES: ReadonlySet<number> = new Set([405, 415]);

/** One request's exchange: what every step after reading the body needs. */
interface Exchange {
  deps: GraphQLHandlerDeps;
  mode: GraphQLMode;
  method: 'GET' | 'POST';
  headers: IncomingHttpHeaders;
  ip: string;
  auth: AuthRequest;
  contentType: GraphQLMediaType;
}

/**
 * Reads the request, authenticates it and runs it. After the body is read, nothing waits unless
 * it has to (an async auth mode, the database): steps are chained rather than awaited, so a
 * request costs one promise per real wait.
 */
export function handleGraphQL(
  deps: GraphQLHandlerDeps,
  mode: GraphQLMode,
  method: 'GET' | 'POST',
  headers: IncomingHttpHeaders,
  ip: string,
  read: () => Promise<GraphQLHttpRequest>,
): Promise<GraphQLExchange> {
  const x: Exchange = { deps, mode, method, headers, ip, auth: { headers, ip, responseHeaders: [] }, contentType: responseMediaType(headers.accept) };
  return read().then(
    (request) => authenticated(x, request),
    (e: unknown) => failure(x, e, undefined, ''),
  );
}

function authenticated(x: Exchange, request: GraphQLHttpRequest): GraphQLExchange | Promise<GraphQLExchange> {
  let session: Session | Promise<Session>;
  try {
    if (!request.batch) x.auth.body = request.request;
    session = authenticateNow(x.deps.hooks, x.auth);
  } catch (e) {
    return failure(x, e, undefined, '');
  }
  if (session instanceof Promise) {
    return session.then(
      (s) => executed(x, request, s),
      (e: unknown) => failure(x, e, undefined, ''),
    );
  }
  return executed(x, request, session);
}

function executed(x: Exchange, request: GraphQLHttpRequest, session: Session): GraphQLExchange | Promise<GraphQLExchange> {
  if (request.batch) return batch(x, request.requests, session).catch((e: unknown) => failure(x, e, session, ''));
  const { headers, ip, auth } = x;
  // API limits and the allow-list run inside the executor, once per operation (see onRequestLimit).
  const meta: ExecutionMeta = { endpoint: 'graphql', ip, operationCount: 1, queryOnly: x.method === 'GET', headers, responseHeaders: auth.responseHeaders };
  let body: string | Promise<string>;
  try {
    body = executorOf(x.deps).executeNow(request.request, session, meta);
  } catch (e) {
    return failure(x, e, session, meta.operationType ?? '');
  }
  if (typeof body === 'string') return answered(x, body, session, meta.operationType ?? '');
  return body.then(
    (text) => answered(x, text, session, meta.operationType ?? ''),
    (e: unknown) => failure(x, e, session, meta.operationType ?? ''),
  );
}

function answered(x: Exchange, body: string, session: Session, operationType: string): GraphQLExchange {
  return { status: 200, body, contentType: x.contentType, headers: x.auth.responseHeaders, session, operationType };
}

async function batch(x: Exchange, requests: readonly GraphQLRequest[], session: Session): Promise<GraphQLExchange> {
  const executor = executorOf(x.deps);
  const showInternal = showInternalTo(session, x.deps.config);
  const meta = { endpoint: 'graphql', ip: x.ip, operationCount: requests.length, headers: x.headers, responseHeaders: x.auth.responseHeaders };
  // Each request of a batch answers in its own slot, errors included.
  const parts = await Promise.all(requests.map((r) => executor.execute(r, session, meta).catch((e: unknown) => graphqlErrorJson(e, showInternal).json)));
  return { status: 200, body: `[${parts.join(',')}]`, contentType: x.contentType, headers: x.auth.responseHeaders, session, operationType: 'batch' };
}

function failure(x: Exchange, e: unknown, session: Session | undefined, operationType: string): GraphQLExchange {
  const { config } = x.deps;
  const { status, json } = graphqlErrorJson(e, showInternalTo(session, config));
  const realStatus =
    x.mode === 'v1alpha1' ||
    x.contentType === GRAPHQL_RESPONSE_JSON ||
    TRANSPORT_STATUSES.has(status) ||
    (status === 401 && config.preserve401Errors);
  const headers = status === 405 ? [...x.auth.responseHeaders, ['Allow', 'POST'] as [string, string]] : x.auth.responseHeaders;
  return { status: realStatus ? status : 200, body: json, contentType: x.contentType, headers, session, operationType };
}
