/**
 * The call to the authentication webhook. GET forwards the client's headers minus the ones that
 * describe the client's own connection or body (Document 2 §5.5); POST sends
 * `{"headers": {...all client headers}, "request": <client body or null>}`. Both add
 * `Content-Type: application/json` and the engine's `User-Agent`, as the reference engine does.
 * The whole exchange has a deadline; node:http is used directly so that no header is added
 * behind the engine's back.
 */
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ENGINE_VERSION } from '../../../core/version.js';

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

export interface HookResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export class HookCallFailure extends Error {}

function defaultHeaders(): OutgoingHttpHeaders {
  return { 'content-type': 'application/json', 'user-agent': `svc-graphql-engine/${ENGINE_VERSION}` };
}

export function getModeHeaders(client: IncomingHttpHeaders): OutgoingHttpHeaders {
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

export function callHook(
  url: URL,
  method: HookMode,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  timeoutMs: number,
): Promise<HookResponse> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = body ? { ...headers, 'content-length': String(body.length) } : headers;
    const req = send(url, { method, headers: outgoing });
    const timer = setTimeout(() => {
      req.destroy(new HookCallFailure(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (e: Error): void => {
      clearTimeout(timer);
      reject(e instanceof HookCallFailure ? e : new HookCallFailure(e.message, { cause: e }));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.end(body);
  });
}
