/**
 * The call to the authentication webhook. GET forwards the client's headers minus the ones that
 * describe the client's own connection or body (Document 2 §5.5); POST sends
 * `{"headers": {...all client headers}, "request": <client body or null>}`. Both add
 * `Content-Type: application/json` and the engine's `User-Agent`, as the reference engine does.
 * The call goes through the shared OutgoingHttp client: the whole exchange has a deadline and the
 * answer a size cap, so a slow or hostile webhook costs bounded time and memory.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ENGINE_VERSION, type OutgoingResponse } from '../../../core/sdk/index.js';

/** Document 2 §5.5, lower-cased. */
export const IGNORED_CLIENT_HEADERS: ReadonlySet<string> = new Set([
  'content-length', 'content-type', 'content-md5', 'user-agent', 'host', 'origin', 'referer', 'accept',
  'accept-encoding', 'accept-language', 'accept-datetime', 'cache-control', 'connection', 'dnt',
]);

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) belong to the client's connection to the engine; forwarding
 * `Transfer-Encoding` or `Expect` would corrupt or stall the webhook request itself.
 */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect',
]);

export type HookMode = 'GET' | 'POST';

export type HookResponse = OutgoingResponse;

export type HookHeaders = Record<string, string | string[]>;

function defaultHeaders(): HookHeaders {
  return { 'content-type': 'application/json', 'user-agent': `svc-graphql-engine/${ENGINE_VERSION}` };
}

export function getModeHeaders(client: IncomingHttpHeaders): HookHeaders {
  const headers = defaultHeaders();
  for (const [name, value] of Object.entries(client)) {
    const lower = name.toLowerCase();
    if (value === undefined || IGNORED_CLIENT_HEADERS.has(lower) || HOP_BY_HOP.has(lower)) continue;
    headers[lower] = value;
  }
  return headers;
}

export function postModeBody(client: IncomingHttpHeaders, body: unknown): Buffer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(client)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return Buffer.from(JSON.stringify({ headers, request: body === undefined ? null : body }));
}
