/**
 * The expiry a webhook can put in its success object (Document 2 §5.11): `Cache-Control` with
 * `max-age=<seconds>` (relative) or `Expires` as an HTTP date (absolute). An unreadable value is
 * reported and ignored, as the reference engine does (it only logs a warning).
 */

export interface HookExpiry {
  expiresAt?: Date;
  /** Why a value present in the answer was not used. */
  problem?: string;
}

function field(answer: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(answer).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : answer[key];
}

function maxAge(value: string): number | undefined {
  for (const part of value.split(',')) {
    const m = /^\s*(?:max-age|s-maxage)\s*=\s*"?(\d+)"?\s*$/i.exec(part);
    if (m) return Number(m[1]);
  }
  return undefined;
}

export function hookExpiry(answer: Readonly<Record<string, string>>, nowMs: number): HookExpiry {
  const problems: string[] = [];
  const cacheControl = field(answer, 'cache-control');
  if (cacheControl !== undefined) {
    const seconds = maxAge(cacheControl);
    if (seconds !== undefined) return { expiresAt: new Date(nowMs + seconds * 1000) };
    problems.push(`Cache-Control has no max-age: ${cacheControl}`);
  }
  const expires = field(answer, 'expires');
  if (expires !== undefined) {
    const at = Date.parse(expires);
    if (!Number.isNaN(at)) return { expiresAt: new Date(at) };
    problems.push(`Expires is not a valid HTTP date: ${expires}`);
  }
  return problems.length > 0 ? { problem: problems.join('; ') } : {};
}
