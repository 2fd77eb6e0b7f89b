/**
 * `POST /v1/graphql/explain` (admin only): the SQL and database plan of each root field of a
 * query, as the given session (`user`) would run it. Errors answer like the metadata API
 * (`{path, error, code}` with a real status), as in the reference engine.
 */
import {
  type AppRouterState,
  authenticateRequest,
  type AwilixContainer,
  EngineError,
  explainRequest,
  type GraphQLExecutor,
  isAdmin,
  type KernelHooks,
  parseExplainBody,
  readJsonBody,
  type ServerConfig,
} from '../../../core/sdk/index.js';
import type { Middleware } from 'koa';

export const EXPLAIN_PATH = '/v1/graphql/explain';

export function explainRoute(container: AwilixContainer, hooks: KernelHooks, config: ServerConfig): Middleware<AppRouterState> {
  return async (ctx) => {
    const body = await readJsonBody(ctx, config.maxRequestBodySize);
    const session = await authenticateRequest(ctx, hooks, body);
    if (!isAdmin(session)) throw new EngineError('access-denied', 'restricted access : admin only', { path: '$' });
    const explain = parseExplainBody(body);
    ctx.type = 'application/json';
    ctx.body = await explainRequest(container.resolve<GraphQLExecutor>('graphqlExecutor'), explain);
  };
}
