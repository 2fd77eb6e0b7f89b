/**
 * The BigQuery kind's column-type facts (`DatabaseKind.scalarTypes`), over the type names its
 * introspection gives (BigQuery's own: `INT64`, `STRING`, ...), with the reference's GraphQL
 * scalars: INT64 `Int`, FLOAT64 `Float`, NUMERIC/BIGNUMERIC `Decimal`, STRING `String`, BOOL
 * `Boolean`, and `Bytes`, `Date`, `Datetime`, `Time`, `Timestamp`, `Geography`. With the
 * `wh_string_numeric_input` experimental feature the numeric types become `wh_int`, `wh_float`
 * and `wh_decimal`, scalars that take numbers or strings holding them (checked when bound).
 */
import type { ScalarTypeTable } from '../../../core/sdk/index.js';

const NUMERIC = ['INT64', 'FLOAT64', 'NUMERIC', 'BIGNUMERIC'];
const COMPARABLE = [...NUMERIC, 'STRING', 'BYTES', 'BOOL', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP'];

export function bigQueryScalarTypes(stringNumericInput: boolean): ScalarTypeTable {
  const numbers = stringNumericInput
    ? { INT64: 'wh_int', FLOAT64: 'wh_float', NUMERIC: 'wh_decimal', BIGNUMERIC: 'wh_decimal' }
    : { INT64: 'Int', FLOAT64: 'Float', NUMERIC: 'Decimal', BIGNUMERIC: 'Decimal' };
  return {
    aliases: { INTEGER: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL', DECIMAL: 'NUMERIC', BIGDECIMAL: 'BIGNUMERIC' },
    graphqlNames: {
      ...numbers,
      STRING: 'String',
      BOOL: 'Boolean',
      BYTES: 'Bytes',
      DATE: 'Date',
      DATETIME: 'Datetime',
      TIME: 'Time',
      TIMESTAMP: 'Timestamp',
      GEOGRAPHY: 'Geography',
    },
    known: [...COMPARABLE, 'GEOGRAPHY', 'JSON'],
    notComparable: ['GEOGRAPHY', 'JSON'],
    numeric: NUMERIC,
    stringLike: ['STRING'],
    preciseNumbers: ['INT64', 'NUMERIC', 'BIGNUMERIC'],
    boolean: 'BOOL',
    // BigQuery runs every aggregate the predicates name (LOGICAL_AND/OR, CORR, COVAR_SAMP, ...).
    aggregatePredicates: { float: 'FLOAT64', count: 'INT64' },
    jsonLiterals: stringNumericInput
      ? { boolean: ['BOOL'], string: ['STRING', 'BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'GEOGRAPHY'] }
      : { integer: ['INT64'], number: ['FLOAT64', 'NUMERIC', 'BIGNUMERIC'], boolean: ['BOOL'], string: ['STRING', 'BYTES', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'GEOGRAPHY'] },
  };
}
