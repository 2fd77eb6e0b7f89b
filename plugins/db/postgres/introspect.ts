/**
 * Introspection of a PostgreSQL source into the database-neutral catalog. One statement (see
 * introspect-sql.ts) so the result is a consistent snapshot and costs one round trip; this file
 * only maps PostgreSQL's codes onto the catalog's vocabulary.
 */
import {
  type CatalogColumn,
  type CatalogConstraint,
  type CatalogEnumType,
  type CatalogForeignKey,
  type CatalogFunction,
  type CatalogFunctionArg,
  type CatalogTable,
  type DatabaseCatalog,
  errors,
} from '../../../core/sdk/index.js';
import { INTROSPECT_SQL, introspectRelationsSql } from './introspect-sql.js';
import type { PgQueryable } from './pool.js';

/** Row shapes of the introspection document, exactly as the SQL builds them. */
interface RawColumn {
  name: string;
  position: number;
  type: string;
  typeSchema: string;
  kind: CatalogColumn['typeKind'];
  elementType: string | null;
  baseType: string | null;
  notNull: boolean;
  hasDefault: boolean;
  /** pg_attribute.attidentity: '' none, 'a' always, 'd' by default. */
  identity: string;
  /** pg_attribute.attgenerated: '' none, 's' stored. */
  generated: string;
  description: string | null;
}

interface RawForeignKey {
  name: string;
  columns: string[];
  refSchema: string;
  refName: string;
  refColumns: string[];
}

interface RawTable {
  oid: number;
  schema: string;
  name: string;
  relkind: string;
  description: string | null;
  columns: RawColumn[];
  pk: CatalogConstraint[] | null;
  uniques: CatalogConstraint[] | null;
  fks: RawForeignKey[] | null;
  /** pg_relation_is_updatable() bitmask. */
  upd: number;
}

interface RawFunction {
  schema: string;
  name: string;
  oid: number;
  volatility: string;
  returnType: string;
  returnTypeSchema: string;
  returnTypeKind: CatalogColumn['typeKind'];
  hasVariadic: boolean;
  returnsSet: boolean;
  returnsTableSchema: string | null;
  returnsTableName: string | null;
  args: { name: string | null; type: string; typeSchema: string; typeKind: CatalogColumn['typeKind']; hasDefault: boolean }[];
  description: string | null;
  language: string;
}

interface RawCatalog {
  serverVersion: string;
  serverVersionNum: number;
  tables: RawTable[];
  enums: { schema: string; name: string; values: string[] | null; description: string | null }[];
  functions: RawFunction[];
}

// Bits of pg_relation_is_updatable(): 1 << CMD_UPDATE, CMD_INSERT, CMD_DELETE.
const UPDATE_BIT = 4;
const INSERT_BIT = 8;
const DELETE_BIT = 16;

const RELKINDS: Record<string, CatalogTable['kind']> = {
  r: 'table',
  p: 'partitioned_table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
};

const VOLATILITY: Record<string, CatalogFunction['volatility']> = { v: 'volatile', s: 'stable', i: 'immutable' };

export interface IntrospectOptions {
  /** Fill in each table's `oid` (for diffing a schema change across renames). */
  withOids?: boolean;
}

export async function introspectPostgres(
  db: Pick<PgQueryable, 'queryCatalogJson'>,
  options: IntrospectOptions = {},
): Promise<DatabaseCatalog> {
  const text = await db.queryCatalogJson(INTROSPECT_SQL);
  if (text === null) throw errors.unexpected('database introspection returned no result');
  return toCatalog(JSON.parse(text) as RawCatalog, options.withOids === true);
}

/** The catalog with only the relations of `oids` among its tables, each with its `oid`. */
export async function introspectPostgresRelations(
  db: Pick<PgQueryable, 'queryCatalogJson'>,
  oids: readonly number[],
): Promise<DatabaseCatalog & { tables: Array<CatalogTable & { oid: number }> }> {
  const text = await db.queryCatalogJson(introspectRelationsSql(oids));
  if (text === null) throw errors.unexpected('database introspection returned no result');
  return toCatalog(JSON.parse(text) as RawCatalog, true) as DatabaseCatalog & { tables: Array<CatalogTable & { oid: number }> };
}

function toCatalog(raw: RawCatalog, withOids: boolean): DatabaseCatalog {
  return {
    tables: raw.tables.map((t) => (withOids ? { oid: t.oid, ...toTable(t) } : toTable(t))),
    enums: raw.enums.map(
      (e): CatalogEnumType => ({ schema: e.schema, name: e.name, values: e.values ?? [], description: e.description }),
    ),
    functions: raw.functions.map(toFunction),
    // Distributions append build details ("15.4 (Debian 15.4-1)"); the number is what matters.
    serverVersion: raw.serverVersion.split(' ')[0]!,
    serverVersionNum: raw.serverVersionNum,
  };
}

function toTable(t: RawTable): CatalogTable {
  return {
    schema: t.schema,
    name: t.name,
    kind: RELKINDS[t.relkind] ?? 'table',
    description: t.description,
    columns: t.columns.map(toColumn),
    primaryKey: t.pk?.[0] ?? null,
    uniqueConstraints: t.uniques ?? [],
    foreignKeys: (t.fks ?? []).map(
      (f): CatalogForeignKey => ({
        name: f.name,
        columns: f.columns,
        refTable: { schema: f.refSchema, name: f.refName },
        refColumns: f.refColumns,
      }),
    ),
    insertable: (t.upd & INSERT_BIT) !== 0,
    updatable: (t.upd & UPDATE_BIT) !== 0,
    deletable: (t.upd & DELETE_BIT) !== 0,
  };
}

function toColumn(c: RawColumn): CatalogColumn {
  const col: CatalogColumn = {
    name: c.name,
    position: c.position,
    type: c.type,
    typeSchema: c.typeSchema,
    typeKind: c.kind,
    nullable: !c.notNull,
    // Identity columns have no pg_attrdef entry but still need no value on insert.
    hasDefault: c.hasDefault || c.identity !== '',
    isIdentity: c.identity !== '',
    isGenerated: c.generated !== '',
    description: c.description,
  };
  if (c.elementType !== null) col.elementType = c.elementType;
  if (c.baseType !== null) col.baseType = c.baseType;
  if (c.identity !== '') col.identityGeneration = c.identity === 'a' ? 'always' : 'by_default';
  return col;
}

function toFunction(f: RawFunction): CatalogFunction {
  return {
    schema: f.schema,
    name: f.name,
    oid: f.oid,
    volatility: VOLATILITY[f.volatility] ?? 'volatile',
    returnType: f.returnType,
    returnTypeSchema: f.returnTypeSchema,
    returnTypeKind: f.returnTypeKind,
    hasVariadic: f.hasVariadic,
    returnsSet: f.returnsSet,
    returnsTable:
      f.returnsTableSchema !== null && f.returnsTableName !== null
        ? { schema: f.returnsTableSchema, name: f.returnsTableName }
        : null,
    args: f.args.map(
      (a): CatalogFunctionArg => ({ name: a.name, type: a.type, typeSchema: a.typeSchema, typeKind: a.typeKind, hasDefault: a.hasDefault }),
    ),
    description: f.description,
    language: f.language,
  };
}
