/**
 * One GraphQL-over-HTTP exchange, independent of the web framework: authenticate, check limits,
 * execute one request or a batch, and render errors. `/v1/graphql` answers errors with HTTP 200
 * (401 too unless --preserve-401-errors); `/v1alpha1/graphql` keeps the real status.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AwilixContainer } from 'awilix';
import type { KernelHooks } from '../../../core/hooks.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { AuthRequest, Session } from '../../../core/auth/session.js';
import { authenticate } from '../../../core/http/auth.js';
import { showInternalTo } from '../../../core/http/error-response.js';
import type { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import { graphqlErrorJson } from '../../../core/graphql/execute/errors.js';
import type { GraphQLHttpRequest } from '../../../core/graphql/execute/request.js';

export type GraphQLMode = 'v1' | 'v1alpha1';

export interface GraphQLExchange {
  status: number;
  body: string;
  /** Headers an auth mode asked for (a webhook's Set-Cookie). */
  headers: Array<[string, string]>;
  session: Session | undefined;
}

export interface GraphQLHandlerDeps {
  container: AwilixContainer;
  hooks: KernelHooks;
  config: ServerConfig;
}

export async function handleGraphQL(
  deps: GraphQLHandlerDeps,
  mode: GraphQLMode,
  headers: IncomingHttpHeaders,
  ip: string,
  read: () => Promise<GraphQLHttpRequest>,
): Promise<GraphQLExchange> {
  const { hooks, config } = deps;
  const auth: AuthRequest = { headers, ip, responseHeaders: [] };
  let session: Session | undefined;
  try {
    const request = await read();
    if (!request.batch) auth.body = request.request;
    session = await authenticate(hooks, auth);
    const count = request.batch ? request.requests.length : 1;
    if (hooks.onRequestLimit.isUsed()) await hooks.onRequestLimit.promise({ session, endpoint: 'graphql', operationCount: count, ip });
    const executor = deps.container.resolve<GraphQLExecutor>('graphqlExecutor');
    if (!request.batch) {
      return { status: 200, body: await executor.execute(request.request, session), headers: auth.responseHeaders, session };
    }
    const s = session;
    const showInternal = showInternalTo(s, config);
    // Each request of a batch answers in its own slot, errors included.
    const parts = await Promise.all(
      request.requests.map((r) => executor.execute(r, s).catch((e: unknown) => graphqlErrorJson(e, showInternal).json)),
    );
    return { status: 200, body: `[${parts.join(',')}]`, headers: auth.responseHeaders, session };
  } catch (e) {
    const { status, json } = graphqlErrorJson(e, showInternalTo(session, config));
    const shown = mode === 'v1alpha1' || (status === 401 && config.preserve401Errors) ? status : 200;
    return { status: shown, body: json, headers: auth.responseHeaders, session };
  }
}
