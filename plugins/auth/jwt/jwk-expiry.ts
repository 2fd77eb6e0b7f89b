/**
 * When a fetched JWK set goes stale, from the JWK response's `Cache-Control` (then `Expires`), with
 * the reference engine's rules: `must-revalidate` means max-age or now, `no-cache`/`no-store` mean
 * now, otherwise `max-age` (or `s-maxage`); an unparseable header is reported, not fatal.
 */

export type JwkExpiry = { expiresAt: number } | { expiresAt?: undefined; problem?: string };

function directives(value: string): Map<string, string | undefined> | undefined {
  const result = new Map<string, string | undefined>();
  for (const raw of value.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return undefined;
    result.set(name, eq < 0 ? undefined : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return result;
}

function seconds(v: string | undefined): number | undefined | null {
  if (v === undefined) return undefined;
  return /^\d+$/.test(v) ? Number(v) : null;
}

export function jwkExpiry(cacheControl: string | null, expires: string | null, nowMs: number): JwkExpiry {
  if (cacheControl !== null) {
    const d = directives(cacheControl);
    const maxAge = d && (d.has('max-age') ? seconds(d.get('max-age')) : seconds(d.get('s-maxage')));
    if (!d || maxAge === null) return { problem: 'Failed parsing Cache-Control header from JWK response' };
    const fromMaxAge = maxAge === undefined ? undefined : nowMs + maxAge * 1000;
    if (d.has('must-revalidate')) return { expiresAt: fromMaxAge ?? nowMs };
    if (d.has('no-cache') || d.has('no-store')) return { expiresAt: nowMs };
    if (fromMaxAge !== undefined) return { expiresAt: fromMaxAge };
  }
  if (expires !== null) {
    const at = Date.parse(expires);
    if (Number.isNaN(at)) {
      return { problem: 'Failed parsing Expires header from JWK response. Value of header is not a valid timestamp' };
    }
    return { expiresAt: at };
  }
  return {};
}
