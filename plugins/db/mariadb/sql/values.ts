/** Values as parameters, and the types the compiler needs to name. */
import type { TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';

/** A value is always a parameter; the engine resolves session variables among them per request. */
export function valueSql(ctx: CompileContext, v: TypedValueIR): string {
  return ctx.slots.value(v, v.array ? 'json' : 'value');
}

const INTEGER = new Set(['smallint', 'integer', 'bigint', 'int', 'int2', 'int4', 'int8', 'boolean', 'bool']);
const NUMBER = new Set(['numeric', 'decimal', 'real', 'double precision', 'float4', 'float8']);

/** The JSON_TABLE column type an `_in` list of `dbType` values is read as. */
export function jsonTableType(dbType: string): string {
  if (INTEGER.has(dbType)) return 'BIGINT';
  if (NUMBER.has(dbType)) return 'DECIMAL(65,30)';
  if (dbType === 'date') return 'DATE';
  if (dbType === 'timestamp') return 'DATETIME(6)';
  return 'LONGTEXT';
}

/** Types whose values the server sends as strings when `stringifyNumericTypes` is on. */
export const isBigNumberType = (t: string): boolean => t === 'bigint' || t === 'numeric' || t === 'double precision';

/**
 * A DATETIME/TIMESTAMP value as JSON text the way PostgreSQL writes a `timestamp`: ISO 8601 with
 * a `T` (`2024-01-01T10:00:00`), fractional seconds only when not zero and without trailing
 * zeros (`...T10:00:00.12`). MariaDB itself writes `2024-01-01 10:00:00[.000000]`. NULL stays NULL.
 */
export function timestampJsonSql(expr: string): string {
  return `CONCAT(DATE_FORMAT(${expr}, '%Y-%m-%dT%H:%i:%s'), IF(MICROSECOND(${expr}) = 0, '', TRIM(TRAILING '0' FROM DATE_FORMAT(${expr}, '.%f'))))`;
}
