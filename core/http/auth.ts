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
  // (The hook's promise has already resolved a tap's pending Session: the value is never a promise.)
  return (session as Promise<Session | undefined>).then(requireSession);
}

/**
 * `authenticate` without a promise when it can: when every auth mode is a synchronous tap (admin
 * secret, unauthorized role, JWT) and tracing is off, the taps run here in the hook's order and
 * the first Session wins, as in tapable's bail hook. A tap answering with a promise (a JWT not in
 * the session cache) makes the result that promise. Errors are thrown synchronously; the async
 * path rejects with the same errors. Anything else (an async tap such as the webhook's, an
 * interceptor, tracing) takes the hook's own path.
 */
export function authenticateNow(hooks: KernelHooks, request: AuthRequest): Session | Promise<Session> {
  const hook = hooks.onRequestAuth;
  const taps = hook.taps;
  if (tracing.active || hook.interceptors.length > 0) return authenticate(hooks, request);
  for (let i = 0; i < taps.length; i++) if (taps[i]!.type !== 'sync') return authenticate(hooks, request);
  for (let i = 0; i < taps.length; i++) {
    const answer = (taps[i]!.fn as (r: AuthRequest) => Session | Promise<Session> | undefined)(request);
    if (answer === undefined) continue;
    return answer instanceof Promise ? answer.then(requireSession) : requireSession(answer);
  }
  return requireSession(undefined);
}

function requireSession(session: Session | null | undefined): Session {
  if (!session) {
    throw new EngineError('access-denied', 'x-svc-admin-secret/x-svc-access-key required, but not found', {
      status: 401,
    });
  }
  return session;
}
