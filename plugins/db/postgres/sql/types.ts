/**
 * Facts about PostgreSQL type names that change the SQL or the bound value. Names arrive as the
 * catalog spells them (`int8`, `_jsonb`) or as SQL spells them (`bigint`, `jsonb[]`); both are
 * recognised.
 */

// The reference engine's "big number" set: values a JavaScript client cannot hold exactly.
const BIG_NUMBER_TYPES = new Set([
  'int8',
  'bigint',
  'serial8',
  'bigserial',
  'numeric',
  'decimal',
  'float8',
  'double precision',
  'money',
]);

function baseName(type: string): string {
  const t = type.trim().toLowerCase();
  const paren = t.indexOf('(');
  const bare = paren === -1 ? t : t.slice(0, paren).trimEnd();
  return bare.startsWith('pg_catalog.') ? bare.slice('pg_catalog.'.length) : bare;
}

/** Whether `--stringify-numeric-types` turns a value of this (scalar) type into a JSON string. */
export function isBigNumberType(type: string): boolean {
  return BIG_NUMBER_TYPES.has(baseName(type));
}

export type JsonKind = 'none' | 'scalar' | 'array';

/** json/jsonb (`scalar`), an array of them (`array`), or neither. */
export function jsonKind(type: string, array: boolean | undefined): JsonKind {
  const t = baseName(type);
  // GeoJSON values travel as JSON text too (extension-types.ts).
  if (t === 'json' || t === 'jsonb' || t === 'geometry' || t === 'geography') return array ? 'array' : 'scalar';
  if (t === '_json' || t === '_jsonb' || t === 'json[]' || t === 'jsonb[]') return 'array';
  return 'none';
}

/** Whether the type name itself already denotes an array (`_int4`, `int4[]`). */
export function isArrayTypeName(type: string): boolean {
  const t = type.trim();
  return t.endsWith('[]') || /^(?:[^.]*\.)?_/.test(t);
}
