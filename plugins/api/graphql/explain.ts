/**
 * `POST /v1/graphql/explain` (admin only): the SQL and database plan of each root field of a
 * query, as the given session (`user`) would run it. Errors answer like the metadata API
 * (`{path, error, code}` with a real status), as in the reference engine.
 */
import type { AwilixContainer } from 'awilix';
import type { Middleware } from 'koa';
import { EngineError } from '../../../core/errors.js';
import { isAdmin } from '../../../core/auth/session.js';
import { authenticateRequest } from '../../../core/http/auth.js';
import { readJsonBody } from '../../../core/http/body.js';
import type { KernelHooks } from '../../../core/hooks.js';
import type { ServerConfig } from '../../../core/config/types.js';
import type { AppRouterState } from '../../../core/http/types.js';
import type { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';
import { explainRequest, parseExplainBody } from '../../../core/graphql/execute/explain.js';

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
