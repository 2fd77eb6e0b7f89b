/**
 * Reads a request body as JSON with a size limit. Bodies over the limit are refused with 413
 * before they are buffered whole, so a large upload can't exhaust memory.
 */
import type { Context } from 'koa';
import { EngineError } from '../errors.js';

export async function readRawBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.destroy();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

export async function readJsonBody(ctx: Context, limit: number): Promise<unknown> {
  const raw = await readRawBody(ctx, limit);
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
