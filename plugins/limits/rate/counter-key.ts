/**
 * The store key a rate-limited operation counts under: the role, then the client IP or the values
 * of the limit's `unique_params` session variables (missing ones as null), as JSON after
 * `svc:lease:`. The text is the one every engine instance, and every earlier version, builds for
 * the same request (JSON.stringify of the list), since instances share the count by key. What
 * depends only on the role and the limit (the JSON of the role, the lower-cased variable names)
 * is built once per snapshot and role; a request appends only its own values.
 */
import type { Session } from '../../../core/sdk/index.js';
import type { UniqueParams } from '../../metadata/api-limits/limits.js';

/** The counter key of one request (its session and client IP). */
export type CounterKey = (session: Session, ip: string) => string;

export function counterKeyFor(role: string, unique: UniqueParams | null): CounterKey {
  const head = `svc:lease:[${JSON.stringify(role)}`;
  if (unique === null) {
    const key = `${head}]`;
    return () => key;
  }
  if (unique === 'IP') {
    const prefix = `${head},"ip",`;
    return (_session, ip) => `${prefix}${JSON.stringify(ip)}]`;
  }
  const names = unique.map((v) => v.toLowerCase());
  return (session) => {
    let key = head;
    for (const name of names) {
      const value = session.variables[name];
      key += value === undefined || value === null ? ',null' : `,${JSON.stringify(value)}`;
    }
    return `${key}]`;
  };
}
