/**
 * Introspection from SQL Server's catalog views (sys.*), in ONE round trip: a batch of five
 * selects answering the server version, the user tables and views (with their MS_Description
 * extended property as the comment), their columns (type, nullability, default, identity,
 * computed, comment), primary keys and unique constraints or indexes, and foreign keys. Every
 * schema of the database is read; tables are tracked as `{schema, name}`. Column types keep SQL
 * Server's names, which scalar-types.ts describes: alias types (and sysname) are read as their
 * base type, CLR types (geography, hierarchyid, ...) by their own name, since they all share one
 * system type id.
 */
import type { CatalogColumn, CatalogConstraint, CatalogForeignKey, CatalogTable, DatabaseCatalog } from '../../../core/sdk/index.js';
import type { Row } from './pool.js';

const DESCRIPTION = `CAST(ep.value AS NVARCHAR(MAX))`;

/** The batch, one result set per statement, in this order. */
export const INTROSPECTION_BATCH = [
  `SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS version, @@VERSION AS banner`,
  `SELECT s.name AS [schema], o.name AS name, o.type AS type, ${DESCRIPTION} AS comment
     FROM sys.objects o JOIN sys.schemas s ON s.schema_id = o.schema_id
     LEFT JOIN sys.extended_properties ep ON ep.class = 1 AND ep.major_id = o.object_id AND ep.minor_id = 0 AND ep.name = 'MS_Description'
    WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0
    ORDER BY s.name, o.name`,
  `SELECT s.name AS [schema], o.name AS tbl, c.name AS name, c.column_id AS pos,
          CASE WHEN ty.name = N'sysname' OR (ty.is_user_defined = 1 AND ty.is_assembly_type = 0) THEN TYPE_NAME(c.system_type_id) ELSE ty.name END AS type,
          c.max_length AS max_length, c.precision AS precision, c.scale AS scale,
          c.is_nullable AS nullable, CAST(CASE WHEN c.default_object_id <> 0 THEN 1 ELSE 0 END AS BIT) AS has_default,
          c.is_identity AS is_identity, c.is_computed AS is_computed, ${DESCRIPTION} AS comment
     FROM sys.columns c JOIN sys.objects o ON o.object_id = c.object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
     JOIN sys.types ty ON ty.user_type_id = c.user_type_id
     LEFT JOIN sys.extended_properties ep ON ep.class = 1 AND ep.major_id = c.object_id AND ep.minor_id = c.column_id AND ep.name = 'MS_Description'
    WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0
    ORDER BY s.name, o.name, c.column_id`,
  `SELECT s.name AS [schema], o.name AS tbl, i.name AS name, i.is_primary_key AS is_primary, c.name AS col
     FROM sys.indexes i JOIN sys.objects o ON o.object_id = i.object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
     JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0
     JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
    WHERE (i.is_primary_key = 1 OR i.is_unique = 1) AND i.has_filter = 0 AND i.is_hypothetical = 0
      AND o.type IN ('U', 'V') AND o.is_ms_shipped = 0
    ORDER BY s.name, o.name, i.is_primary_key DESC, i.name, ic.key_ordinal`,
  `SELECT s.name AS [schema], o.name AS tbl, fk.name AS name, pc.name AS col, rs.name AS ref_schema, ro.name AS ref_table, rc.name AS ref_col
     FROM sys.foreign_keys fk
     JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id
     JOIN sys.objects o ON o.object_id = fk.parent_object_id JOIN sys.schemas s ON s.schema_id = o.schema_id
     JOIN sys.columns pc ON pc.object_id = fkc.parent_object_id AND pc.column_id = fkc.parent_column_id
     JOIN sys.objects ro ON ro.object_id = fk.referenced_object_id JOIN sys.schemas rs ON rs.schema_id = ro.schema_id
     JOIN sys.columns rc ON rc.object_id = fkc.referenced_object_id AND rc.column_id = fkc.referenced_column_id
    ORDER BY s.name, o.name, fk.name, fkc.constraint_column_id`,
].join(';\n');

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
const key = (schema: unknown, table: unknown): string => `${str(schema)}\u0000${str(table)}`;

/** The catalog from the batch's five result sets. */
export function catalogFromResultSets(sets: readonly Row[][]): DatabaseCatalog {
  const [version = [], tables = [], columns = [], keys = [], fks = []] = sets;
  const byTable = new Map<string, CatalogTable>();
  for (const t of tables) {
    // Views are read-only here: whether SQL Server can write through one depends on its definition.
    const isView = str(t['type']).trim() === 'V';
    byTable.set(key(t['schema'], t['name']), {
      schema: str(t['schema']),
      name: str(t['name']),
      kind: isView ? 'view' : 'table',
      description: t['comment'] === null || t['comment'] === undefined ? null : str(t['comment']),
      columns: [],
      primaryKey: null,
      uniqueConstraints: [],
      foreignKeys: [],
      insertable: !isView,
      updatable: !isView,
      deletable: !isView,
    });
  }
  for (const c of columns) byTable.get(key(c['schema'], c['tbl']))?.columns.push(toColumn(c));
  const constraint = (list: CatalogConstraint[], name: string): CatalogConstraint => {
    let found = list.find((k) => k.name === name);
    if (!found) list.push((found = { name, columns: [] }));
    return found;
  };
  for (const k of keys) {
    const t = byTable.get(key(k['schema'], k['tbl']));
    if (!t) continue;
    if (bool(k['is_primary'])) (t.primaryKey ??= { name: str(k['name']), columns: [] }).columns.push(str(k['col']));
    else constraint(t.uniqueConstraints, str(k['name'])).columns.push(str(k['col']));
  }
  for (const f of fks) {
    const t = byTable.get(key(f['schema'], f['tbl']));
    if (!t) continue;
    let fk: CatalogForeignKey | undefined = t.foreignKeys.find((x) => x.name === str(f['name']));
    if (!fk) {
      fk = { name: str(f['name']), columns: [], refTable: { schema: str(f['ref_schema']), name: str(f['ref_table']) }, refColumns: [] };
      t.foreignKeys.push(fk);
    }
    fk.columns.push(str(f['col']));
    fk.refColumns.push(str(f['ref_col']));
  }
  const v = str(version[0]?.['version']);
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return {
    tables: [...byTable.values()],
    enums: [],
    functions: [],
    serverVersion: str(version[0]?.['banner']) || v,
    ...(m ? { serverVersionNum: Number(m[1]) * 1000000 + Number(m[2]) * 10000 + Number(m[3]) } : {}),
  };
}

/**
 * A column's type as a declaration (`nvarchar(50)`, `decimal(10, 2)`, `datetime2(7)`), for the
 * table variables mutations collect written keys in. sys.columns gives lengths in bytes (-1 for
 * MAX); a rowversion (`timestamp`) is read back as binary(8).
 */
export function declaredType(c: Row): string {
  const type = str(c['type']).toLowerCase();
  const length = Number(c['max_length']);
  const size = (n: number): string => (length === -1 ? 'max' : String(n));
  switch (type) {
    case 'nvarchar':
    case 'nchar':
      return `${type}(${size(length / 2)})`;
    case 'varchar':
    case 'char':
    case 'varbinary':
    case 'binary':
      return `${type}(${size(length)})`;
    case 'decimal':
    case 'numeric':
      return `${type}(${Number(c['precision'])}, ${Number(c['scale'])})`;
    case 'datetime2':
    case 'datetimeoffset':
    case 'time':
      return `${type}(${Number(c['scale'])})`;
    case 'timestamp':
      return 'binary(8)';
    default:
      return type;
  }
}

/** Each table's column declarations (`declaredType`), by `schema\0table`, from the batch's result sets. */
export function declaredTypes(sets: readonly Row[][]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const c of sets[2] ?? []) {
    const k = key(c['schema'], c['tbl']);
    let table = out.get(k);
    if (!table) out.set(k, (table = new Map()));
    table.set(str(c['name']), declaredType(c));
  }
  return out;
}

function toColumn(c: Row): CatalogColumn {
  const identity = bool(c['is_identity']);
  const computed = bool(c['is_computed']);
  return {
    name: str(c['name']),
    position: Number(c['pos']),
    type: str(c['type']).toLowerCase(),
    typeKind: 'base',
    nullable: bool(c['nullable']),
    hasDefault: identity || computed || bool(c['has_default']),
    isIdentity: identity,
    // SQL Server takes no explicit value for an identity column (short of IDENTITY_INSERT).
    ...(identity ? { identityGeneration: 'always' as const } : {}),
    isGenerated: computed,
    description: c['comment'] === null || c['comment'] === undefined ? null : str(c['comment']),
  };
}
