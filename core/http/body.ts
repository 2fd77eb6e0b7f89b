/**
 * Reads a request body as JSON with a size limit. Bodies over the limit are refused with 413
 * before they are buffered whole, so a large upload can't exhaust memory. A body must say it is
 * JSON (415 otherwise): an HTML form or a `text/plain` fetch can be sent cross-site without a CORS
 * preflight, and carries the victim's cookies. JSON nested deeper than MAX_JSON_DEPTH is refused
 * before JSON.parse and the code after it recurse into it.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { EngineError } from '../errors.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './nesting.js';

/** `application/json`, or any `application/*+json` (parameters such as charset allowed). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  // The usual value, checked without allocating.
  if (value.length === 16 || value.charCodeAt(16) === 0x3b) {
    if (value.startsWith('application/json')) return true;
  }
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function requireJsonContentType(value: string | undefined): void {
  if (isJsonContentType(value)) return;
  const given = value === undefined ? 'none' : JSON.stringify(value.slice(0, 100));
  throw new EngineError('bad-request', `the request body must be JSON with Content-Type: application/json (given: ${given})`, {
    status: 415,
    path: '$',
  });
}

/**
 * The body of a POST that must be JSON: content type, size and nesting checked. `then` (parsing
 * the value further) runs when the body is complete, inside the read's own promise: no promise
 * per step on the hot path.
 */
export function readJsonRequest(req: IncomingMessage, limit: number): Promise<unknown>;
export function readJsonRequest<T>(req: IncomingMessage, limit: number, then: (body: unknown) => T): Promise<T>;
export function readJsonRequest<T>(req: IncomingMessage, limit: number, then?: (body: unknown) => T): Promise<unknown> {
  try {
    requireJsonContentType(req.headers['content-type']);
  } catch (e) {
    return Promise.reject(e);
  }
  return readBody(req, limit, then === undefined ? parseJsonBody : (raw) => then(parseJsonBody(raw)));
}

export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return readBody(req, limit, (raw) => raw);
}

/** Reads the whole body (refused past `limit`) and resolves with `finish(body)`, or its error. */
function readBody<T>(req: IncomingMessage, limit: number, finish: (raw: Buffer) => T): Promise<T> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  // Plain stream events: an async iterator per request costs measurably more on the hot path.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.destroy();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      } catch (e) {
        reject(e);
      }
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  return readJsonRequest(ctx.req, limit);
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new EngineError('invalid-json', 'Error in $: not enough input', { path: '$' });
  if (jsonDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new EngineError('invalid-json', `Error in $: nested deeper than ${MAX_JSON_DEPTH} levels`, { path: '$' });
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (e) {
    throw new EngineError('invalid-json', `Error in $: ${(e as Error).message}`, { path: '$' });
  }
}

function tooLarge(limit: number): EngineError {
  return new EngineError('bad-request', `request body is larger than the limit of ${limit} bytes`, {
    status: 413,
    path: '$',
  });
}
