/**
 * Raw routes: plain Node handlers for the hottest endpoints (POST /v1/graphql), dispatched before
 * the koa app. They get the same request id, CORS headers, compression, error rendering and http
 * logs as koa routes, through the shared functions below, but skip the koa context and middleware
 * chain, which cost a measurable share of a small query (see docs/performance.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import { tracing } from '../tracing/tracing.js';
import { errorBody, toEngineError } from './error-response.js';
import { corsHeaders, type CorsPolicy } from './cors.js';
import { gzipBody } from './gzip.js';

/** The reference's reading of Accept-Encoding: a comma-separated list holding the token `gzip`. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((v) => v.trim() === 'gzip');
}

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
  /** The GraphQL operation type answered (query, mutation, subscription, batch), for metrics. */
  operationType?: string;
}

export type RawHandler = (request: RawRequest) => Promise<RawResponse>;

/** Takes over an HTTP upgrade request (websockets): answer or destroy `socket`. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export class RawRoutes {
  private readonly posts = new Map<string, RawHandler>();
  private upgradeHandler: UpgradeHandler | undefined;

  post(path: string, handler: RawHandler): void {
    this.posts.set(path, handler);
  }

  /** The one handler of HTTP upgrades (the websocket transport); it answers every path. */
  upgrade(handler: UpgradeHandler): void {
    if (this.upgradeHandler) throw new Error('an upgrade handler is already registered');
    this.upgradeHandler = handler;
  }

  /** Hands an upgrade request to the registered handler; without one, answers 404. */
  dispatchUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.upgradeHandler) {
      this.upgradeHandler(req, socket, head);
      return;
    }
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  }

  match(req: IncomingMessage): RawHandler | undefined {
    if (req.method !== 'POST' || this.posts.size === 0) return undefined;
    return this.posts.get(pathOf(req.url ?? ''));
  }
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
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

/** Counts a request and its latency; callers check `metrics.enabled` first. */
export function recordHttp(metrics: MetricsRegistry, endpoint: string, operationType: string, status: number, startedNs: bigint): void {
  const m = metrics.engine;
  m.httpRequests.inc({ endpoint, operation_type: operationType, status });
  m.httpRequestDuration.observe({ endpoint, operation_type: operationType }, Number(process.hrtime.bigint() - startedNs) / 1e9);
}

export interface RawDispatchDeps {
  logger: Logger;
  metrics: MetricsRegistry;
  cors: CorsPolicy | null;
}

/**
 * Runs a raw handler and writes its answer. Chained rather than awaited: the handler's promise is
 * the only one per request (a body gzipped on the thread pool, over gzip.ts's INLINE_GZIP_LIMIT,
 * adds the compression's). Never rejects.
 */
export function dispatchRaw(handler: RawHandler, req: IncomingMessage, res: ServerResponse, deps: RawDispatchDeps): Promise<void> {
  const startedNs = process.hrtime.bigint();
  const requestId = requestIdOf(req);
  const ip = req.socket.remoteAddress ?? '';
  let pending: Promise<RawResponse>;
  try {
    pending = tracing.active ? tracedRaw(handler, { req, requestId, ip }) : handler({ req, requestId, ip });
  } catch (e) {
    pending = Promise.reject(e);
  }
  return pending.then(
    (response) => writeRaw(req, res, deps, response, requestId, ip, startedNs),
    (e: unknown) => {
      // Handlers render their own errors; this catches only the unforeseen.
      const err = toEngineError(e);
      deps.logger.error('http-log', { request_id: requestId, error: String(e), stack: (e as Error)?.stack });
      const response = { status: err.status, body: JSON.stringify(errorBody(err, false)), contentType: 'application/json' };
      return writeRaw(req, res, deps, response, requestId, ip, startedNs);
    },
  );
}

function writeRaw(
  req: IncomingMessage,
  res: ServerResponse,
  deps: RawDispatchDeps,
  response: RawResponse,
  requestId: string,
  ip: string,
  startedNs: bigint,
): void | Promise<void> {
  const headers: OutgoingHttpHeaders = { 'content-type': contentTypeHeader(response.contentType), 'x-request-id': requestId };
  if (response.headers !== undefined && response.headers.length > 0) {
    for (const [name, value] of response.headers) appendHeader(headers, name, value);
  }
  const origin = req.headers.origin;
  if (deps.cors && origin !== undefined) {
    for (const [name, value] of corsHeaders(deps.cors, origin)) appendHeader(headers, name, value);
  }
  const payload = response.body;
  if (acceptsGzip(req.headers['accept-encoding'])) {
    headers['content-encoding'] = 'gzip';
    appendHeader(headers, 'vary', 'Accept-Encoding');
    const zipped = gzipBody(payload);
    if (zipped instanceof Promise) return zipped.then((body) => send(req, res, deps, response, body, headers, requestId, ip, startedNs));
    return send(req, res, deps, response, zipped, headers, requestId, ip, startedNs);
  }
  return send(req, res, deps, response, payload, headers, requestId, ip, startedNs);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  deps: RawDispatchDeps,
  response: RawResponse,
  payload: Buffer | string,
  headers: OutgoingHttpHeaders,
  requestId: string,
  ip: string,
  startedNs: bigint,
): void {
  headers['content-length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  res.writeHead(response.status, headers);
  res.end(payload);
  if (deps.metrics.enabled) recordHttp(deps.metrics, pathOf(req.url ?? ''), response.operationType ?? '', response.status, startedNs);
  logHttp(deps.logger, { requestId, method: 'POST', url: req.url ?? '', status: response.status, ip, httpVersion: req.httpVersion, startedNs });
}

const CONTENT_TYPES = new Map<string, string>();

/** `<type>; charset=utf-8`, built once per media type rather than once per response. */
function contentTypeHeader(mediaType: string): string {
  let header = CONTENT_TYPES.get(mediaType);
  if (header === undefined) {
    header = `${mediaType}; charset=utf-8`;
    if (CONTENT_TYPES.size < 16) CONTENT_TYPES.set(mediaType, header);
  }
  return header;
}

function tracedRaw(handler: RawHandler, request: RawRequest): Promise<RawResponse> {
  const path = pathOf(request.req.url ?? '');
  return tracing.serverSpan(`POST ${path}`, request.req.headers, { 'http.request.method': 'POST', 'http.route': path, 'svc.request_id': request.requestId }, async (span) => {
    const response = await handler(request);
    span.setAttribute('http.response.status_code', response.status);
    if (response.operationType) span.setAttribute('graphql.operation.type', response.operationType);
    return response;
  });
}

function appendHeader(headers: OutgoingHttpHeaders, name: string, value: string): void {
  const key = name.toLowerCase();
  const existing = headers[key];
  if (existing === undefined) headers[key] = value;
  else if (key === 'vary') headers[key] = `${String(existing)}, ${value}`;
  else headers[key] = [...(Array.isArray(existing) ? existing : [String(existing)]), value];
}
