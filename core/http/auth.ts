/**
 * Authenticates a request through the `onRequestAuth` hook. API plugins call this on their routes
 * (health and version need no credentials). When no auth mode accepts the request it is refused,
 * naming what was missing.
 */
import type { Context } from 'koa';
import { EngineError } from '../errors.js';
import type { KernelHooks } from '../hooks.js';
import type { AuthRequest, Session } from '../auth/session.js';
import type { AppRouterState } from './types.js';

export async function authenticateRequest(ctx: Context, hooks: KernelHooks, body?: unknown): Promise<Session> {
  const state = ctx.state as AppRouterState;
  if (state.session) return state.session;
  const request: AuthRequest = { headers: ctx.headers, ip: ctx.ip, body, responseHeaders: [] };
  const session = await hooks.onRequestAuth.promise(request);
  for (const [name, value] of request.responseHeaders) ctx.append(name, value);
  if (!session) {
    throw new EngineError('access-denied', 'x-svc-admin-secret/x-svc-access-key required, but not found', {
      status: 401,
    });
  }
  state.session = session;
  return session;
}
