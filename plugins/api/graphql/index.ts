/**
 * Serves GraphQL over HTTP: `/v1/graphql` (errors answered with HTTP 200, as GraphQL clients
 * expect; 401s too unless --preserve-401-errors) and `/v1alpha1/graphql` (real statuses), by POST
 * (one request or a batch) and GET. Part of the `graphql` API of --enabled-apis.
 */
import type { Context } from 'koa';
import { asFunction } from 'awilix';
import { definePlugin } from '../../../core/plugin.js';
import { authenticateRequest } from '../../../core/http/auth.js';
import { readJsonBody } from '../../../core/http/body.js';
import { mayShowInternal } from '../../../core/http/error-response.js';
import { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import { graphqlErrorJson } from '../../../core/graphql/execute/errors.js';
import {
  parseGraphQLHttpBody,
  parseGraphQLQueryString,
  type GraphQLHttpRequest,
  type GraphQLRequest,
} from '../../../core/graphql/execute/request.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { Session } from '../../../core/auth/session.js';
import type { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
import type { AppRouterState } from '../../../core/http/types.js';
import { EXPLAIN_PATH, explainRoute } from './explain.js';

type Mode = 'v1' | 'v1alpha1';

export default definePlugin({
  name: 'graphql',
  kind: 'api',
  api: 'graphql',
  register(container, hooks) {
    container.register({
      graphqlExecutor: asFunction(
        ({ schemaCacheRef, config }: { schemaCacheRef: SchemaCacheRef; config: ServerConfig }) =>
          new GraphQLExecutor(schemaCacheRef, config),
      ).singleton(),
    });
    const config = container.resolve<ServerConfig>('config');

    const handle = (mode: Mode, read: (ctx: Context) => Promise<GraphQLHttpRequest>) =>
      async (ctx: Context & { state: AppRouterState }) => {
        ctx.type = 'application/json';
        let status = 200;
        try {
          const request = await read(ctx);
          const session = await authenticateRequest(ctx, hooks, request.batch ? undefined : request.request);
          const count = request.batch ? request.requests.length : 1;
          if (hooks.onRequestLimit.isUsed()) await hooks.onRequestLimit.promise({ session, endpoint: 'graphql', operationCount: count, ip: ctx.ip });
          const executor = container.resolve<GraphQLExecutor>('graphqlExecutor');
          if (!request.batch) {
            ctx.body = await executor.execute(request.request, session);
            return;
          }
          const parts = await Promise.all(request.requests.map((r) => executeOne(executor, r, session, ctx, config)));
          ctx.body = `[${parts.join(',')}]`;
        } catch (e) {
          const { status: errStatus, json } = graphqlErrorJson(e, mayShowInternal(ctx, config));
          status = errStatus;
          ctx.body = json;
        }
        ctx.status = mode === 'v1alpha1' || (status === 401 && config.preserve401Errors) ? status : 200;
      };

    const fromBody = async (ctx: Context) => parseGraphQLHttpBody(await readJsonBody(ctx, config.maxRequestBodySize));
    const fromQuery = async (ctx: Context): Promise<GraphQLHttpRequest> => ({
      batch: false,
      request: parseGraphQLQueryString(ctx.query),
    });

    hooks.onHttpRoutes.tap('api/graphql', ({ router }) => {
      for (const [path, mode] of [
        ['/v1/graphql', 'v1'],
        ['/v1alpha1/graphql', 'v1alpha1'],
      ] as const) {
        router.post(path, handle(mode, fromBody));
        router.get(path, handle(mode, fromQuery));
      }
      router.post(EXPLAIN_PATH, explainRoute(container, hooks, config));
    });
  },
});

/** One request of a batch: its own errors answer in its own slot. */
async function executeOne(
  executor: GraphQLExecutor,
  request: GraphQLRequest,
  session: Session,
  ctx: Context,
  config: ServerConfig,
): Promise<string> {
  try {
    return await executor.execute(request, session);
  } catch (e) {
    return graphqlErrorJson(e, mayShowInternal(ctx, config)).json;
  }
}
