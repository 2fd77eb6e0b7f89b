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
import { tracing } from '../tracing/tracing.js';

export async function authenticateRequest(ctx: Context, hooks: KernelHooks, body?: unknown): Promise<Session> {
  const state = ctx.state as AppRouterState;
  if (state.session) return state.session;
  const request: AuthRequest = { headers: ctx.headers, ip: ctx.ip, body, responseHeaders: [] };
  try {
    state.session = await authenticate(hooks, request);
    return state.session;
  } finally {
    for (const [name, value] of request.responseHeaders) ctx.append(name, value);
  }
}

/** Runs the auth modes; a request no mode accepts is refused. Response headers stay on `request`. */
export function authenticate(hooks: KernelHooks, request: AuthRequest): Promise<Session> {
  const session = tracing.active
    ? tracing.span('auth', {}, async (span) => {
        const s = await hooks.onRequestAuth.promise(request);
        if (s) span.setAttribute('svc.role', s.role);
        return s;
      })
    : hooks.onRequestAuth.promise(request);
  // Chained rather than awaited in an async function: one promise less per request.
  return session.then(requireSession);
}

function requireSession(session: Session | undefined): Session {
  if (!session) {
    throw new EngineError('access-denied', 'x-svc-admin-secret/x-svc-access-key required, but not found', {
      status: 401,
    });
  }
  return session;
}
