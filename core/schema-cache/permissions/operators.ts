/**
 * One column's comparison in a permission expression (`{"_eq": "X-Svc-User-Id"}`, or the bare
 * value as shorthand for `_eq`), checked as the reference engine's Postgres backend does: the
 * operator must exist (`_x` or legacy `$x`), suit the column's type, and its value must read as
 * that type; `_ceq`-style operators name a column of the current table, or of the permission's
 * own table with `["$", "column"]`, of the same type.
 */
import { isPlainObject, jsonTypeName } from '../../metadata/args.js';
import type { ResolvedColumn, ResolvedTable } from '../model.js';
import type { KindOperatorSpec, TypeOperators } from '../../db/operators.js';
import { checkValue, checkValues, comparedType, fail, sameType, scalarsOf, scalarType, type ComparedType } from './values.js';

export interface OperatorScope {
  /** The table whose columns `_ceq: "col"` names. */
  current: ResolvedTable;
  /** The permission's own table, named by `_ceq: ["$", "col"]`. */
  root: ResolvedTable;
  tables: ReadonlyMap<string, ResolvedTable>;
}

type OperatorKind =
  | 'value' | 'values' | 'is_null' | 'string' | 'contains' | 'has_key' | 'has_keys' | 'cast' | 'column'
  | 'jsonb_path' | 'geometry' | 'geography' | 'raster' | 'ltree';

const OPERATORS: Readonly<Record<string, OperatorKind>> = {
  eq: 'value', ne: 'value', neq: 'value', gt: 'value', lt: 'value', gte: 'value', lte: 'value',
  in: 'values', nin: 'values', is_null: 'is_null',
  like: 'string', nlike: 'string', ilike: 'string', nilike: 'string', similar: 'string', nsimilar: 'string',
  regex: 'string', iregex: 'string', nregex: 'string', niregex: 'string',
  contains: 'contains', contained_in: 'contains',
  has_key: 'has_key', has_keys_any: 'has_keys', has_keys_all: 'has_keys',
  jsonb_path_exists: 'jsonb_path', jsonb_path_match: 'jsonb_path',
  cast: 'cast',
  ceq: 'column', cne: 'column', cneq: 'column', cgt: 'column', clt: 'column', cgte: 'column', clte: 'column',
  st_contains: 'geometry', st_crosses: 'geometry', st_equals: 'geometry', st_overlaps: 'geometry',
  st_touches: 'geometry', st_within: 'geometry', st_3d_intersects: 'geometry', st_3d_d_within: 'geometry',
  st_intersects: 'geography', st_d_within: 'geography',
  st_intersects_rast: 'raster', st_intersects_nband_geom: 'raster', st_intersects_geom_nband: 'raster',
  ancestor: 'ltree', ancestor_any: 'ltree', descendant: 'ltree', descendant_any: 'ltree',
  matches: 'ltree', matches_any: 'ltree', matches_fulltext: 'ltree',
};

const STRING_TYPES = ['varchar', 'text', 'citext', 'bpchar'];
/** The reference's spelling of those types in "works only on columns of type" messages. */
const STRING_TYPES_TEXT = '"varchar", "text", "citext", "bpchar"';

/** Cast targets by the names the reference reads them under. */
const CAST_NAMES: Readonly<Record<string, string>> = { text: 'text', geometry: 'geometry', geography: 'geography' };

const kindOf = (key: string): OperatorKind | undefined =>
  key.startsWith('_') || key.startsWith('$') ? OPERATORS[key.slice(1)] : undefined;

function guard(t: ComparedType, ok: boolean, expected: string, path: string): void {
  // The message starts with a space: the reference leaves the subject out.
  if (!ok || t.enumTable) fail('unexpected-payload', ` is of type "${t.display}"; this operator works only on columns of type ${expected}`, path);
}

const scalarIs = (t: ComparedType, types: readonly string[]): boolean => !t.isArray && types.includes(t.base);

/** Validates `value` (an operator object or a bare value) against the column `name` of `scope.current`. */
export function checkColumnComparison(name: string, value: unknown, scope: OperatorScope, path: string): void {
  const column = scope.current.columnsByName.get(name)!;
  const t = comparedType(column, scope.tables);
  if (t.base === 'json' && !t.isArray) fail('unexpected-payload', 'JSON column can not be part of boolean expression', path);
  checkOperations(name, t, value, scope, path);
}

/** Validates `value` against a scalar computed field `name` returning values of type `t`. */
export function checkComputedComparison(name: string, t: ComparedType, value: unknown, scope: OperatorScope, path: string): void {
  if (t.base === 'json' && !t.isArray) fail('unexpected-payload', 'JSON column can not be part of boolean expression', path);
  checkOperations(name, t, value, scope, path);
}

function checkOperations(name: string, t: ComparedType, value: unknown, scope: OperatorScope, path: string): void {
  if (!isPlainObject(value)) {
    checkValue(t, value, path);
    return;
  }
  for (const [key, v] of Object.entries(value)) checkOperator(name, t, key, v, scope, `${path}.${key}`);
}

function checkOperator(name: string, t: ComparedType, key: string, v: unknown, scope: OperatorScope, path: string): void {
  const kind = kindOf(key);
  switch (kind) {
    case undefined:
      return fail('unexpected-payload', `Unknown operator: ${key}`, path);
    case 'value':
      return checkValue(t, v, path);
    case 'values':
      return checkValues(t, v, path);
    case 'is_null':
      if (typeof v !== 'boolean') fail('parse-failed', `expected Boolean, but encountered ${jsonTypeName(v)}`, path);
      return;
    case 'string':
      // PostgreSQL's string types, or those the source's kind calls strings (SQL Server's nvarchar).
      guard(t, scalarIs(t, STRING_TYPES) || (!t.isArray && scalarsOf(scope.tables).info(t.base).stringLike), STRING_TYPES_TEXT, path);
      return checkValue(t, v, path);
    case 'contains':
      guard(t, t.isArray || t.base === 'jsonb', 'an array or JSONB', path);
      return checkValue(t, v, path);
    case 'has_key':
      guard(t, scalarIs(t, ['jsonb']), '"jsonb"', path);
      return checkValue(scalarType('text'), v, path);
    case 'has_keys':
      guard(t, scalarIs(t, ['jsonb']), '"jsonb"', path);
      return checkValues(scalarType('text'), v, path);
    case 'cast':
      return checkCast(name, t, v, scope, path);
    case 'column':
      return checkColumnOperand(name, t, v, scope, path);
    default:
      return checkKindOperator(name, t, kind, key, v, scope, path);
  }
}

/**
 * Operators the source's kind contributes (PostGIS, ltree: core/db/operators.ts): the column's
 * type must have it, and its value must have the fields the kind declares. Where the kind has
 * none (jsonpath; a source without the extension's types), the operator is refused.
 */
function checkKindOperator(
  name: string,
  t: ComparedType,
  kind: 'jsonb_path' | 'geometry' | 'geography' | 'raster' | 'ltree',
  key: string,
  v: unknown,
  scope: OperatorScope,
  path: string,
): void {
  const types = { jsonb_path: ['jsonb'], geometry: ['geometry'], geography: ['geometry', 'geography'], raster: ['raster'], ltree: ['ltree'] }[kind];
  guard(t, scalarIs(t, types), types.map((x) => `"${x}"`).join(', '), path);
  const ops = operatorsOf(scope.current.columnsByName.get(name), t);
  const spec = ops?.operators.find((o) => o.name === `_${key.slice(1)}`);
  if (!spec) return fail('not-supported', `the operator "${key}" is not supported in permissions by this engine`, path);
  checkKindOperatorValue(spec, v, path);
}

function operatorsOf(column: ResolvedColumn | undefined, t: ComparedType): TypeOperators | undefined {
  const ops = column?.operators;
  if (!ops || t.isArray) return undefined;
  if (t.base === column!.type) return ops;
  return ops.casts.find((c) => c.dbType === t.base)?.operators();
}

function checkKindOperatorValue(spec: KindOperatorSpec, v: unknown, path: string): void {
  const input = spec.input;
  if (input.kind === 'value') {
    if (input.array) return checkValues(scalarType(input.dbType), v, path);
    return checkValue(scalarType(input.dbType), v, path);
  }
  if (!isPlainObject(v)) fail('parse-failed', `expected Object, but encountered ${jsonTypeName(v)}`, path);
  const given = v as Record<string, unknown>;
  for (const f of input.fields) {
    const value = given[f.name];
    if (value === undefined) {
      if (f.required) fail('parse-failed', `the key '${f.name}' was not present`, path);
      continue;
    }
    if (f.array) checkValues(scalarType(f.dbType), value, `${path}.${f.name}`);
    else checkValue(scalarType(f.dbType), value, `${path}.${f.name}`);
  }
  for (const k of Object.keys(given)) {
    if (!input.fields.some((f) => f.name === k)) fail('parse-failed', `unexpected field '${k}' for type '${input.typeName}'`, `${path}.${k}`);
  }
}

function checkCast(name: string, t: ComparedType, v: unknown, scope: OperatorScope, path: string): void {
  if (!isPlainObject(v)) fail('parse-failed', `expected Object, but encountered ${jsonTypeName(v)}`, path);
  for (const [target, ops] of Object.entries(v as Record<string, unknown>)) {
    const to = CAST_NAMES[target.toLowerCase()] ?? target;
    const valid =
      !t.isArray && !t.enumTable &&
      ((t.base === 'jsonb' && to === 'text') || (t.base === 'geometry' && to === 'geography') || (t.base === 'geography' && to === 'geometry'));
    if (!valid) fail('unexpected-payload', `cannot cast column of type "${t.display}" to type "${to}"`, path);
    checkOperations(name, scalarType(to), ops, scope, `${path}.${target}`);
  }
}

/** `"col"`, `["col"]` (current table) or `["$", "col"]` (the permission's table). */
function checkColumnOperand(name: string, t: ComparedType, v: unknown, scope: OperatorScope, path: string): void {
  let table = scope.current;
  let operand: unknown = v;
  if (Array.isArray(v)) {
    if (v.length === 0) fail('unexpected', 'path cannot be empty', path);
    if (v.length === 1) operand = v[0];
    else if (v.length === 2 && v[0] === '$') {
      table = scope.root;
      operand = v[1];
    } else fail('not-supported', 'Relationship references are not supported in column comparison RHS', path);
  } else if (typeof v !== 'string') {
    fail('unexpected', 'a boolean expression JSON must be either a string or an array', path);
  }
  if (typeof operand !== 'string') fail('parse-failed', `expected String, but encountered ${jsonTypeName(operand)}`, path);
  const rhsName = operand as string;
  const rhs = table.columnsByName.get(rhsName);
  if (!rhs) {
    const kind = fieldKind(table, rhsName);
    if (!kind) fail('not-exists', `column "${rhsName}" does not exist`, path);
    // The reference engine's wording, whatever the source's kind.
    fail('unexpected-payload', `expecting a database column; but, "${rhsName}" is a ${kind}; column operators can only compare postgres columns`, path);
  }
  const rt = comparedType(rhs!, scope.tables);
  if (!sameType(t, rt)) {
    fail('unexpected-payload', `incompatible column types: "${name}" has type "${t.display}", but "${rhsName}" has type "${rt.display}"`, path);
  }
}

/** What a name is on a table besides a column, in the reference's words; undefined when nothing. */
export function fieldKind(table: ResolvedTable, name: string): 'column' | 'relationship' | 'computed field' | 'remote relationship' | undefined {
  if (table.columnsByName.has(name)) return 'column';
  if (table.relationships.has(name)) return 'relationship';
  // Resolved computed fields when known: one that failed to resolve does not exist for permissions.
  const computed = table.computedFields ? table.computedFields.has(name) : (table.metadata.computed_fields ?? []).some((c) => c.name === name);
  if (computed) return 'computed field';
  if ((table.metadata.remote_relationships ?? []).some((r) => r.name === name)) return 'remote relationship';
  return undefined;
}
