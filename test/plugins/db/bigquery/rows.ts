/**
 * Builds the stand-in's answers: a `root` value in the REST API's form (`{f: [{v}]}` records,
 * `[{v}]` arrays, every scalar as text) from plain JS values and a compact type description, the
 * way BigQuery would send the result of the statement the test expects.
 */
import type { RawRow, SchemaField } from '../../../../plugins/db/bigquery/client.js';

export type T = { type: string; fields?: T[]; repeated?: boolean };

export const INT: T = { type: 'INTEGER' };
export const FLOAT: T = { type: 'FLOAT' };
export const STR: T = { type: 'STRING' };
export const BOOL: T = { type: 'BOOLEAN' };
export const TS: T = { type: 'TIMESTAMP' };
export const rec = (...fields: T[]): T => ({ type: 'RECORD', fields });
export const list = (t: T): T => ({ ...t, repeated: true });

function schema(t: T, name: string): SchemaField {
  return {
    name,
    type: t.type,
    mode: t.repeated ? 'REPEATED' : 'NULLABLE',
    ...(t.fields ? { fields: t.fields.map((f, i) => schema(f, `f${i}`)) } : {}),
  };
}

function cell(t: T, v: unknown): unknown {
  if (t.repeated) return (v as unknown[]).map((x) => ({ v: cell({ ...t, repeated: false }, x) }));
  if (v === null || v === undefined) return null;
  if (t.fields) return { f: t.fields.map((f, i) => ({ v: cell(f, (v as unknown[])[i]) })) };
  return String(v);
}

/** One row whose `root` column is `value` of type `t` (records as positional arrays). */
export function rootAnswer(t: T, value: unknown): { schema: SchemaField[]; rows: RawRow[] } {
  return { schema: [schema(t, 'root')], rows: [{ f: [{ v: cell(t, value) }] }] };
}

/** Flat rows of string columns (INFORMATION_SCHEMA answers). */
export function flatAnswer(columns: string[], rows: Array<Array<string | number | null>>): { schema: SchemaField[]; rows: RawRow[] } {
  return {
    schema: columns.map((name) => ({ name, type: 'STRING', mode: 'NULLABLE' })),
    rows: rows.map((r) => ({ f: r.map((v) => ({ v: v === null ? null : String(v) })) })),
  };
}

/**
 * The stand-in's answer for a response the test already knows (the same GraphQL query answered by
 * the PostgreSQL kind over the same rows): objects become RECORDs with their keys as positional
 * fields, arrays REPEATED, integers INTEGER, other numbers FLOAT. What BigQuery would send for the
 * statement, if the statement is right; the SQL itself is checked separately, by its text.
 */
export function answerFor(value: unknown): { schema: SchemaField[]; rows: RawRow[] } {
  return rootAnswer(typeOfValues([value]), toPositional(value));
}

function typeOfValues(values: unknown[]): T {
  const present = values.filter((v) => v !== null && v !== undefined);
  const first = present[0];
  if (first === undefined) return STR;
  if (Array.isArray(first)) return list(typeOfValues(present.flatMap((v) => v as unknown[])));
  if (typeof first === 'object') {
    const keys = Object.keys(first as object);
    return rec(...keys.map((k) => typeOfValues(present.map((v) => (v as Record<string, unknown>)[k]))));
  }
  if (typeof first === 'number') return present.every((v) => Number.isInteger(v)) ? INT : FLOAT;
  if (typeof first === 'boolean') return BOOL;
  return STR;
}

function toPositional(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(toPositional);
  if (typeof v === 'object') return Object.values(v as object).map(toPositional);
  return v;
}
