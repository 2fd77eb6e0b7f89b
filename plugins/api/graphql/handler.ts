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
  authenticate,
  type AuthRequest,
  type AwilixContainer,
  type ExecutionMeta,
  graphqlErrorJson,
  type GraphQLExecutor,
  type GraphQLHttpRequest,
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

export async function handleGraphQL(
  deps: GraphQLHandlerDeps,
  mode: GraphQLMode,
  method: 'GET' | 'POST',
  headers: IncomingHttpHeaders,
  ip: string,
  read: () => Promise<GraphQLHttpRequest>,
): Promise<GraphQLExchange> {
  const { hooks, config } = deps;
  const auth: AuthRequest = { headers, ip, responseHeaders: [] };
  const contentType = responseMediaType(headers.accept);
  let session: Session | undefined;
  let operationType = '';
  try {
    const request = await read();
    if (!request.batch) auth.body = request.request;
    session = await authenticate(hooks, auth);
    const executor = executorOf(deps);
    // API limits and the allow-list run inside the executor, once per operation (see onRequestLimit).
    if (!request.batch) {
      const meta: ExecutionMeta = { endpoint: 'graphql', ip, operationCount: 1, queryOnly: method === 'GET', headers, responseHeaders: auth.responseHeaders };
      try {
        const body = await executor.execute(request.request, session, meta);
        return { status: 200, body, contentType, headers: auth.responseHeaders, session, operationType: meta.operationType ?? '' };
      } finally {
        operationType = meta.operationType ?? '';
      }
    }
    const s = session;
    const showInternal = showInternalTo(s, config);
    const meta = { endpoint: 'graphql', ip, operationCount: request.requests.length, headers, responseHeaders: auth.responseHeaders };
    // Each request of a batch answers in its own slot, errors included.
    const parts = await Promise.all(
      request.requests.map((r) => executor.execute(r, s, meta).catch((e: unknown) => graphqlErrorJson(e, showInternal).json)),
    );
    return { status: 200, body: `[${parts.join(',')}]`, contentType, headers: auth.responseHeaders, session, operationType: 'batch' };
  } catch (e) {
    const { status, json } = graphqlErrorJson(e, showInternalTo(session, config));
    const realStatus =
      mode === 'v1alpha1' ||
      contentType === GRAPHQL_RESPONSE_JSON ||
      TRANSPORT_STATUSES.has(status) ||
      (status === 401 && config.preserve401Errors);
    const headers = status === 405 ? [...auth.responseHeaders, ['Allow', 'POST'] as [string, string]] : auth.responseHeaders;
    return { status: realStatus ? status : 200, body: json, contentType, headers, session, operationType };
  }
}
