/**
 * CORS per `--cors-domain` (exact origins, `*`, or wildcard subdomains such as
 * `https://*.example.com:8080`) and `--disable-cors`. With no domain configured every origin is
 * allowed, as in the reference engine.
 */
import type { Middleware } from 'koa';

export function originMatcher(domains: readonly string[] | undefined): (origin: string) => boolean {
  if (!domains || domains.length === 0 || domains.includes('*')) return () => true;
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
export function corsHeaders(allowed: (origin: string) => boolean, origin: string | undefined): Array<[string, string]> {
  if (!origin || !allowed(origin)) return [];
  return [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Allow-Credentials', 'true'],
    ['Vary', 'Origin'],
  ];
}

export function cors(domains: readonly string[] | undefined): Middleware {
  const allowed = originMatcher(domains);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (!origin || !allowed(origin)) {
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Credentials', 'true');
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
