/**
 * Values into SQL: always a typed placeholder, never the value's text.
 */
import type { TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext, SqlParam } from './context.js';
import { sqlType } from './quote.js';
import { isArrayTypeName } from './types.js';
import { extensionValueSql } from '../extension-types.js';

/** The cast target of a value; `forceArray` for operators that only take arrays (`_in`). */
export function castType(tv: TypedValueIR, forceArray = false): string {
  const t = sqlType(tv.dbType);
  if (tv.array === true) return t + '[]';
  if (forceArray && !isArrayTypeName(tv.dbType)) return t + '[]';
  return t;
}

/**
 * `$n::type` for constants and GraphQL variables. A session variable is read from the `$1`
 * JSON inside a scalar sub-select: the planner makes that an InitPlan run once per execution,
 * where a bare `($1::json->>'x')` is re-parsed for every row a filter looks at (3x slower on a
 * 100k-row scan under a generic plan).
 */
export function valueSql(ctx: CompileContext, value: TypedValueIR | SqlParam, forceArray = false): string {
  // Record the array-ness the SQL gives the value, so the binder converts it accordingly.
  const tv = forceArray && value.array !== true && !isArrayTypeName(value.dbType) ? { ...value, array: true } : value;
  const type = castType(tv);
  const array = tv.array === true || (forceArray && !isArrayTypeName(value.dbType));
  if (tv.value.kind === 'session') {
    // Session variable names are case-insensitive; the session JSON carries them lowercased.
    const text = ctx.sessionText(tv.value.name.toLowerCase());
    const ext = extensionValueSql(tv.dbType, text, array);
    return ext !== undefined ? `(SELECT ${ext})` : `(SELECT ${text}::${type})`;
  }
  // GeoJSON and hex WKB values are sent as text and built by the extension's own functions.
  const placeholder = ctx.placeholder(tv);
  return extensionValueSql(tv.dbType, placeholder, array) ?? `${placeholder}::${type}`;
}
