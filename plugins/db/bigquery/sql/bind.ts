/**
 * A compiled statement with one request's values: the query parameters as BigQuery wants them
 * (typed, values as text), and the LIMIT/OFFSET clauses written with the bound integers.
 */
import { EngineError, similarToRegex } from '../../../../core/sdk/index.js';
import type { QueryParameter } from '../client.js';
import { PAGING_RE, type PagingClause, type ParamSlot } from './params.js';

/** BigQuery's largest LIMIT: OFFSET needs a LIMIT, as in the reference. */
const NO_LIMIT = '9223372036854775807';

export interface Bound {
  sql: string;
  params: Record<string, QueryParameter>;
}

export interface BindInput {
  text: string;
  slots: readonly ParamSlot[];
  paging: readonly PagingClause[];
}

export function bindStatement(s: BindInput, values: readonly unknown[], globalSelectLimit: number): Bound {
  const params: Record<string, QueryParameter> = {};
  s.slots.forEach((slot, i) => {
    const v = values[slot.index];
    params[`p${i}`] = slot.array
      ? { type: [slot.bqType], value: v === null || v === undefined ? null : asList(v).map((x) => text(x, slot)) as string[] }
      : { type: slot.bqType, value: text(v, slot) };
  });
  const sql = s.text.replace(PAGING_RE, (_m, n: string) => pagingSql(s.paging[Number(n)]!, values, globalSelectLimit));
  return { sql, params };
}

function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return [v];
}

function pagingValue(v: unknown, what: 'limit' | 'offset'): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n === 'number' && n < 0) throw new EngineError('not-supported', 'unexpected negative value');
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new EngineError('validation-failed', `expected an integer for ${what}`);
  return n;
}

function pagingSql(p: PagingClause, values: readonly unknown[], globalSelectLimit: number): string {
  let limit = p.limit === null ? null : pagingValue(values[p.limit], 'limit');
  const caps = [p.cap, p.global ? globalSelectLimit : null].filter((c): c is number => c !== null);
  for (const c of caps) limit = limit === null ? c : Math.min(limit, c);
  const offset = p.offset === null ? null : pagingValue(values[p.offset], 'offset');
  if (p.rowNumber !== undefined) {
    const parts = [...(offset ? [`${p.rowNumber} > ${String(offset)}`] : []), ...(limit !== null ? [`${p.rowNumber} <= ${String((offset ?? 0) + limit)}`] : [])];
    return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
  }
  if (limit === null && !offset) return '';
  return ` LIMIT ${limit === null ? NO_LIMIT : String(limit)}${offset ? ` OFFSET ${String(offset)}` : ''}`;
}

const TRUE_TEXT = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const FALSE_TEXT = new Set(['f', 'false', 'n', 'no', 'off', '0']);
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function bad(slot: ParamSlot, v: unknown): never {
  const message = `invalid input value for type ${slot.bqType}: ${JSON.stringify(v)}`;
  throw new EngineError(slot.session ? 'data-exception' : 'validation-failed', message);
}

/** One value as the text BigQuery parses for its type; numbers may come as strings (`wh_string_numeric_input`). */
function text(v: unknown, slot: ParamSlot): string | null {
  if (v === null || v === undefined) return null;
  switch (slot.bqType) {
    case 'BOOL': {
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      const t = String(v).trim().toLowerCase();
      if (TRUE_TEXT.has(t)) return 'true';
      if (FALSE_TEXT.has(t)) return 'false';
      return bad(slot, v);
    }
    case 'INT64': {
      if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'string' && INTEGER.test(v.trim())) return v.trim();
      return bad(slot, v);
    }
    case 'FLOAT64':
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'string' && DECIMAL.test(v.trim())) return v.trim();
      if (slot.bqType === 'FLOAT64' && typeof v === 'string' && /^[+-]?(nan|inf|infinity)$/i.test(v.trim())) return v.trim();
      return bad(slot, v);
    }
    case 'JSON':
      return typeof v === 'string' ? v : JSON.stringify(v);
    default: {
      const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
      switch (slot.use) {
        case 'similar':
          return similarToRegex(s);
        case 'iregex':
          return '(?i)' + s;
        default:
          return s;
      }
    }
  }
}
