/**
 * The store key a rate-limited operation counts under: the role, then the client IP or the values
 * of the limit's `unique_params` session variables (missing ones as null), as JSON after
 * `svc:lease:`. The text is the one every engine instance, and every earlier version, builds for
 * the same request (JSON.stringify of the list), since instances share the count by key.
 *
 * A request does not build that text: most operations never go to the store (leases.ts), and with
 * a limit per user a string built and hashed per request is a cost every request pays. What
 * depends only on the role and the limit is the key's *scope* (one per role and limit); a request
 * gives only its *part* (the user id itself, the IP), which the local lease table is keyed by, and
 * the store key is built from scope and part when a reservation is sent.
 */
import type { Session } from '../../../core/sdk/index.js';
import type { UniqueParams } from '../../metadata/api-limits/limits.js';

/**
 * A request's own part of its key: the one session variable's value (null when missing), the IP,
 * or, with several variables, the JSON of their values; the empty string when the key is the role's.
 */
export type KeyPart = string | null;

export interface CounterKey {
  /** The store key's text up to the request's own values, and what names the key's scope locally. */
  readonly scope: string;
  /** The request's part (no text is built for the common one-variable and IP cases). */
  part(session: Session, ip: string): KeyPart;
  /** The store key of a part of this scope. */
  text(part: KeyPart): string;
}

export function counterKeyFor(role: string, unique: UniqueParams | null): CounterKey {
  const head = `svc:lease:[${JSON.stringify(role)}`;
  // No variables listed: the role's key, as the list of values is empty.
  if (unique === null || unique.length === 0) {
    const key = `${head}]`;
    return { scope: head, part: () => '', text: () => key };
  }
  if (unique === 'IP') {
    const scope = `${head},"ip"`;
    return { scope, part: (_session, ip) => ip, text: (ip) => `${scope},${JSON.stringify(ip)}]` };
  }
  const names = unique.map((v) => v.toLowerCase());
  // A distinct scope per variable list: the parts of two lists must never meet in one table.
  const scope = `${head}\u0000${JSON.stringify(names)}`;
  if (names.length === 1) {
    const name = names[0]!;
    return {
      scope,
      part: (session) => session.variables[name] ?? null,
      text: (value) => `${head},${value === null ? 'null' : JSON.stringify(value)}]`,
    };
  }
  return {
    scope,
    // The JSON of the values: `[` then the values, which the store key continues after the role.
    part: (session) => JSON.stringify(names.map((name) => session.variables[name] ?? null)),
    text: (values) => (values === null ? `${head}]` : `${head},${values.slice(1)}`),
  };
}
