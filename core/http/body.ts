/**
 * Reads a request body as JSON with a size limit. Bodies over the limit are refused with 413
 * before they are buffered whole, so a large upload can't exhaust memory.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { EngineError } from '../errors.js';

export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
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
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
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

export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  return parseJsonBody(await readRawBody(ctx.req, limit));
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new EngineError('invalid-json', 'Error in $: not enough input', { path: '$' });
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
