/**
 * Renders errors for the REST-style APIs (metadata, query, config): `{path, error, code}` with the
 * error's status, plus `internal` only for admins (with --admin-internal-errors) or in dev mode.
 */
import type { Context } from 'koa';
import { EngineError, isEngineError } from '../errors.js';
import { isAdmin, type Session } from '../auth/session.js';
import type { ServerConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { AppRouterState } from './types.js';

export function toEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return e;
  return new EngineError('unexpected', 'an unexpected error occurred', { status: 500, internal: String(e), cause: e });
}

export function mayShowInternal(ctx: Context, config: ServerConfig): boolean {
  return showInternalTo((ctx.state as Partial<AppRouterState>).session, config);
}

/** Database and webhook detail goes to admins (with --admin-internal-errors) or everyone in dev mode. */
export function showInternalTo(session: Session | undefined, config: ServerConfig): boolean {
  if (config.devMode) return true;
  return config.adminInternalErrors && session !== undefined && isAdmin(session);
}

export function errorBody(err: EngineError, showInternal: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { path: err.path, error: err.message, code: err.code };
  if (showInternal && err.internal !== undefined) body['internal'] = err.internal;
  return body;
}

export function renderError(ctx: Context, e: unknown, config: ServerConfig, logger: Logger): void {
  const err = toEngineError(e);
  if (err.status >= 500) logger.error('http-log', { request_id: (ctx.state as AppRouterState).requestId, error: String(e), stack: (e as Error)?.stack });
  ctx.status = err.status;
  ctx.type = 'application/json';
  ctx.body = errorBody(err, mayShowInternal(ctx, config));
}
