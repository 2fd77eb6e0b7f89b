/**
 * Serves GraphQL over HTTP: `/v1/graphql` and `/v1alpha1/graphql` by POST (one request or a
 * batch) and GET, plus the explain endpoint. POST is a raw route (the hot path: no koa context per
 * request); GET goes through koa. Both share handler.ts. Part of the `graphql` API of
 * --enabled-apis.
 */
import { asFunction } from 'awilix';
import { definePlugin } from '../../../core/plugin.js';
import { parseJsonBody, readRawBody } from '../../../core/http/body.js';
import { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import { parseGraphQLHttpBody, parseGraphQLQueryString } from '../../../core/graphql/execute/request.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
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
        ({ schemaCacheRef, config }: { schemaCacheRef: SchemaCacheRef; config: ServerConfig }) =>
          new GraphQLExecutor(schemaCacheRef, config),
      ).singleton(),
    });
    const config = container.resolve<ServerConfig>('config');
    const deps = { container, hooks, config };

    hooks.onHttpRoutes.tap('api/graphql', ({ router, raw }) => {
      for (const [path, mode] of ENDPOINTS) {
        raw.post(path, async ({ req, ip }) => {
          const exchange = await handleGraphQL(deps, mode, req.headers, ip, async () =>
            parseGraphQLHttpBody(parseJsonBody(await readRawBody(req, config.maxRequestBodySize))),
          );
          return { status: exchange.status, body: exchange.body, contentType: 'application/json', headers: exchange.headers };
        });
        router.get(path, async (ctx) => {
          const exchange = await handleGraphQL(deps, mode, ctx.headers, ctx.ip, async () => ({
            batch: false,
            request: parseGraphQLQueryString(ctx.query),
          }));
          for (const [name, value] of exchange.headers) ctx.append(name, value);
          if (exchange.session) ctx.state.session = exchange.session;
          ctx.status = exchange.status;
          ctx.type = 'application/json';
          ctx.body = exchange.body;
        });
      }
      router.post(EXPLAIN_PATH, explainRoute(container, hooks, config));
    });
  },
});
