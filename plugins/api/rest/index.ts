/**
 * Serves the REST endpoints of the metadata at `/api/rest/<url>` (any of GET, POST, PUT, PATCH,
 * DELETE) and their OpenAPI 3 document at `GET /api/swagger/json` (admin only). A call is
 * authenticated like a GraphQL request (`onRequestAuth`), its variables are merged from the query
 * string, the JSON body and the path (./variables.ts), and its query runs through the shared
 * GraphQL executor (so the allow-list and API limits apply); the answer is the bare `data` object,
 * errors are `{path, error, code}` with their real status, unknown paths 404, other methods 405
 * with `Allow`. Part of the `graphql` API of --enabled-apis; safe to disable.
 */
import type { Context } from 'koa';
import {
  ADMIN_ROLE,
  authenticateRequest,
  definePlugin,
  EngineError,
  type GraphQLExecutor,
  isAdmin,
  isPlainObject,
  parseJsonBody,
  readRawBody,
  requireJsonContentType,
  type SchemaCacheRef,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import { matchEndpoint, resolvedEndpoints } from '../../metadata/rest-endpoints/resolve.js';
import { restVariables } from './variables.js';
import { openApiDocument } from './openapi.js';

const PREFIX = '/api/rest/';

async function bodyObject(ctx: Context, limit: number): Promise<Record<string, unknown>> {
  if (ctx.method === 'GET') return {};
  const raw = await readRawBody(ctx.req, limit);
  if (raw.length === 0) return {};
  // A body that is not declared JSON is what a cross-site form sends (docs/security.md).
  requireJsonContentType(ctx.req.headers['content-type']);
  const body = parseJsonBody(raw);
  if (!isPlainObject(body)) throw new EngineError('bad-request', 'the request body must be a JSON object of variables', { path: '$' });
  return body;
}

export default definePlugin({
  name: 'rest',
  kind: 'api',
  api: 'graphql',
  dependsOn: ['metadata/rest-endpoints', 'api/graphql'],
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    hooks.onHttpRoutes.tap('api/rest', ({ router }) => {
      router.all(`${PREFIX}{*path}`, async (ctx) => {
        const session = await authenticateRequest(ctx, hooks);
        const cache = container.resolve<SchemaCacheRef>('schemaCacheRef').current;
        const match = matchEndpoint(cache, ctx.path.slice(PREFIX.length), ctx.method);
        if (match.kind === 'not-found') throw new EngineError('not-found', 'Endpoint not found', { path: '$' });
        if (match.kind === 'method-not-allowed') {
          ctx.set('Allow', match.allowed.join(', '));
          throw new EngineError('method-not-allowed', `Allowed methods: ${match.allowed.join(', ')}`, { path: '$' });
        }
        if (match.kind === 'ambiguous') throw new EngineError('unexpected', 'Multiple endpoints match request', { status: 500, path: '$' });
        const { endpoint, params } = match;
        const query = new Map(new URLSearchParams(ctx.querystring));
        const variables = restVariables(endpoint.operation, query, await bodyObject(ctx, config.maxRequestBodySize), params);
        const executor = container.resolve<GraphQLExecutor>('graphqlExecutor');
        const data = await executor.executeData(
          { query: endpoint.query, variables, operationName: endpoint.operation.name?.value ?? null },
          session,
          { endpoint: 'rest', ip: ctx.ip, operationCount: 1 },
        );
        ctx.type = 'application/json';
        ctx.body = data;
      });
      router.get('/api/swagger/json', async (ctx) => {
        const session = await authenticateRequest(ctx, hooks);
        if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
        const cache = container.resolve<SchemaCacheRef>('schemaCacheRef').current;
        const admin = await cache.schemaFor(ADMIN_ROLE);
        ctx.body = openApiDocument(resolvedEndpoints(cache).endpoints, admin.schema);
      });
    });
  },
});
