/**
 * A statement's result (the REST API's raw rows and schema) → the field's JSON text. The one
 * `root` cell is walked with its schema (RECORD fields by position, REPEATED as arrays) and the
 * compiled shape (response keys, constants). Scalars are written as PostgreSQL's JSON would
 * write the matching type: INT64, NUMERIC and BIGNUMERIC digits as JSON numbers, exactly as
 * BigQuery sent them (as strings with `--stringify-numeric-types`, which is also what the
 * reference engine always does for this kind); FLOAT64 as a number (NaN and infinities as
 * strings); BOOL as a boolean; TIMESTAMP in ISO 8601 with its microseconds and `+00:00`; DATE,
 * DATETIME, TIME, BYTES (base64) and GEOGRAPHY (WKT) as strings; JSON as the document itself.
 */
import { EngineError } from '../../../core/sdk/index.js';
import type { QueryResult, SchemaField } from './client.js';
import type { Shape } from './sql/shape.js';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function resultJson(result: QueryResult, shape: Shape, stringifyNumbers: boolean): string {
  const field = result.schema[0];
  const cell = result.rows[0]?.f[0];
  if (field === undefined || cell === undefined) return 'null';
  return new Writer(stringifyNumbers).cell(field, cell.v, shape);
}

class Writer {
  constructor(private readonly stringifyNumbers: boolean) {}

  cell(field: SchemaField, v: unknown, shape: Shape): string {
    if (field.mode === 'REPEATED') {
      if (v === null || v === undefined) return '[]';
      if (!Array.isArray(v)) throw malformed(field);
      return `[${(v as Array<{ v: unknown }>).map((item) => this.value(field, item.v, shape)).join(',')}]`;
    }
    return this.value(field, v, shape);
  }

  private value(field: SchemaField, v: unknown, shape: Shape): string {
    if ((v === null || v === undefined) && shape.kind === 'object' && shape.aggregate) return emptyAggregate(shape);
    if (v === null || v === undefined) return 'null';
    if (field.type === 'RECORD' || field.type === 'STRUCT') {
      if (shape.kind !== 'object' || typeof v !== 'object' || !Array.isArray((v as { f?: unknown }).f)) throw malformed(field);
      const cells = (v as { f: Array<{ v: unknown }> }).f;
      const parts = shape.entries.map((e) => {
        const key = JSON.stringify(e.key);
        if ('constant' in e) return `${key}:${JSON.stringify(e.constant)}`;
        const sub = field.fields?.[e.field];
        const c = cells[e.field];
        if (sub === undefined || c === undefined) throw malformed(field);
        return `${key}:${this.cell(sub, c.v, e.shape)}`;
      });
      return `{${parts.join(',')}}`;
    }
    if (typeof v !== 'string') throw malformed(field);
    return this.scalar(field.type, v);
  }

  private scalar(type: string, v: string): string {
    switch (type) {
      case 'INTEGER':
      case 'INT64':
        if (!INTEGER.test(v)) throw malformedValue(type, v);
        return this.stringifyNumbers ? JSON.stringify(v) : v;
      case 'NUMERIC':
      case 'BIGNUMERIC':
      case 'FLOAT':
      case 'FLOAT64':
        if (!NUMBER.test(v)) return JSON.stringify(v);
        return this.stringifyNumbers ? JSON.stringify(v) : v;
      case 'BOOLEAN':
      case 'BOOL':
        return v === 'true' ? 'true' : 'false';
      case 'TIMESTAMP':
        return JSON.stringify(timestampText(v));
      case 'JSON':
        return v;
      default:
        return JSON.stringify(v);
    }
  }
}

/** An aggregate over no row: counts 0, every other value null. */
function emptyAggregate(shape: Shape): string {
  if (shape.kind === 'scalar') return shape.count ? '0' : 'null';
  const parts = shape.entries.map((e) => `${JSON.stringify(e.key)}:${'constant' in e ? JSON.stringify(e.constant) : emptyAggregate(e.shape.kind === 'object' ? { ...e.shape, aggregate: true } : e.shape)}`);
  return `{${parts.join(',')}}`;
}

/** A TIMESTAMP cell (microseconds since the epoch, or seconds in floating point) in ISO 8601, UTC. */
export function timestampText(v: string): string {
  let micros: bigint;
  if (INTEGER.test(v)) micros = BigInt(v);
  else if (NUMBER.test(v)) micros = BigInt(Math.round(Number(v) * 1e6));
  else throw malformedValue('TIMESTAMP', v);
  const seconds = micros / 1000000n - (micros % 1000000n < 0n ? 1n : 0n);
  const fraction = micros - seconds * 1000000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${base}${fraction === 0n ? '' : '.' + fraction.toString().padStart(6, '0')}+00:00`;
}

const malformed = (field: SchemaField): EngineError =>
  new EngineError('unexpected', 'BigQuery answered in an unexpected form', { status: 500, internal: { field: field.name, type: field.type } });
const malformedValue = (type: string, v: string): EngineError =>
  new EngineError('unexpected', 'BigQuery answered in an unexpected form', { status: 500, internal: { type, value: v } });
