/**
 * Raw routes: plain Node handlers for the hottest endpoints (POST /v1/graphql), dispatched before
 * the koa app. They get the same request id, CORS headers, compression, error rendering and http
 * logs as koa routes, through the shared functions below, but skip the koa context and middleware
 * chain, which cost a measurable share of a small query (see docs/performance.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Logger } from '../logger.js';
import { errorBody, toEngineError } from './error-response.js';
import { corsHeaders } from './cors.js';

const gzipAsync = promisify(gzip);
const COMPRESS_THRESHOLD = 1024;

export interface RawRequest {
  req: IncomingMessage;
  requestId: string;
  ip: string;
}

export interface RawResponse {
  status: number;
  body: string;
  contentType: string;
  headers?: ReadonlyArray<readonly [string, string]>;
}

export type RawHandler = (request: RawRequest) => Promise<RawResponse>;

export class RawRoutes {
  private readonly posts = new Map<string, RawHandler>();

  post(path: string, handler: RawHandler): void {
    this.posts.set(path, handler);
  }

  match(req: IncomingMessage): RawHandler | undefined {
    if (req.method !== 'POST' || this.posts.size === 0) return undefined;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    return this.posts.get(q === -1 ? url : url.slice(0, q));
  }
}

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return (Array.isArray(given) ? given[0] : given) || randomUUID();
}

export function logHttp(logger: Logger, detail: { requestId: string; method: string; url: string; status: number; ip: string; httpVersion: string; startedNs: bigint }): void {
  if (!logger.enabled('http-log', 'info')) return;
  logger.info('http-log', {
    request_id: detail.requestId,
    http_info: { method: detail.method, url: detail.url, status: detail.status, ip: detail.ip, http_version: detail.httpVersion },
    operation: { request_id: detail.requestId, query_execution_time: Number(process.hrtime.bigint() - detail.startedNs) / 1e9 },
  });
}

export interface RawDispatchDeps {
  logger: Logger;
  corsAllowed: ((origin: string) => boolean) | null;
}

export async function dispatchRaw(handler: RawHandler, req: IncomingMessage, res: ServerResponse, deps: RawDispatchDeps): Promise<void> {
  const startedNs = process.hrtime.bigint();
  const requestId = requestIdOf(req);
  const ip = req.socket.remoteAddress ?? '';
  let response: RawResponse;
  try {
    response = await handler({ req, requestId, ip });
  } catch (e) {
    // Handlers render their own errors; this catches only the unforeseen.
    const err = toEngineError(e);
    deps.logger.error('http-log', { request_id: requestId, error: String(e), stack: (e as Error)?.stack });
    response = { status: err.status, body: JSON.stringify(errorBody(err, false)), contentType: 'application/json' };
  }
  const headers: OutgoingHttpHeaders = { 'content-type': `${response.contentType}; charset=utf-8`, 'x-request-id': requestId };
  for (const [name, value] of response.headers ?? []) appendHeader(headers, name, value);
  if (deps.corsAllowed) {
    for (const [name, value] of corsHeaders(deps.corsAllowed, req.headers.origin)) appendHeader(headers, name, value);
  }
  let payload: Buffer | string = response.body;
  const accepts = req.headers['accept-encoding'];
  if (accepts && /\bgzip\b/.test(accepts) && Buffer.byteLength(payload) >= COMPRESS_THRESHOLD) {
    payload = await gzipAsync(payload);
    headers['content-encoding'] = 'gzip';
    appendHeader(headers, 'vary', 'Accept-Encoding');
  }
  headers['content-length'] = Buffer.byteLength(payload);
  res.writeHead(response.status, headers);
  res.end(payload);
  logHttp(deps.logger, { requestId, method: 'POST', url: req.url ?? '', status: response.status, ip, httpVersion: req.httpVersion, startedNs });
}

function appendHeader(headers: OutgoingHttpHeaders, name: string, value: string): void {
  const key = name.toLowerCase();
  const existing = headers[key];
  if (existing === undefined) headers[key] = value;
  else if (key === 'vary') headers[key] = `${String(existing)}, ${value}`;
  else headers[key] = [...(Array.isArray(existing) ? existing : [String(existing)]), value];
}
