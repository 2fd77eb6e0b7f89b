/**
 * Renders errors for the REST-style APIs (metadata, query, config): `{path, error, code}` with the
 * error's status, plus `internal` only for admins (with --admin-internal-errors) or in dev mode.
 */
import type { Context } from 'koa';
import { errorBody, toEngineError } from '../errors.js';
import { showInternalTo } from '../auth/session.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { AppRouterState } from './types.js';

// Where they were first defined; they belong to lower layers now (errors, auth/session).
export { errorBody, showInternalTo, toEngineError };


export function mayShowInternal(ctx: Context, config: ServerConfig): boolean {
  return showInternalTo((ctx.state as Partial<AppRouterState>).session, config);
}


export function renderError(ctx: Context, e: unknown, config: ServerConfig, logger: Logger): void {
  const err = toEngineError(e);
  if (err.status >= 500) logger.error('http-log', { request_id: (ctx.state as AppRouterState).requestId, error: String(e), stack: (e as Error)?.stack });
  ctx.status = err.status;
  ctx.type = 'application/json';
  ctx.body = errorBody(err, mayShowInternal(ctx, config));
}
