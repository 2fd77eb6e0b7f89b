/**
 * The mssql kind's column-type facts (`DatabaseKind.scalarTypes`), over SQL Server's own type
 * names (introspection reads them from sys.types): which GraphQL scalar each becomes, which
 * compare, which are numbers or strings, and which JSON literal a permission value must be.
 */
import type { ScalarTypeTable } from '../../../core/sdk/index.js';

const INTEGERS = ['tinyint', 'smallint', 'int', 'bigint'];
const DECIMALS = ['decimal', 'numeric', 'money', 'smallmoney', 'float', 'real'];
const STRINGS = ['char', 'varchar', 'nchar', 'nvarchar', 'text', 'ntext'];
const TIMES = ['date', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset', 'time'];

export const MSSQL_SCALAR_TYPES: ScalarTypeTable = {
  aliases: { integer: 'int', bool: 'bit', boolean: 'bit', 'double precision': 'float', dec: 'decimal' },
  graphqlNames: {
    int: 'Int',
    float: 'Float',
    real: 'Float',
    bit: 'Boolean',
    char: 'String',
    varchar: 'String',
    nchar: 'String',
    nvarchar: 'String',
    text: 'String',
    ntext: 'String',
  },
  known: [...INTEGERS, ...DECIMALS, ...STRINGS, ...TIMES, 'bit', 'uniqueidentifier'],
  // SQL Server cannot order or compare the legacy LOB types (text, ntext) at all.
  notComparable: ['bit', 'text', 'ntext'],
  numeric: [...INTEGERS, ...DECIMALS],
  stringLike: STRINGS,
  // Values past 2^53 keep their digits as text; float and real read as JS numbers.
  preciseNumbers: ['bigint', 'decimal', 'numeric', 'money'],
  boolean: 'bit',
  // SQL Server has no CORR or COVAR_SAMP; the others compile in sql/bool-exp.ts.
  aggregatePredicates: { float: 'float', count: 'int', unsupported: ['corr', 'covar_samp'] },
  jsonLiterals: { integer: INTEGERS, number: DECIMALS, boolean: ['bit'], string: [...STRINGS, 'uniqueidentifier'] },
};
