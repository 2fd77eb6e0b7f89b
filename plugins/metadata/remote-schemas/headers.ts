/**
 * The headers of a call to a remote schema, by priority (names compared case-insensitively):
 * the configured headers, then the user's session variables as `x-svc-*` headers, then (with
 * `forward_client_headers`) the client's own headers minus hop-by-hop and content headers and
 * every `x-svc-*` one (so the admin secret never leaves), with `X-Forwarded-*` added.
 */
import { ENGINE_VERSION } from '../../../core/sdk/index.js';

/** Client headers never forwarded (the reference engine's list). */
const NOT_FORWARDED = new Set([
  'content-length', 'content-md5', 'user-agent', 'host', 'origin', 'referer', 'accept', 'accept-encoding',
  'accept-language', 'accept-datetime', 'cache-control', 'connection', 'dnt', 'content-type',
]);

export interface HeaderInputs {
  configured: ReadonlyArray<[string, string]>;
  session: Readonly<Record<string, string>> | null;
  client: Readonly<Record<string, string | string[] | undefined>> | null;
}

export function remoteHeaders(inputs: HeaderInputs): Record<string, string> {
  const out: Record<string, string> = {};
  const taken = new Set<string>();
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    if (taken.has(key)) return;
    taken.add(key);
    out[name] = value;
  };
  add('Content-Type', 'application/json');
  for (const [n, v] of inputs.configured) add(n, v);
  for (const [n, v] of Object.entries(inputs.session ?? {})) add(n, v);
  if (inputs.client) {
    for (const [n, v] of Object.entries(inputs.client)) {
      const key = n.toLowerCase();
      if (v === undefined || NOT_FORWARDED.has(key) || key.startsWith('x-svc-')) continue;
      add(n, Array.isArray(v) ? v.join(', ') : v);
    }
    const fwd = (name: string, from: string): void => {
      const v = inputs.client![from];
      if (typeof v === 'string') add(name, v);
    };
    fwd('X-Forwarded-Host', 'host');
    fwd('X-Forwarded-User-Agent', 'user-agent');
    fwd('X-Forwarded-Origin', 'origin');
  }
  add('User-Agent', `svc-graphql-engine/${ENGINE_VERSION}`);
  return out;
}
