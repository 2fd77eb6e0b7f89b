/**
 * What the engine needs to know about a database kind's column types, supplied by the kind
 * (`DatabaseKind.scalarTypes`): which GraphQL scalar a type becomes, which types compare with
 * `_gt`/`_lt` and `min`/`max`, which are numeric (`sum`/`avg`, `_inc`), which are strings
 * (`_like`), which numeric literals must stay text to keep their precision. The core holds no
 * type names of its own beyond the GraphQL built-ins; the postgres kind's table is
 * plugins/db/postgres/scalar-types.ts.
 */

/** A kind's type facts, as plain lists (all optional: a type not listed has none of the facts). */
export interface ScalarTypeTable {
  /** Other spellings of a type → the catalog's name (`integer` → `int4`). */
  aliases?: Readonly<Record<string, string>>;
  /** GraphQL scalar names of types not named after themselves (`int4` → `Int`, `int8` → `bigint`). */
  graphqlNames?: Readonly<Record<string, string>>;
  /** The type's name as the database's users write it, for messages (`int4` → `integer`). */
  displayNames?: Readonly<Record<string, string>>;
  /** Types the kind knows by name; any other (non-enum) type is opaque and not comparable. */
  known?: readonly string[];
  /** Known types that are nevertheless not comparable (`json`, `bool`). */
  notComparable?: readonly string[];
  /** Numeric types: `sum`/`avg`/`stddev` aggregates and `_inc`. */
  numeric?: readonly string[];
  /** String types: `_like`, `_ilike`, `_regex`, ... */
  stringLike?: readonly string[];
  /** Types whose numeric literals lose precision as JS numbers: such literals stay text. */
  preciseNumbers?: readonly string[];
  /** The JSON-document type with key operators (`_has_key`, `_contains`), if any (`jsonb`). */
  jsonDocument?: string;
  /** The boolean type (`bool`): `_is_null` and boolean expressions use it. */
  boolean?: string;
  /** The one type an enum table's key and comment columns must have (`text`). */
  enumValueType?: string;
  /**
   * The schema the database's own types live in (`pg_catalog`): an argument of such a type is
   * written by its bare name; one of a type from another schema as `schema.type`.
   */
  builtInTypeSchema?: string;
  /**
   * Which JSON literal a permission value for the type must be (an `integer` column takes a JSON
   * integer, a `text` column a string); types not listed are left to the database to parse.
   */
  jsonLiterals?: { readonly [K in JsonLiteral]?: readonly string[] };
  /**
   * The types of the aggregate predicates (`where: {articles_aggregate: {count: {predicate: ...}}}`,
   * core/graphql/aggregate-predicates.ts): the floating-point type that `avg`, `max`, `min`,
   * `sum`, `stddev_samp`, `var_samp`, `corr` and `covar_samp` take and answer (`float8`), and the
   * integer type `count` answers (`int4`); `bool_and`/`bool_or` take `boolean`. `unsupported`
   * names functions the database cannot run. A kind without this entry offers no predicates.
   */
  aggregatePredicates?: { float: string; count: string; unsupported?: readonly string[] };
}

/** The types a kind's aggregate predicates use (from its table's `aggregatePredicates` and `boolean`). */
export interface AggregatePredicateTypes {
  float: string;
  count: string;
  boolean: string | null;
  unsupported: readonly string[];
}

/** The JSON literal kinds permission values are checked against. */
export type JsonLiteral = 'integer' | 'number' | 'boolean' | 'string';

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
  /** Numeric literals for this type stay text (a JS number would lose precision). */
  keepsNumericText: boolean;
}

const GRAPHQL_NAME_RE = /^[_A-Za-z][_0-9A-Za-z]*$/;
const BUILT_IN_SCALARS = ['Int', 'Float', 'String', 'Boolean', 'ID'];

/** A kind's ScalarTypeTable, ready to answer per type. One per kind; immutable. */
export class ScalarTypes {
  private readonly aliases: Readonly<Record<string, string>>;
  private readonly graphqlNames: Readonly<Record<string, string>>;
  private readonly displayNames: Readonly<Record<string, string>>;
  private readonly known: ReadonlySet<string>;
  private readonly notComparable: ReadonlySet<string>;
  private readonly numericTypes: ReadonlySet<string>;
  private readonly stringTypes: ReadonlySet<string>;
  private readonly precise: ReadonlySet<string>;
  private readonly jsonDocument: string | null;
  private readonly booleanType: string | null;
  readonly enumValueType: string | null;
  readonly builtInTypeSchema: string | null;
  private readonly literals: ReadonlyMap<string, JsonLiteral>;
  readonly aggregatePredicateTypes: AggregatePredicateTypes | null;

  constructor(table: ScalarTypeTable = {}) {
    this.aliases = table.aliases ?? {};
    this.graphqlNames = table.graphqlNames ?? {};
    this.displayNames = table.displayNames ?? {};
    this.known = new Set(table.known ?? []);
    this.notComparable = new Set(table.notComparable ?? []);
    this.numericTypes = new Set(table.numeric ?? []);
    this.stringTypes = new Set(table.stringLike ?? []);
    this.precise = new Set(table.preciseNumbers ?? []);
    this.jsonDocument = table.jsonDocument ?? null;
    this.booleanType = table.boolean ?? null;
    this.enumValueType = table.enumValueType ?? null;
    this.builtInTypeSchema = table.builtInTypeSchema ?? null;
    const literals = new Map<string, JsonLiteral>();
    for (const [literal, types] of Object.entries(table.jsonLiterals ?? {}) as Array<[JsonLiteral, readonly string[]]>) {
      for (const t of types) literals.set(t, literal);
    }
    this.literals = literals;
    const agg = table.aggregatePredicates;
    this.aggregatePredicateTypes = agg ? { float: agg.float, count: agg.count, boolean: this.booleanType, unsupported: agg.unsupported ?? [] } : null;
  }

  canonical(dbType: string): string {
    return this.aliases[dbType] ?? dbType;
  }

  /** Whether a type of this schema is one of the database's own (no schema, or the built-in one). */
  isBuiltInSchema(typeSchema: string | undefined): boolean {
    return typeSchema === undefined || typeSchema === this.builtInTypeSchema;
  }

  /** The JSON literal a value of this (non-array) type must be, or null to leave it to the database. */
  jsonLiteral(dbType: string): JsonLiteral | null {
    return this.literals.get(dbType) ?? null;
  }

  /** How messages name the type. */
  displayName(dbType: string): string {
    return this.displayNames[dbType] ?? dbType;
  }

  /** The GraphQL scalar name of a (non-array) type, or null if it cannot be named. */
  nameOf(dbType: string, typeKind?: string): string | null {
    const t = this.canonical(dbType);
    const name = this.graphqlNames[t] ?? t;
    if (!GRAPHQL_NAME_RE.test(name)) return null;
    // A database enum named like a built-in scalar would shadow it; the reference engine rejects that too.
    if (typeKind === 'enum' && BUILT_IN_SCALARS.includes(name)) return null;
    return name;
  }

  /**
   * Describe a column type. `elementType` is the catalog's element type for arrays; when absent an
   * array is recognised by the `_` prefix of its type name.
   */
  info(dbType: string, opts: { elementType?: string; typeKind?: string } = {}): ScalarInfo {
    const isArray = opts.typeKind === 'array' || opts.elementType !== undefined || (dbType.startsWith('_') && dbType.length > 1);
    const elem = this.canonical(isArray ? (opts.elementType ?? dbType.slice(1)) : dbType);
    const known = this.known.has(elem) || opts.typeKind === 'enum';
    return {
      dbType: elem,
      name: this.nameOf(elem, isArray ? undefined : opts.typeKind),
      isArray,
      numeric: !isArray && this.numericTypes.has(elem),
      comparable: !isArray && known && !this.notComparable.has(elem),
      stringLike: !isArray && this.stringTypes.has(elem),
      jsonb: !isArray && elem === this.jsonDocument,
      boolean: !isArray && elem === this.booleanType,
      keepsNumericText: !isArray && this.precise.has(elem),
    };
  }

  /** Whether a numeric literal for this type must be kept as text to keep its precision. */
  keepsNumericText(dbType: string): boolean {
    return this.precise.has(this.canonical(dbType));
  }
}

const NO_FACTS = new ScalarTypes();

/** The facts of a kind, or none (every type opaque, named after itself) for a kind without a table. */
export const scalarTypesOf = (kind: { scalarTypes?: ScalarTypeTable } | undefined): ScalarTypes =>
  kind?.scalarTypes ? scalarTypesCache(kind.scalarTypes) : NO_FACTS;

const compiled = new WeakMap<ScalarTypeTable, ScalarTypes>();
function scalarTypesCache(table: ScalarTypeTable): ScalarTypes {
  let t = compiled.get(table);
  if (!t) {
    t = new ScalarTypes(table);
    compiled.set(table, t);
  }
  return t;
}
