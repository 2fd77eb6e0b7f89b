/** Values as parameters, and the SQL Server types the compiler names for them. */
import type { TypedValueIR } from '../../../../core/sdk/index.js';
import type { CompileContext } from './context.js';

/** A value is always a parameter; the engine resolves session variables among them per request. */
export function valueSql(ctx: CompileContext, v: TypedValueIR): string {
  return ctx.slots.value(v, v.array ? 'json' : 'value');
}

const TYPED = new Set(['tinyint', 'smallint', 'int', 'bigint', 'bit', 'real', 'float', 'money', 'smallmoney', 'date', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset', 'time', 'uniqueidentifier']);

/** The OPENJSON column type an `_in` list of `dbType` values is read as. */
export function openJsonType(dbType: string): string {
  if (TYPED.has(dbType)) return dbType.toUpperCase();
  if (dbType === 'decimal' || dbType === 'numeric') return 'DECIMAL(38, 10)';
  return 'NVARCHAR(MAX)';
}

/** Types whose values the server sends as strings when `stringifyNumericTypes` is on. */
export const isBigNumberType = (t: string): boolean => t === 'bigint' || t === 'decimal' || t === 'numeric' || t === 'money' || t === 'float';

/** Text types, compared byte for byte where PostgreSQL would (SQL Server's collations mostly ignore case). */
const TEXT = new Set(['char', 'varchar', 'nchar', 'nvarchar', 'text', 'ntext', 'character varying', 'character', 'bpchar']);
export const isText = (dbType: string): boolean => TEXT.has(dbType);

/** Integer types: AVG over them is taken as FLOAT, since SQL Server's AVG of an INT is an INT. */
export const isIntegerType = (t: string): boolean => ['tinyint', 'smallint', 'int', 'bigint', 'bit'].includes(t);
