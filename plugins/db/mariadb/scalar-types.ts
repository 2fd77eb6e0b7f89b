/**
 * The mariadb kind's column-type facts (`DatabaseKind.scalarTypes`), over the type names its
 * introspection gives (introspect.ts): which GraphQL scalar each becomes, which compare, which
 * are numbers or strings, and which JSON literal a permission value must be.
 */
import type { ScalarTypeTable } from '../../../core/sdk/index.js';

const INTEGERS = ['smallint', 'integer', 'bigint'];
const DECIMALS = ['numeric', 'real', 'double precision'];
const STRINGS = ['char', 'varchar', 'text'];

export const MARIADB_SCALAR_TYPES: ScalarTypeTable = {
  aliases: { int: 'integer', decimal: 'numeric', double: 'double precision', float: 'real', bool: 'boolean' },
  graphqlNames: {
    integer: 'Int',
    real: 'Float',
    'double precision': 'Float',
    boolean: 'Boolean',
    char: 'String',
    varchar: 'String',
    text: 'String',
  },
  displayNames: { integer: 'int', numeric: 'decimal', 'double precision': 'double', real: 'float', boolean: 'boolean', timestamp: 'datetime' },
  known: [...INTEGERS, ...DECIMALS, ...STRINGS, 'boolean', 'date', 'timestamp'],
  notComparable: ['boolean'],
  numeric: [...INTEGERS, ...DECIMALS],
  stringLike: STRINGS,
  // Values past 2^53 (BIGINT, DECIMAL) keep their digits as text; DOUBLE reads as a JS number.
  preciseNumbers: ['bigint', 'numeric'],
  boolean: 'boolean',
  // DOUBLE and BOOLEAN columns; MariaDB has no CORR or COVAR_SAMP.
  aggregatePredicates: { float: 'double precision', count: 'integer', unsupported: ['corr', 'covar_samp'] },
  jsonLiterals: { integer: INTEGERS, number: DECIMALS, boolean: ['boolean'], string: STRINGS },
};
