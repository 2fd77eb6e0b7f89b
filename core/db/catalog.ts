/**
 * What a database-kind plugin's introspection returns: a database-neutral description of the
 * tables, columns, keys and functions of one source. The schema cache resolves metadata against
 * it, and the GraphQL schema generator reads types from it, so it carries no dialect-specific
 * structure beyond type names.
 */

export interface CatalogColumn {
  name: string;
  /** 1-based position in the table, for stable ordering. */
  position: number;
  /** The database's own type name, e.g. `int4`, `text`, `timestamptz`, `_text` for arrays. */
  type: string;
  /** Schema of `type` (e.g. `pg_catalog`), to tell apart same-named user types in two schemas. */
  typeSchema?: string;
  /** For arrays: the element type name (e.g. `text` for `_text`); otherwise undefined. */
  elementType?: string;
  /** The type's category in the database: base, enum, composite, domain, range, array, ... */
  typeKind: 'base' | 'enum' | 'composite' | 'domain' | 'range' | 'array' | 'pseudo' | 'other';
  /** For domains: the base type name. */
  baseType?: string;
  nullable: boolean;
  hasDefault: boolean;
  /** Identity or generated-always columns cannot be inserted/updated directly. */
  isIdentity: boolean;
  /** For identity columns: `by_default` ones still accept explicit values on insert. */
  identityGeneration?: 'always' | 'by_default';
  isGenerated: boolean;
  description: string | null;
}

export interface CatalogConstraint {
  name: string;
  columns: string[];
}

export interface CatalogForeignKey {
  name: string;
  columns: string[];
  refTable: { schema: string; name: string };
  refColumns: string[];
}

/**
 * Where a distributed database keeps a table's rows, for kinds that distribute tables (Citus):
 * `local` on one node; `reference` copied to every node; `distributed` split into shards by
 * `column` (null for a single-shard table), tables of one `colocation` group being split alike
 * so that rows with equal distribution values sit on the same node.
 */
export type TableDistribution =
  | { kind: 'local' }
  | { kind: 'reference' }
  | { kind: 'distributed'; column: string | null; colocation: number };

export interface CatalogTable {
  schema: string;
  name: string;
  /**
   * The database's identity of the relation, unchanged by a rename. Only introspections made to
   * diff a schema change (run_sql) fill it in, so catalogs of equal schemas stay equal. When set,
   * `position` of each column must be just as stable (PostgreSQL's attnum), so that a renamed
   * column is recognised by it.
   */
  oid?: number;
  kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';
  description: string | null;
  columns: CatalogColumn[];
  primaryKey: CatalogConstraint | null;
  uniqueConstraints: CatalogConstraint[];
  foreignKeys: CatalogForeignKey[];
  /** For views: whether rows can be inserted/updated/deleted through it. */
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  /** Set by kinds that distribute tables; the core only hands it to `DatabaseKind.checkRelationship`. */
  distribution?: TableDistribution;
}

export interface CatalogEnumType {
  schema: string;
  name: string;
  values: string[];
  description: string | null;
}

export interface CatalogFunctionArg {
  name: string | null;
  type: string;
  /** Schema of `type`, as for columns. */
  typeSchema?: string;
  /** The type's category, as for columns; absent when the kind plugin does not report it. */
  typeKind?: CatalogColumn['typeKind'];
  hasDefault: boolean;
}

export interface CatalogFunction {
  schema: string;
  name: string;
  oid: number;
  volatility: 'volatile' | 'stable' | 'immutable';
  returnType: string;
  returnTypeSchema: string;
  /** Category of the return type; absent when unknown (then a table row type counts as composite). */
  returnTypeKind?: CatalogColumn['typeKind'];
  /** Whether an argument is VARIADIC (such functions cannot be tracked). */
  hasVariadic?: boolean;
  returnsSet: boolean;
  /** For functions returning a table's row type: `schema.name` of that table. */
  returnsTable: { schema: string; name: string } | null;
  args: CatalogFunctionArg[];
  description: string | null;
  language: string;
}

export interface DatabaseCatalog {
  tables: CatalogTable[];
  enums: CatalogEnumType[];
  functions: CatalogFunction[];
  /** Server version string, e.g. `15.4`. */
  serverVersion: string;
  /** Numeric form for feature checks, e.g. 150004 (PostgreSQL's server_version_num). */
  serverVersionNum?: number;
}

const keyPart = (part: string): string => (part.includes('.') || part.includes('\\') ? part.replace(/[.\\]/g, '\\$&') : part);

/**
 * A table's (or function's, enum type's) key in the engine's maps: `schema.name`, as users read it.
 * PostgreSQL allows dots in both parts, so `"a.b"."c"` and `"a"."b.c"` would give the same text: a
 * dot or backslash inside a part is escaped with a backslash, which leaves every ordinary name's
 * key as it reads.
 */
export const tableKey = (t: { schema: string; name: string }): string => `${keyPart(t.schema)}.${keyPart(t.name)}`;

/** The schema and name a `tableKey` was made of. */
export function tableOfKey(key: string): { schema: string; name: string } {
  let i = 0;
  while (i < key.length && key[i] !== '.') i += key[i] === '\\' ? 2 : 1;
  const unescape = (part: string) => part.replace(/\\(.)/g, '$1');
  return { schema: unescape(key.slice(0, i)), name: unescape(key.slice(i + 1)) };
}

/** Index a catalog for lookups by `schema.name`. */
export function indexCatalog(c: DatabaseCatalog): {
  tables: Map<string, CatalogTable>;
  functions: Map<string, CatalogFunction[]>;
  enums: Map<string, CatalogEnumType>;
} {
  const tables = new Map(c.tables.map((t) => [tableKey(t), t] as const));
  const functions = new Map<string, CatalogFunction[]>();
  for (const f of c.functions) {
    const k = tableKey(f);
    const list = functions.get(k);
    if (list) list.push(f);
    else functions.set(k, [f]);
  }
  const enums = new Map(c.enums.map((e) => [tableKey(e), e] as const));
  return { tables, functions, enums };
}
