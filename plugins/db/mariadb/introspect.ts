/**
 * Introspection of the source's database from information_schema: tables and views (with their
 * comments), columns, primary and unique keys, foreign keys. The database is the catalog's
 * schema. Column types are given the names the engine's scalar mapping knows (`integer`,
 * `varchar`, `boolean` for TINYINT(1), `double precision`, `timestamp` for DATETIME, ...), so
 * they become the same GraphQL scalars as in the other kinds; a type without such a name keeps
 * MariaDB's own.
 */
import type { CatalogColumn, CatalogConstraint, CatalogForeignKey, CatalogTable, DatabaseCatalog } from '../../../core/sdk/index.js';
import type { Queryable, Row } from './pool.js';

const TYPES: Readonly<Record<string, string>> = {
  tinyint: 'smallint',
  smallint: 'smallint',
  mediumint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'bigint',
  decimal: 'numeric',
  numeric: 'numeric',
  float: 'real',
  double: 'double precision',
  char: 'char',
  varchar: 'varchar',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  enum: 'text',
  set: 'text',
  date: 'date',
  datetime: 'timestamp',
  timestamp: 'timestamp',
};

/** The catalog name of a column type (`tinyint(1)` is MariaDB's BOOLEAN). */
export function catalogType(dataType: string, columnType: string): string {
  const t = dataType.toLowerCase();
  if (t === 'tinyint' && /^tinyint\(1\)/i.test(columnType)) return 'boolean';
  return TYPES[t] ?? t;
}

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

export async function introspectMaria(db: Queryable, database: string): Promise<DatabaseCatalog> {
  const [version, tables, columns, keys, fks] = await Promise.all([
    db.rows('SELECT VERSION() AS v'),
    db.rows(
      `SELECT t.TABLE_NAME AS name, t.TABLE_TYPE AS type, t.TABLE_COMMENT AS comment, v.IS_UPDATABLE AS updatable
         FROM information_schema.TABLES t LEFT JOIN information_schema.VIEWS v
           ON v.TABLE_SCHEMA = t.TABLE_SCHEMA AND v.TABLE_NAME = t.TABLE_NAME
        WHERE t.TABLE_SCHEMA = ? ORDER BY t.TABLE_NAME`,
      [database],
    ),
    db.rows(
      `SELECT TABLE_NAME AS tbl, COLUMN_NAME AS name, ORDINAL_POSITION AS pos, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType,
              IS_NULLABLE AS nullable, COLUMN_DEFAULT AS dflt, EXTRA AS extra, IS_GENERATED AS generated, COLUMN_COMMENT AS comment
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`,
      [database],
    ),
    db.rows(
      `SELECT c.TABLE_NAME AS tbl, c.CONSTRAINT_NAME AS name, c.CONSTRAINT_TYPE AS type, k.COLUMN_NAME AS col
         FROM information_schema.TABLE_CONSTRAINTS c JOIN information_schema.KEY_COLUMN_USAGE k
           ON k.CONSTRAINT_SCHEMA = c.CONSTRAINT_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.CONSTRAINT_NAME = c.CONSTRAINT_NAME
        WHERE c.TABLE_SCHEMA = ? AND c.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'UNIQUE')
        ORDER BY c.TABLE_NAME, c.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      [database],
    ),
    db.rows(
      `SELECT k.TABLE_NAME AS tbl, k.CONSTRAINT_NAME AS name, k.COLUMN_NAME AS col,
              k.REFERENCED_TABLE_SCHEMA AS refSchema, k.REFERENCED_TABLE_NAME AS refTable, k.REFERENCED_COLUMN_NAME AS refCol
         FROM information_schema.KEY_COLUMN_USAGE k
        WHERE k.TABLE_SCHEMA = ? AND k.REFERENCED_TABLE_NAME IS NOT NULL
        ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
      [database],
    ),
  ]);

  const byTable = new Map<string, CatalogTable>();
  for (const t of tables) {
    const isView = str(t['type']) === 'VIEW';
    const writable = !isView || str(t['updatable']) === 'YES';
    byTable.set(str(t['name']), {
      schema: database,
      name: str(t['name']),
      kind: isView ? 'view' : 'table',
      description: str(t['comment']) === '' || isView ? null : str(t['comment']),
      columns: [],
      primaryKey: null,
      uniqueConstraints: [],
      foreignKeys: [],
      insertable: writable,
      updatable: writable,
      deletable: writable,
    });
  }
  for (const c of columns) {
    const t = byTable.get(str(c['tbl']));
    if (t) t.columns.push(toColumn(c));
  }
  const constraint = (list: CatalogConstraint[], name: string): CatalogConstraint => {
    let found = list.find((k) => k.name === name);
    if (!found) list.push((found = { name, columns: [] }));
    return found;
  };
  for (const k of keys) {
    const t = byTable.get(str(k['tbl']));
    if (!t) continue;
    if (str(k['type']) === 'PRIMARY KEY') (t.primaryKey ??= { name: str(k['name']), columns: [] }).columns.push(str(k['col']));
    else constraint(t.uniqueConstraints, str(k['name'])).columns.push(str(k['col']));
  }
  for (const f of fks) {
    const t = byTable.get(str(f['tbl']));
    if (!t) continue;
    let fk: CatalogForeignKey | undefined = t.foreignKeys.find((x) => x.name === str(f['name']));
    if (!fk) {
      fk = { name: str(f['name']), columns: [], refTable: { schema: str(f['refSchema']), name: str(f['refTable']) }, refColumns: [] };
      t.foreignKeys.push(fk);
    }
    fk.columns.push(str(f['col']));
    fk.refColumns.push(str(f['refCol']));
  }
  const v = str(version[0]?.['v']);
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return {
    tables: [...byTable.values()],
    enums: [],
    functions: [],
    serverVersion: v,
    ...(m ? { serverVersionNum: Number(m[1]) * 10000 + Number(m[2]) * 100 + Number(m[3]) } : {}),
  };
}

function toColumn(c: Row): CatalogColumn {
  const extra = str(c['extra']).toLowerCase();
  const generated = str(c['generated']) === 'ALWAYS' || extra.includes('virtual') || extra.includes('persistent') || extra.includes('stored');
  const autoIncrement = extra.includes('auto_increment');
  return {
    name: str(c['name']),
    position: Number(c['pos']),
    type: catalogType(str(c['dataType']), str(c['columnType'])),
    typeKind: 'base',
    nullable: str(c['nullable']) === 'YES',
    // information_schema writes a NULL default as the text NULL (or SQL NULL) alike.
    hasDefault: autoIncrement || (c['dflt'] !== null && c['dflt'] !== undefined && str(c['dflt']) !== 'NULL'),
    isIdentity: false,
    isGenerated: generated,
    description: str(c['comment']) === '' ? null : str(c['comment']),
  };
}
