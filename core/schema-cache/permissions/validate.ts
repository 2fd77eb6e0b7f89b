/**
 * Table permissions checked against the resolved tables of their source, as the reference engine
 * does when it builds its schema cache: boolean expressions (columns with operators suited to
 * their types, relationships into their target tables, `_exists` over tracked tables, `_and`,
 * `_or`, `_not`, column comparisons), column lists, presets, computed fields and the row limit.
 * The first failure is thrown as a PermissionValidationError with the reference's code and
 * message; the schema-cache resolver turns it into an inconsistent object, and a create operation
 * into its `invalid-configuration` error.
 */
import { isPlainObject, jsonTypeName, toQualifiedTable } from '../../metadata/args.js';
import type { PermissionType } from '../../metadata/dependencies.js';
import type { AnyPermission } from '../../metadata/permission-parse.js';
import { checkColumnComparison, checkComputedComparison, fieldKind, type OperatorScope } from './operators.js';
import { checkValue, comparedType, fail, returnedType } from './values.js';
import { ADMIN_ROLE } from '../../auth/session.js';
import type { ResolvedTable } from '../model.js';
import { tableKey, tableOfKey } from '../../db/catalog.js';
import { qualifiedTableName, type DeletePermission, type InsertPermission, type SelectPermission, type UpdatePermission } from '../../metadata/types.js';

export { PermissionValidationError, isSessionVariable } from './values.js';

const AND_OR = new Set(['_and', '$and', '_or', '$or']);
const NOT = new Set(['_not', '$not']);
const EXISTS = new Set(['_exists', '$exists']);

/**
 * A permission boolean expression evaluated against `table`. `root` is the permission's own table
 * (what `["$", "col"]` refers to); `path` is where the expression sits in the request.
 */
export function validateBoolExp(
  exp: unknown,
  table: ResolvedTable,
  tables: ReadonlyMap<string, ResolvedTable>,
  path: string,
  root: ResolvedTable = table,
): void {
  if (!isPlainObject(exp)) fail('parse-failed', `expected Object, but encountered ${jsonTypeName(exp)}`, path);
  const scope: OperatorScope = { current: table, root, tables };
  for (const [key, value] of Object.entries(exp as Record<string, unknown>)) {
    const at = `${path}.${key}`;
    if (AND_OR.has(key)) {
      if (!Array.isArray(value)) fail('parse-failed', `expected Array, but encountered ${jsonTypeName(value)}`, at);
      (value as unknown[]).forEach((item, i) => validateBoolExp(item, table, tables, `${at}[${i}]`, root));
    } else if (NOT.has(key)) {
      validateBoolExp(value, table, tables, at, root);
    } else if (EXISTS.has(key)) {
      validateExists(value, tables, at, root);
    } else {
      validateField(key, value, scope, at);
    }
  }
}

function validateExists(value: unknown, tables: ReadonlyMap<string, ResolvedTable>, path: string, root: ResolvedTable): void {
  if (!isPlainObject(value)) fail('parse-failed', `expected Object, but encountered ${jsonTypeName(value)}`, path);
  const obj = value as Record<string, unknown>;
  if (!('_table' in obj)) fail('parse-failed', 'key "_table" not found', path);
  if (!('_where' in obj)) fail('parse-failed', 'key "_where" not found', path);
  const name = toQualifiedTable(obj._table);
  if (!name) fail('parse-failed', 'expecting a string/object for QualifiedObject', `${path}._table`);
  const target = tables.get(tableKey(name!));
  if (!target) fail('not-exists', `table "${qualifiedTableName(name!)}" does not exist`, `${path}._table`);
  validateBoolExp(obj._where, target!, tables, `${path}._where`, root);
}

function validateField(name: string, value: unknown, scope: OperatorScope, path: string): void {
  const { current, tables } = scope;
  if (current.columnsByName.has(name)) return checkColumnComparison(name, value, scope, path);
  const rel = current.relationships.get(name);
  if (rel) {
    const target = tables.get(rel.target);
    if (!target) {
      const missing = tableOfKey(rel.target);
      fail('not-exists', `table "${missing.schema}.${missing.name}" does not exist`, path);
    }
    return validateBoolExp(value, target!, tables, path, scope.root);
  }
  const computed = current.computedFields?.get(name);
  if (computed) {
    // As the reference: only a function of the row (and the session) can be evaluated here.
    if (computed.args.some((a) => a.role === 'input')) {
      fail('unexpected-payload', 'Computed columns with input arguments can not be part of the where clause', path);
    }
    const returns = computed.returns;
    if (returns.kind === 'scalar') return checkComputedComparison(name, returnedType(returns.type, returns.typeKind, tables), value, scope, path);
    const target = tables.get(returns.table);
    if (!target) fail('not-exists', `table "${returns.table}" does not exist`, path);
    return validateBoolExp(value, target!, tables, path, scope.root);
  }
  const kind = fieldKind(current, name);
  if (kind === 'remote relationship') fail('unexpected-payload', 'remote field unsupported', path);
  fail('not-exists', `"${name}" does not exist`, path);
}

/** `column "x" does not exist`, or `expecting a database column; but, "x" is a relationship; <why>`. */
function requireColumn(table: ResolvedTable, name: string, why: string, path: string): void {
  if (table.columnsByName.has(name)) return;
  const kind = fieldKind(table, name);
  if (!kind) fail('not-exists', `column "${name}" does not exist`, path);
  fail('unexpected-payload', `expecting a database column; but, "${name}" is a ${kind}; ${why}`, path);
}

function checkColumns(table: ResolvedTable, columns: string[] | '*' | undefined, why: string, path: string): void {
  if (columns === undefined || columns === '*') return;
  columns.forEach((c, i) => requireColumn(table, c, why, `${path}[${i}]`));
}

function checkPresets(table: ResolvedTable, tables: ReadonlyMap<string, ResolvedTable>, set: Record<string, unknown> | undefined, path: string): void {
  for (const [column, value] of Object.entries(set ?? {})) {
    const at = `${path}.${column}`;
    requireColumn(table, column, `column "${column}" not found in table "${qualifiedTableName(table.table)}"`, at);
    checkValue(comparedType(table.columnsByName.get(column)!, tables), value, at);
  }
}

function checkComputedFields(table: ResolvedTable, names: string[] | undefined, path: string): void {
  (names ?? []).forEach((name, i) => {
    const kind = fieldKind(table, name);
    if (!kind) fail('not-exists', `computed field "${name}" does not exist`, `${path}[${i}]`);
    if (kind !== 'computed field') fail('unexpected-payload', `expecting a computed field; but, "${name}" is a ${kind}`, `${path}[${i}]`);
    const returns = table.computedFields?.get(name)?.returns;
    if (returns?.kind === 'table') {
      const target = qualifiedTableName(tableOfKey(returns.table));
      fail(
        'not-supported',
        `select permissions on computed field "${name}" are auto-derived from the permissions on its returning table "${target}" and cannot be specified manually`,
        `${path}[${i}]`,
      );
    }
  });
}

/**
 * Checks one permission (already in its parsed shape) of `role` on `table`, in the reference's
 * order: the admin role first, then each kind's expressions, presets, columns and limit.
 */
export function validatePermission(
  type: PermissionType,
  role: string,
  permission: AnyPermission,
  table: ResolvedTable,
  tables: ReadonlyMap<string, ResolvedTable>,
  path = '$.args.permission',
): void {
  if (role === ADMIN_ROLE) fail('constraint-violation', 'cannot define permission for admin role', path);
  const exp = (e: unknown, key: string) => validateBoolExp(e, table, tables, `${path}.${key}`);
  if (type === 'select') {
    const p = permission as SelectPermission;
    exp(p.filter, 'filter');
    checkColumns(table, p.columns, 'permissions for relationships are automatically inferred', `${path}.columns`);
    checkComputedFields(table, p.computed_fields, `${path}.computed_fields`);
    if (p.limit !== undefined && p.limit < 0) fail('not-supported', 'unexpected negative value', `${path}.limit`);
  } else if (type === 'insert') {
    const p = permission as InsertPermission;
    exp(p.check, 'check');
    checkPresets(table, tables, p.set, `${path}.set`);
    checkColumns(table, p.columns as string[] | '*' | undefined, '', `${path}.columns`);
  } else if (type === 'update') {
    const p = permission as UpdatePermission;
    exp(p.filter, 'filter');
    if (p.check !== undefined && p.check !== null) exp(p.check, 'check');
    checkPresets(table, tables, p.set, `${path}.set`);
    checkColumns(table, p.columns, "relationships can't be used in update", `${path}.columns`);
  } else {
    exp((permission as DeletePermission).filter, 'filter');
  }
}
