/**
 * PostgreSQL's column types as the engine sees them (`DatabaseKind.scalarTypes`), following the
 * reference engine's Postgres mapping (`Backends/Postgres/SQL/Types.hs`: `mkScalarTypeName`,
 * `pgScalarTranslations`, `isNumType`, `isComparableType`): only `int4`, `float4`, `bool`, `text`
 * and `varchar` become built-in scalars; every other type keeps its own name (`int8` is
 * `bigint`, `int2` `smallint`, `float8` stays `float8`, `bpchar`, `citext`, `numeric`, `uuid`,
 * `jsonb`, ...). Arrays (`_text`) become lists of their element's scalar.
 */
import type { ScalarTypeTable } from '../../../core/sdk/index.js';

export const POSTGRES_SCALAR_TYPES: ScalarTypeTable = {
  // The reference engine's aliases, so a type spelled either way maps to one scalar.
  aliases: {
    smallint: 'int2',
    integer: 'int4',
    int: 'int4',
    serial: 'int4',
    bigint: 'int8',
    bigserial: 'int8',
    real: 'float4',
    'double precision': 'float8',
    decimal: 'numeric',
    boolean: 'bool',
    char: 'bpchar',
    character: 'bpchar',
    'character varying': 'varchar',
    'timestamp without time zone': 'timestamp',
    'timestamp with time zone': 'timestamptz',
    'time with time zone': 'timetz',
  },
  graphqlNames: {
    int2: 'smallint',
    int4: 'Int',
    int8: 'bigint',
    float4: 'Float',
    bool: 'Boolean',
    text: 'String',
    varchar: 'String',
  },
  // The reference prints PostgreSQL's own type names in messages (`integer`, not `int4`).
  displayNames: {
    int2: 'smallint',
    int4: 'integer',
    int8: 'bigint',
    bool: 'boolean',
    float4: 'real',
  },
  // Types the reference engine knows by name; any other type is "unknown" and not comparable.
  known: [
    'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'bool', 'bpchar', 'varchar',
    'text', 'citext', 'date', 'timestamp', 'timestamptz', 'timetz', 'json', 'jsonb', 'geometry',
    'geography', 'raster', 'uuid', 'ltree', 'lquery', 'ltxtquery',
  ],
  notComparable: ['json', 'jsonb', 'geometry', 'geography', 'bool'],
  numeric: ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money'],
  stringLike: ['text', 'varchar', 'bpchar', 'citext'],
  preciseNumbers: ['int8', 'numeric', 'float8', 'money'],
  jsonDocument: 'jsonb',
  boolean: 'bool',
  // The reference's signatures: float8 arguments and answers, count as int4.
  aggregatePredicates: { float: 'float8', count: 'int4' },
  enumValueType: 'text',
  builtInTypeSchema: 'pg_catalog',
  // As the reference decodes permission values; other types (numeric, int8, dates, ...) are parsed by PostgreSQL.
  jsonLiterals: {
    integer: ['int2', 'int4'],
    number: ['float4', 'float8'],
    boolean: ['bool'],
    string: ['text', 'varchar', 'citext', 'bpchar'],
  },
};
