/**
 * Database type → GraphQL scalar, following the reference engine's Postgres mapping
 * (`Backends/Postgres/SQL/Types.hs`: `mkScalarTypeName`, `pgScalarTranslations`,
 * `isNumType`, `isComparableType`): only `int4`, `float4`, `bool`, `text` and `varchar` become
 * built-in scalars; every other type keeps its own name (`int8` is `bigint`, `int2` `smallint`,
 * `float8` stays `float8`, `bpchar`, `citext`, `numeric`, `uuid`, `jsonb`, ...). Arrays (`_text`)
 * become lists of their element's scalar.
 *
 * Custom scalars accept any JSON input and serialize as-is: values are passed to the database as
 * parameters and cast there, and results come back as JSON the database built.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  valueFromASTUntyped,
} from 'graphql';

/** The reference engine's aliases, so a type spelled either way maps to one scalar. */
const CANONICAL: Readonly<Record<string, string>> = {
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
};

/** GraphQL names of types that are not named after themselves. */
const GRAPHQL_NAME: Readonly<Record<string, string>> = {
  int2: 'smallint',
  int4: 'Int',
  int8: 'bigint',
  float4: 'Float',
  bool: 'Boolean',
  text: 'String',
  varchar: 'String',
};

/** Types the reference engine knows by name; any other type is "unknown" and not comparable. */
const KNOWN = new Set([
  'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money', 'bool', 'bpchar', 'varchar',
  'text', 'citext', 'date', 'timestamp', 'timestamptz', 'timetz', 'json', 'jsonb', 'geometry',
  'geography', 'raster', 'uuid', 'ltree', 'lquery', 'ltxtquery',
]);

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'money']);
const NOT_COMPARABLE = new Set(['json', 'jsonb', 'geometry', 'geography', 'bool']);
const STRING_LIKE = new Set(['text', 'varchar', 'bpchar', 'citext']);
/** Types whose literals lose precision as JS numbers: their numeric literals stay text. */
const BIG_NUMBERS = new Set(['int8', 'numeric', 'float8', 'money']);

const GRAPHQL_NAME_RE = /^[_A-Za-z][_0-9A-Za-z]*$/;

export const canonicalDbType = (dbType: string): string => CANONICAL[dbType] ?? dbType;

/** Facts about one database type that the schema generator needs. */
export interface ScalarInfo {
  /** The database type of one value (the element type for arrays). */
  dbType: string;
  /** GraphQL scalar name of one value; null when the type name is not a valid GraphQL name. */
  name: string | null;
  isArray: boolean;
  numeric: boolean;
  comparable: boolean;
  stringLike: boolean;
  jsonb: boolean;
  boolean: boolean;
}

/** The GraphQL scalar name of a (non-array) database type, or null if it cannot be named. */
export function scalarNameOf(dbType: string, typeKind?: string): string | null {
  const t = canonicalDbType(dbType);
  const name = GRAPHQL_NAME[t] ?? t;
  if (!GRAPHQL_NAME_RE.test(name)) return null;
  // A PG enum named like a built-in scalar would shadow it; the reference engine rejects that too.
  if (typeKind === 'enum' && ['Int', 'Float', 'String', 'Boolean', 'ID'].includes(name)) return null;
  return name;
}

/**
 * Describe a column type. `elementType` is the catalog's element type for arrays; when absent an
 * array is recognised by the `_` prefix of its type name.
 */
export function scalarInfo(dbType: string, opts: { elementType?: string; typeKind?: string } = {}): ScalarInfo {
  const isArray = opts.typeKind === 'array' || opts.elementType !== undefined || (dbType.startsWith('_') && dbType.length > 1);
  const elem = canonicalDbType(isArray ? (opts.elementType ?? dbType.slice(1)) : dbType);
  const known = KNOWN.has(elem) || opts.typeKind === 'enum';
  return {
    dbType: elem,
    name: scalarNameOf(elem, isArray ? undefined : opts.typeKind),
    isArray,
    numeric: !isArray && NUMERIC.has(elem),
    comparable: !isArray && known && !NOT_COMPARABLE.has(elem),
    stringLike: !isArray && STRING_LIKE.has(elem),
    jsonb: !isArray && elem === 'jsonb',
    boolean: !isArray && elem === 'bool',
  };
}

/** Whether a numeric literal for this database type must be kept as text to keep its precision. */
export const keepsNumericText = (dbType: string): boolean => BIG_NUMBERS.has(canonicalDbType(dbType));

const BUILT_IN: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
};

// Scalar types hold no per-schema state, so one instance per name serves every role schema.
const customScalars = new Map<string, GraphQLScalarType>();

/** The GraphQL scalar type of a scalar name: a built-in, or a pass-through custom scalar. */
export function scalarType(name: string): GraphQLScalarType {
  const builtIn = BUILT_IN[name];
  if (builtIn) return builtIn;
  let t = customScalars.get(name);
  if (!t) {
    t = new GraphQLScalarType({
      name,
      serialize: (v: unknown) => v,
      parseValue: (v: unknown) => v,
      parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables ?? undefined),
    });
    customScalars.set(name, t);
  }
  return t;
}
