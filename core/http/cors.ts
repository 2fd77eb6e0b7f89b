/**
 * CORS per `--cors-domain` (exact origins, `*`, or wildcard subdomains such as
 * `https://*.example.com:8080`) and `--disable-cors`. With no domain configured every origin is
 * allowed, as in the reference engine. Stricter than the reference: when credentials can come from
 * cookies (JWT read from a cookie, or a webhook, which receives the client's cookies) and every
 * origin is allowed, origins are reflected WITHOUT `Access-Control-Allow-Credentials`, so no other
 * site can act with a visitor's cookies, unless --cors-wildcard-credentials opts back in.
 */
import type { Middleware } from 'koa';
import type { ServerConfig } from '../config/types.js';

export interface CorsPolicy {
  allowed(origin: string): boolean;
  /** Whether `Access-Control-Allow-Credentials: true` is sent to allowed origins. */
  credentials: boolean;
}

function allowsEveryOrigin(domains: readonly string[] | undefined): boolean {
  return !domains || domains.length === 0 || domains.includes('*');
}

/** Whether an auth mode reads credentials a browser attaches by itself (cookies). */
export function cookieCredentials(config: ServerConfig): boolean {
  if (config.authHook !== undefined) return true;
  const header = config.jwtSecret?.['header'];
  const type = typeof header === 'object' && header !== null ? (header as { type?: unknown }).type : undefined;
  return typeof type === 'string' && type.toLowerCase() === 'cookie';
}

export function corsPolicy(config: ServerConfig): CorsPolicy {
  const everyOrigin = allowsEveryOrigin(config.corsDomain);
  return {
    allowed: originMatcher(config.corsDomain),
    credentials: !(everyOrigin && cookieCredentials(config)) || config.corsWildcardCredentials,
  };
}

export function originMatcher(domains: readonly string[] | undefined): (origin: string) => boolean {
  if (!domains || allowsEveryOrigin(domains)) return () => true;
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const d of domains) {
    const trimmed = d.trim().replace(/\/$/, '');
    if (!trimmed.includes('*')) {
      exact.add(trimmed.toLowerCase());
      continue;
    }
    const escaped = trimmed
      .toLowerCase()
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^.]+(?:\\.[^.]+)*');
    patterns.push(new RegExp(`^${escaped}$`));
  }
  return (origin) => {
    const o = origin.toLowerCase();
    return exact.has(o) || patterns.some((p) => p.test(o));
  };
}

/** The CORS headers of an actual (non-preflight) response to `origin`, or none when it isn't allowed. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Array<[string, string]> {
  if (!origin || !policy.allowed(origin)) return [];
  return policy.credentials
    ? [
        ['Access-Control-Allow-Origin', origin],
        ['Access-Control-Allow-Credentials', 'true'],
        ['Vary', 'Origin'],
      ]
    : [
        ['Access-Control-Allow-Origin', origin],
        ['Vary', 'Origin'],
      ];
}

export function cors(policy: CorsPolicy): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (!origin || !policy.allowed(origin)) {
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    if (policy.credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET,POST,PUT,PATCH,DELETE,OPTIONS');
      const requested = ctx.get('access-control-request-headers');
      if (requested) ctx.set('Access-Control-Allow-Headers', requested);
      ctx.set('Access-Control-Max-Age', '1728000');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
