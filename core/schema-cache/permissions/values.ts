/**
 * Column types and values as permission checks see them: the kind's type names in messages
 * (PostgreSQL: `integer`, not `int4`), session variables (`X-Svc-*`, or the legacy `REQ_USER_ID`)
 * allowed wherever a value is, and literal values checked against the column's type the way the
 * reference decodes them (an `integer` column takes a JSON number, a `text` column a string;
 * the kind's `ScalarTypeTable.jsonLiterals` says which types take which).
 */
import type { ErrorCode } from '../../errors.js';
import { jsonTypeName } from '../../metadata/args.js';
import type { ResolvedColumn, ResolvedTable } from '../model.js';
import { ScalarTypes, type JsonLiteral } from '../../db/scalar-types.js';
import { qualifiedTableName } from '../../metadata/types.js';

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

/** What an operator needs to know about the compared column. */
export interface ComparedType {
  /** Element type for arrays, canonical database spelling (`int4`, `text`). */
  base: string;
  isArray: boolean;
  /** Set for columns referencing an enum table: the reference treats them as non-scalar. */
  enumTable: string | null;
  /** As the reference prints it: `integer`, `text[]`, or the enum table's name. */
  display: string;
  /** The JSON literal a value must be (the kind's `jsonLiterals`); null: the database parses it. */
  literal: JsonLiteral | null;
}

/** The column-type facts of a source's kind, which every table of `tables` (one source's) carries. */
export const scalarsOf = (tables: ReadonlyMap<string, ResolvedTable>): ScalarTypes => tables.values().next().value?.scalars ?? NO_SCALAR_FACTS;
const NO_SCALAR_FACTS = new ScalarTypes();

/** The compared type of a column of one of `tables` (the tables of the column's source). */
export function comparedType(column: ResolvedColumn, tables: ReadonlyMap<string, ResolvedTable>): ComparedType {
  const isArray = column.catalog.typeKind === 'array' || column.catalog.elementType !== undefined || /^_./.test(column.type);
  const base = isArray ? (column.catalog.elementType ?? column.type.replace(/^_/, '')) : column.type;
  const enumTable = column.enumTable ? (tables.get(column.enumTable) ?? null) : null;
  const scalars = scalarsOf(tables);
  const name = scalars.displayName(base);
  return {
    base,
    isArray,
    enumTable: column.enumTable ?? null,
    display: enumTable ? qualifiedTableName(enumTable.table) : isArray ? `${name}[]` : name,
    // An enum-table column holds the table's text keys.
    literal: column.enumTable ? 'string' : isArray ? null : scalars.jsonLiteral(base),
  };
}

/**
 * A plain scalar of the given type (for `_has_key`'s key and `_cast` targets): the IR's `text`
 * takes strings; other targets are left to the database.
 */
export const scalarType = (base: string): ComparedType => ({ base, isArray: false, enumTable: null, display: base, literal: base === 'text' ? 'string' : null });

/** The type a scalar computed field of one of `tables` returns, as a compared column's. */
export function returnedType(type: string, typeKind: string | undefined, tables: ReadonlyMap<string, ResolvedTable>): ComparedType {
  const isArray = typeKind === 'array' || /^_./.test(type);
  const base = isArray ? type.replace(/^_/, '') : type;
  const scalars = scalarsOf(tables);
  const name = scalars.displayName(base);
  return { base, isArray, enumTable: null, display: isArray ? `${name}[]` : name, literal: isArray ? null : scalars.jsonLiteral(base) };
}

export const sameType = (a: ComparedType, b: ComparedType): boolean =>
  a.base === b.base && a.isArray === b.isArray && a.enumTable === b.enumTable;

/** `X-Svc-User-Id` (any case) names a session variable; so does the legacy `REQ_USER_ID`. */
export function isSessionVariable(v: unknown): v is string {
  return typeof v === 'string' && (v.toLowerCase().startsWith('x-svc-') || v.toLowerCase() === 'req_user_id');
}

/** One value for a column of type `t`: a session variable, null, or a literal of that type. */
export function checkValue(t: ComparedType, value: unknown, path: string): void {
  if (value === null || isSessionVariable(value)) return;
  if (t.isArray) return;
  const mismatch = (expected: string): never =>
    fail('parse-failed', `expected ${expected}, but encountered ${jsonTypeName(value)}`, path);
  if (t.literal === 'integer') {
    if (typeof value !== 'number') mismatch('Number');
    if (!Number.isInteger(value)) fail('parse-failed', `unexpected floating number ${String(value)}`, path);
  } else if (t.literal === 'number') {
    if (typeof value !== 'number') mismatch('Number');
  } else if (t.literal === 'boolean') {
    if (typeof value !== 'boolean') mismatch('Boolean');
  } else if (t.literal === 'string') {
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
