/**
 * Serves GraphQL over HTTP: `/v1/graphql` and `/v1alpha1/graphql` by POST (one request or a
 * batch, JSON only: 415 otherwise) and GET (queries only: a mutation is 405 with `Allow: POST`),
 * plus the explain endpoint. The response media type follows `Accept` (media-type.ts). POST is a
 * raw route (the hot path: no koa context per request); GET goes through koa. Both share
 * handler.ts. Part of the `graphql` API of --enabled-apis.
 */
import {
  asFunction,
  definePlugin,
  GraphQLExecutor,
  LimitGate,
  parseGraphQLHttpBody,
  parseGraphQLQueryString,
  readJsonRequest,
  type GraphQLHttpRequest,
  type Logger,
  type MetricsRegistry,
  type SchemaCacheRef,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { EXPLAIN_PATH, explainRoute } from './explain.js';
import { handleGraphQL, type GraphQLMode } from './handler.js';

const ENDPOINTS: ReadonlyArray<readonly [string, GraphQLMode]> = [
  ['/v1/graphql', 'v1'],
  ['/v1alpha1/graphql', 'v1alpha1'],
];

export default definePlugin({
  name: 'graphql',
  kind: 'api',
  api: 'graphql',
  register(container, hooks) {
    container.register({
      graphqlExecutor: asFunction(
        ({ schemaCacheRef, config, metrics }: { schemaCacheRef: SchemaCacheRef; config: ServerConfig; metrics: MetricsRegistry }) =>
          new GraphQLExecutor(schemaCacheRef, config, { hooks, gate: LimitGate.forContainer(container, hooks) }, metrics),
      ).singleton(),
    });
    const config = container.resolve<ServerConfig>('config');
    const logger = container.resolve<Logger>('logger');
    const deps = { container, hooks, config };
    // `query-log`: the operations a request asked for (variables are left out: they carry user data).
    const logQuery = (requestId: string, request: GraphQLHttpRequest): GraphQLHttpRequest => {
      if (logger.enabled('query-log', 'info')) {
        const ops = request.batch ? request.requests : [request.request];
        logger.info('query-log', { request_id: requestId, query: ops.map((r) => ({ operationName: r.operationName ?? null, query: r.query })) });
      }
      return request;
    };

    hooks.onHttpRoutes.tap('api/graphql', ({ router, raw }) => {
      for (const [path, mode] of ENDPOINTS) {
        // The exchange is the raw response as it is (its extra `session` is not read).
        raw.post(path, ({ req, ip, requestId }) =>
          handleGraphQL(deps, mode, 'POST', req.headers, ip, () =>
            readJsonRequest(req, config.maxRequestBodySize, (body) => logQuery(requestId, parseGraphQLHttpBody(body))),
          ),
        );
        router.get(path, async (ctx) => {
          const exchange = await handleGraphQL(deps, mode, 'GET', ctx.headers, ctx.ip, async () => ({
            batch: false,
            request: parseGraphQLQueryString(ctx.query),
          }));
          for (const [name, value] of exchange.headers) ctx.append(name, value);
          if (exchange.session) ctx.state.session = exchange.session;
          ctx.state.operationType = exchange.operationType;
          ctx.status = exchange.status;
          ctx.type = exchange.contentType;
          ctx.body = exchange.body;
        });
      }
      router.post(EXPLAIN_PATH, explainRoute(container, hooks, config));
    });
  },
});
