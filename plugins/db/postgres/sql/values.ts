/**
 * Values into SQL: always a typed placeholder, never the value's text.
 */
import type { TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext, SqlParam } from './context.js';
import { sqlType } from './quote.js';
import { isArrayTypeName } from './types.js';

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
  if (tv.value.kind === 'session') {
    // Session variable names are case-insensitive; the session JSON carries them lowercased.
    return `(SELECT ${ctx.sessionText(tv.value.name.toLowerCase())}::${type})`;
  }
  return `${ctx.placeholder(tv)}::${type}`;
}
