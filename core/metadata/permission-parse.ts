/**
 * The shape of a table permission, checked the way the reference engine parses a request: only
 * structure (`parse-failed` at the offending key), never names or types, which are checked when
 * the metadata is resolved against the database (core/schema-cache/permissions/validate.ts). The
 * parsed permission is returned in the reference's export form: keys in its order, defaults left
 * out.
 */
import { EngineError } from '../errors.js';
import { expectObject, jsonTypeName, parseFailed, parseTableName, type ArgsObject } from './args.js';
import type { PermissionType } from './dependencies.js';
import type { BoolExpJson, DeletePermission, InsertPermission, SelectPermission, UpdatePermission } from './types.js';

export type AnyPermission = SelectPermission | InsertPermission | UpdatePermission | DeletePermission;

const AND_OR = new Set(['_and', '$and', '_or', '$or']);
const NOT = new Set(['_not', '$not']);
const EXISTS = new Set(['_exists', '$exists']);

/**
 * A boolean expression's structure: an object whose `_and`/`_or` hold lists of expressions, `_not`
 * an expression and `_exists` `{_table, _where}`. Field values are left alone, as the reference
 * only reads them against the table.
 */
export function parseBoolExp(value: unknown, path: string): BoolExpJson {
  const obj = expectObject(value, path);
  for (const [key, v] of Object.entries(obj)) {
    const at = `${path}.${key}`;
    if (AND_OR.has(key)) {
      if (!Array.isArray(v)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(v)}`, at);
      v.forEach((item, i) => parseBoolExp(item, `${at}[${i}]`));
    } else if (NOT.has(key)) {
      parseBoolExp(v, at);
    } else if (EXISTS.has(key)) {
      parseExists(v, at);
    }
  }
  return obj;
}

function parseExists(value: unknown, path: string): void {
  const obj = expectObject(value, path);
  if (!('_table' in obj)) throw parseFailed('key "_table" not found', path);
  parseTableName(obj._table, `${path}._table`);
  if (!('_where' in obj)) throw parseFailed('key "_where" not found', path);
  parseBoolExp(obj._where, `${path}._where`);
}

function required(obj: ArgsObject, key: string, path: string): unknown {
  if (!(key in obj) || obj[key] === undefined) throw parseFailed(`key "${key}" not found`, path);
  return obj[key];
}

/** `"*"` or a list of column names. */
function columnSpec(value: unknown, path: string): string[] | '*' {
  if (value === '*') return '*';
  return stringList(value, path);
}

function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw parseFailed(`expected Array, but encountered ${jsonTypeName(value)}`, path);
  return value.map((v, i) => {
    if (typeof v !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(v)}`, `${path}[${i}]`);
    return v;
  });
}

function optionalBool(obj: ArgsObject, key: string, path: string): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw parseFailed(`expected Boolean, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  return v;
}

/** An integer (the reference reads `limit` as Int: no fractions, no strings). */
function optionalInt(obj: ArgsObject, key: string, path: string): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw parseFailed(`expected Number, but encountered ${jsonTypeName(v)}`, `${path}.${key}`);
  if (!Number.isInteger(v)) throw parseFailed(`unexpected floating number ${v}`, `${path}.${key}`);
  return v;
}

/** Column presets: an object of column → value (a session variable name or a literal). */
function presets(obj: ArgsObject, path: string): Record<string, unknown> | undefined {
  const v = obj.set;
  if (v === undefined || v === null) return undefined;
  const set = expectObject(v, `${path}.set`);
  return Object.keys(set).length > 0 ? { ...set } : undefined;
}

const ROOT_FIELDS = {
  query_root_fields: ['select', 'select_by_pk', 'select_aggregate'],
  subscription_root_fields: ['select', 'select_by_pk', 'select_aggregate', 'select_stream'],
} as const;

function rootFieldList(obj: ArgsObject, key: keyof typeof ROOT_FIELDS, path: string): string[] | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  const allowed: readonly string[] = ROOT_FIELDS[key];
  return stringList(v, `${path}.${key}`).map((name, i) => {
    if (!allowed.includes(name)) {
      throw parseFailed(`expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, `${path}.${key}[${i}]`);
    }
    return name;
  });
}

function parseSelect(obj: ArgsObject, path: string): SelectPermission {
  const columns = columnSpec(required(obj, 'columns', path), `${path}.columns`);
  const filter = parseBoolExp(required(obj, 'filter', path), `${path}.filter`);
  const limit = optionalInt(obj, 'limit', path);
  const allowAggregations = optionalBool(obj, 'allow_aggregations', path);
  const computed = obj.computed_fields === undefined || obj.computed_fields === null ? [] : stringList(obj.computed_fields, `${path}.computed_fields`);
  const query = rootFieldList(obj, 'query_root_fields', path);
  const subscription = rootFieldList(obj, 'subscription_root_fields', path);
  const out: SelectPermission = { columns } as SelectPermission;
  if (computed.length > 0) out.computed_fields = computed;
  out.filter = filter;
  if (limit !== undefined) out.limit = limit;
  if (allowAggregations) out.allow_aggregations = true;
  if (query) out.query_root_fields = query;
  if (subscription) out.subscription_root_fields = subscription;
  return out;
}

function parseInsert(obj: ArgsObject, path: string): InsertPermission {
  const check = parseBoolExp(required(obj, 'check', path), `${path}.check`);
  const set = presets(obj, path);
  const columns = obj.columns === undefined || obj.columns === null ? undefined : columnSpec(obj.columns, `${path}.columns`);
  const backendOnly = optionalBool(obj, 'backend_only', path);
  const out = { check } as InsertPermission & Record<string, unknown>;
  if (set) out.set = set;
  if (columns !== undefined) out.columns = columns;
  if (backendOnly) out.backend_only = true;
  if (obj.validate_input !== undefined && obj.validate_input !== null) out.validate_input = expectObject(obj.validate_input, `${path}.validate_input`);
  return out;
}

function parseUpdate(obj: ArgsObject, path: string): UpdatePermission {
  const columns = columnSpec(required(obj, 'columns', path), `${path}.columns`);
  const set = presets(obj, path);
  const filter = parseBoolExp(required(obj, 'filter', path), `${path}.filter`);
  const check = obj.check === undefined || obj.check === null ? null : parseBoolExp(obj.check, `${path}.check`);
  const backendOnly = optionalBool(obj, 'backend_only', path);
  // The reference always exports `check`, null when the permission has none.
  const out = { columns, filter, check } as UpdatePermission & Record<string, unknown>;
  if (set) out.set = set;
  if (backendOnly) out.backend_only = true;
  if (obj.validate_input !== undefined && obj.validate_input !== null) out.validate_input = expectObject(obj.validate_input, `${path}.validate_input`);
  return out;
}

function parseDelete(obj: ArgsObject, path: string): DeletePermission {
  const filter = parseBoolExp(required(obj, 'filter', path), `${path}.filter`);
  const backendOnly = optionalBool(obj, 'backend_only', path);
  const out = { filter } as DeletePermission & Record<string, unknown>;
  if (backendOnly) out.backend_only = true;
  if (obj.validate_input !== undefined && obj.validate_input !== null) out.validate_input = expectObject(obj.validate_input, `${path}.validate_input`);
  return out;
}

const PARSERS: Readonly<Record<PermissionType, (obj: ArgsObject, path: string) => AnyPermission>> = {
  select: parseSelect,
  insert: parseInsert,
  update: parseUpdate,
  delete: parseDelete,
};

/** The permission at `path`, in export form; `parse-failed` at the first wrong key. */
export function parsePermission(type: PermissionType, value: unknown, path: string): AnyPermission {
  return PARSERS[type](expectObject(value, path), path);
}

/** `select`, `insert`, `update` or `delete` (set_permission_comment's `type`). */
export function parsePermissionType(value: unknown, path: string): PermissionType {
  if (value === 'select' || value === 'insert' || value === 'update' || value === 'delete') return value;
  if (typeof value !== 'string') throw parseFailed(`expected String, but encountered ${jsonTypeName(value)}`, path);
  throw new EngineError('parse-failed', `expected one of "insert", "select", "update", "delete", but encountered ${JSON.stringify(value)}`, { path });
}

