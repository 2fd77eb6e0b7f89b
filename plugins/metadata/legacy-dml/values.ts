/**
 * Column values of inserts and updates: read as the reference decodes them for the column's
 * type (a JSON number for an integer column, a string for text, anything the database parses
 * for the other types), and always sent as parameters.
 */
import {
  checkValue,
  comparedType,
  EngineError,
  PermissionValidationError,
  type ResolvedSource,
  type ResolvedTable,
  type TypedValueIR,
} from '../../../core/sdk/index.js';

export function columnValue(source: ResolvedSource, table: ResolvedTable, column: string, value: unknown, path: string): TypedValueIR {
  const col = table.columnsByName.get(column)!;
  try {
    checkValue(comparedType(col, source.tables), value, path);
  } catch (e) {
    if (e instanceof PermissionValidationError) throw new EngineError(e.code, e.message, { path: e.path });
    throw e;
  }
  // Strings naming a session variable are plain values here: the legacy API reads them literally.
  return { value: { kind: 'const', value: value ?? null }, dbType: col.type };
}
