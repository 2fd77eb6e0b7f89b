/**
 * Resolved request values → node-postgres parameter values, per request on the hot path: one
 * output array, no other allocation unless a value needs converting.
 */
import { EngineError, type TypedValueIR } from '../../../../core/sdk/index.js';
import type { SqlParam } from './context.js';
import { jsonKind } from './types.js';

/**
 * `resolved[i]` is the JS value of `params[i]`. json/jsonb values are sent as JSON text (a
 * string too: a jsonb string literal must be quoted JSON); arrays stay JS arrays, which the
 * driver renders as array literals; null and undefined are SQL NULL.
 */
export function bindValues(params: readonly TypedValueIR[], resolved: readonly unknown[]): unknown[] {
  const n = params.length;
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    const p = params[i] as SqlParam;
    const v = resolved[i];
    if (v === null || v === undefined) {
      out[i] = null;
      continue;
    }
    if (p.check !== undefined) checkPaging(p.check, v);
    switch (jsonKind(p.dbType, p.array)) {
      case 'none':
        out[i] = v;
        break;
      case 'scalar':
        out[i] = JSON.stringify(v);
        break;
      case 'array':
        out[i] = Array.isArray(v) ? v.map(jsonElement) : JSON.stringify(v);
        break;
    }
  }
  return out;
}

function jsonElement(x: unknown): string | null {
  return x === null || x === undefined ? null : JSON.stringify(x);
}

/** The reference engine's messages for a bad `limit` (and, here, `offset`). */
function checkPaging(arg: 'limit' | 'offset', v: unknown): void {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new EngineError('validation-failed', `expecting Integer value for "${arg}"`);
  }
  if (n < 0) throw new EngineError('not-supported', 'unexpected negative value');
}
