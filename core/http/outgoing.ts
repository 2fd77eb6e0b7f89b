/**
 * The one HTTP client for every call the engine makes to a server it does not control: auth
 * webhooks, JWK sets, event and scheduled-trigger webhooks, action handlers, remote schemas.
 * Each call has a deadline for the whole exchange and a cap on the response size, because a
 * slow or hostile peer must cost a bounded amount of time and memory. undici is used directly
 * (not fetch) so that no header is added behind the caller's back and bodies are streamed into
 * the cap instead of buffered whole.
 */
import { Agent, errors as undiciErrors, request } from 'undici';
import { SpanKind, tracing } from '../tracing/tracing.js';

/** Why a call produced no usable response. */
export type OutgoingFailureKind = 'timeout' | 'connection' | 'too-large' | 'invalid-url' | 'aborted';

export class OutgoingCallError extends Error {
  constructor(
    readonly kind: OutgoingFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutgoingCallError';
  }
}

export interface OutgoingRequest {
  url: string | URL;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Deadline for connecting, sending and reading the whole response. */
  timeoutMs: number;
  /** Larger responses fail with `too-large`; default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** Cancels the call (engine shutdown); fails with `aborted`. */
  signal?: AbortSignal;
}

export interface OutgoingResponse {
  status: number;
  /** Lower-cased names, as the peer sent them. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  elapsedMs: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface OutgoingHttpOptions {
  /** Connections kept per origin (the events HTTP pool size, for instance). */
  connectionsPerOrigin?: number;
}

export class OutgoingHttp {
  private readonly agent: Agent;

  constructor(options: OutgoingHttpOptions = {}) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin ?? 100,
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 60_000,
    });
  }

  request(req: OutgoingRequest): Promise<OutgoingResponse> {
    if (!tracing.active) return this.send(req, req.headers);
    const method = req.method ?? 'GET';
    const url = String(req.url);
    return tracing.span(`${method} ${url.replace(/\?.*$/, '')}`, { 'http.request.method': method, 'url.full': url.replace(/\?.*$/, '') }, async (span) => {
      // A copy: the caller's headers object may be reused (retries, other calls).
      const headers: Record<string, string | string[]> = { ...req.headers };
      tracing.inject(headers);
      const res = await this.send(req, headers);
      span.setAttribute('http.response.status_code', res.status);
      return res;
    }, SpanKind.CLIENT);
  }

  private async send(req: OutgoingRequest, headers: OutgoingRequest['headers']): Promise<OutgoingResponse> {
    const url = parseUrl(req.url);
    const started = performance.now();
    const deadline = AbortSignal.timeout(Math.max(1, req.timeoutMs));
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    const limit = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    try {
      const res = await request(url, {
        method: req.method ?? 'GET',
        headers,
        body: req.body,
        dispatcher: this.agent,
        signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        res.body.destroy();
        throw new OutgoingCallError('too-large', `response of ${declared} bytes exceeds the limit of ${limit} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > limit) {
          res.body.destroy();
          throw new OutgoingCallError('too-large', `response exceeds the limit of ${limit} bytes`);
        }
        chunks.push(buf);
      }
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks, size), elapsedMs: performance.now() - started };
    } catch (e) {
      throw classify(e, req, deadline);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function parseUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = raw instanceof URL ? raw : new URL(raw);
  } catch (e) {
    throw new OutgoingCallError('invalid-url', `invalid URL: ${String(raw)}`, { cause: e });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutgoingCallError('invalid-url', `unsupported URL scheme "${url.protocol}" (http or https)`);
  }
  return url;
}

function classify(e: unknown, req: OutgoingRequest, deadline: AbortSignal): OutgoingCallError {
  if (e instanceof OutgoingCallError) return e;
  const timedOut =
    deadline.aborted ||
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError;
  if (timedOut) return new OutgoingCallError('timeout', `no complete answer within ${req.timeoutMs} ms`, { cause: e });
  if (req.signal?.aborted) return new OutgoingCallError('aborted', 'call cancelled', { cause: e });
  const message = e instanceof Error ? describe(e) : String(e);
  return new OutgoingCallError('connection', message, { cause: e });
}

/** undici wraps socket errors; the innermost code (ECONNREFUSED, ...) is what an operator needs. */
function describe(e: Error): string {
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
  }
  return e.message;
}
