/**
 * Identifiers in backticks. Inside a quoted BigQuery identifier a backslash starts an escape, so
 * backslashes and backticks are escaped; control characters (and the compiler's own markers,
 * U+0001/U+0002) are refused, so no name can end the quoting or reach the statement otherwise.
 */
import { EngineError, type TableRef } from '../../../../core/sdk/index.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function quoteIdent(name: string): string {
  if (name === '' || CONTROL.test(name)) throw new EngineError('not-supported', `the name ${JSON.stringify(name)} cannot be used in a BigQuery statement`);
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

/** `dataset`.`table`: the dataset is the table's schema; the project is the job's own. */
export const quoteTable = (t: TableRef): string => `${quoteIdent(t.schema)}.${quoteIdent(t.name)}`;
