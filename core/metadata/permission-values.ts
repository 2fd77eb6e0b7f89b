/**
 * Column types and values as permission checks see them: the reference engine's type names in
 * messages (`integer`, not `int4`), session variables (`X-Svc-*`, or the legacy `REQ_USER_ID`)
 * allowed wherever a value is, and literal values checked against the column's type the way the
 * reference decodes them (an `integer` column takes a JSON number, a `text` column a string).
 */
import type { ErrorCode } from '../errors.js';
import { jsonTypeName } from './args.js';
import type { ResolvedColumn, ResolvedTable } from '../schema-cache/model.js';
import { qualifiedTableName } from './types.js';

/** A check that failed: the reference's code and message, and where in the permission. */
export class PermissionValidationError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** JSON path from the permission's args (`$.args.permission.filter.author.name`). */
    readonly path: string,
  ) {
    super(message);
    this.name = 'PermissionValidationError';
  }
}

export const fail = (code: ErrorCode, message: string, path: string): never => {
  throw new PermissionValidationError(code, message, path);
};

/** The reference's names for the database types it knows under another spelling. */
const REFERENCE_NAMES: Readonly<Record<string, string>> = {
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  float4: 'real',
  bool: 'boolean',
};

/** What an operator needs to know about the compared column. */
export interface ComparedType {
  /** Element type for arrays, canonical database spelling (`int4`, `text`). */
  base: string;
  isArray: boolean;
  /** Set for columns referencing an enum table: the reference treats them as non-scalar. */
  enumTable: string | null;
  /** As the reference prints it: `integer`, `text[]`, or the enum table's name. */
  display: string;
}

export function comparedType(column: ResolvedColumn, tables: ReadonlyMap<string, ResolvedTable>): ComparedType {
  const isArray = column.catalog.typeKind === 'array' || column.catalog.elementType !== undefined || /^_./.test(column.type);
  const base = isArray ? (column.catalog.elementType ?? column.type.replace(/^_/, '')) : column.type;
  const enumTable = column.enumTable ? (tables.get(column.enumTable) ?? null) : null;
  const name = REFERENCE_NAMES[base] ?? base;
  return {
    base,
    isArray,
    enumTable: column.enumTable ?? null,
    display: enumTable ? qualifiedTableName(enumTable.table) : isArray ? `${name}[]` : name,
  };
}

/** The type a scalar computed field returns, as a compared column's. */
export function returnedType(type: string, typeKind: string | undefined): ComparedType {
  const isArray = typeKind === 'array' || /^_./.test(type);
  const base = isArray ? type.replace(/^_/, '') : type;
  const name = REFERENCE_NAMES[base] ?? base;
  return { base, isArray, enumTable: null, display: isArray ? `${name}[]` : name };
}

/** A plain scalar of the given type (for `_has_key`'s text, `_cast` targets). */
export const scalarType = (base: string): ComparedType => ({ base, isArray: false, enumTable: null, display: REFERENCE_NAMES[base] ?? base });

export const sameType = (a: ComparedType, b: ComparedType): boolean =>
  a.base === b.base && a.isArray === b.isArray && a.enumTable === b.enumTable;

/** `X-Svc-User-Id` (any case) names a session variable; so does the legacy `REQ_USER_ID`. */
export function isSessionVariable(v: unknown): v is string {
  return typeof v === 'string' && (v.toLowerCase().startsWith('x-svc-') || v.toLowerCase() === 'req_user_id');
}

const INTEGERS = new Set(['int2', 'int4']);
const NUMBERS = new Set(['float4', 'float8']);
const STRINGS = new Set(['text', 'varchar', 'citext', 'bpchar']);

/** One value for a column of type `t`: a session variable, null, or a literal of that type. */
export function checkValue(t: ComparedType, value: unknown, path: string): void {
  if (value === null || isSessionVariable(value)) return;
  if (t.isArray) return;
  const base = t.enumTable ? 'text' : t.base;
  const mismatch = (expected: string): never =>
    fail('parse-failed', `expected ${expected}, but encountered ${jsonTypeName(value)}`, path);
  if (INTEGERS.has(base)) {
    if (typeof value !== 'number') mismatch('Number');
    if (!Number.isInteger(value)) fail('parse-failed', `unexpected floating number ${String(value)}`, path);
  } else if (NUMBERS.has(base)) {
    if (typeof value !== 'number') mismatch('Number');
  } else if (base === 'bool') {
    if (typeof value !== 'boolean') mismatch('Boolean');
  } else if (STRINGS.has(base)) {
    if (typeof value !== 'string') mismatch('String');
  }
  // Other types (dates, uuids, json, numeric, bigint...) are parsed by the database itself.
}

/** A list of values (`_in`): a session variable holding a JSON array, or an array. */
export function checkValues(t: ComparedType, value: unknown, path: string): void {
  if (isSessionVariable(value)) return;
  if (!Array.isArray(value)) fail('parse-failed', `expected Array, but encountered ${jsonTypeName(value)}`, path);
  (value as unknown[]).forEach((v, i) => checkValue(t, v, `${path}[${i}]`));
}
