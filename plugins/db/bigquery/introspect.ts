/**
 * Introspection of each configured dataset from its INFORMATION_SCHEMA views, through the client
 * (four queries per dataset, run together): tables and views with their descriptions, columns
 * with their types and descriptions, and the primary and foreign keys BigQuery records (declared
 * NOT ENFORCED; the reference reads no keys, so it has no `_by_pk` fields or foreign-key
 * relationships for this kind). The dataset is the catalog's schema. Column types keep
 * BigQuery's names without their parameters (`STRING(10)` is `STRING`); ARRAY and STRUCT columns
 * are `ARRAY`/`STRUCT` and read as JSON.
 */
import type { CatalogColumn, CatalogForeignKey, CatalogFunction, CatalogTable, DatabaseCatalog } from '../../../core/sdk/index.js';
import type { BigQueryConnection, QueryResult } from './client.js';
import { quoteIdent } from './sql/quote.js';

type Row = Record<string, string | null>;

/** Flat rows of scalar columns, by column name. */
export function flatRows(r: QueryResult): Row[] {
  return r.rows.map((row) => Object.fromEntries(r.schema.map((f, i) => [f.name, (row.f[i]?.v ?? null) as string | null])));
}

/** The catalog name of an INFORMATION_SCHEMA data_type. */
export function catalogType(dataType: string): string {
  const t = dataType.trim().toUpperCase();
  if (t.startsWith('ARRAY<')) return 'ARRAY';
  if (t.startsWith('STRUCT<')) return 'STRUCT';
  const base = t.replace(/\(.*$/, '').trim();
  const aliases: Readonly<Record<string, string>> = { INTEGER: 'INT64', INT: 'INT64', SMALLINT: 'INT64', BIGINT: 'INT64', TINYINT: 'INT64', BYTEINT: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL', DECIMAL: 'NUMERIC', BIGDECIMAL: 'BIGNUMERIC' };
  return aliases[base] ?? base;
}

/** A description option's value is a string literal (`"text"`). */
function optionText(v: string | null): string | null {
  if (v === null) return null;
  try {
    const parsed: unknown = JSON.parse(v);
    return typeof parsed === 'string' ? parsed : v;
  } catch {
    return v;
  }
}

/**
 * BigQuery names a primary key `<table>.pk$`, which is no GraphQL name, and the engine (as the
 * reference) tracks only tables whose key names are: such names get a GraphQL-safe form
 * (`<table>_pkey`, or the name with other characters as `_`). Nothing is written with them.
 */
export function keyName(name: string, table: string): string {
  if (/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) return name;
  if (name === `${table}.pk$`) return `${table}_pkey`.replace(/[^_0-9A-Za-z]/g, '_');
  const safe = name.replace(/[^_0-9A-Za-z]/g, '_');
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}

export async function introspectBigQuery(conn: BigQueryConnection, datasets: readonly string[]): Promise<DatabaseCatalog> {
  const [tables, functions] = await Promise.all([
    Promise.all(datasets.map((d) => introspectDataset(conn, d))),
    Promise.all(datasets.map((d) => introspectRoutines(conn, d))),
  ]);
  return { tables: tables.flat(), enums: [], functions: functions.flat(), serverVersion: 'BigQuery' };
}

/**
 * The dataset's user-defined functions (for computed fields): table-valued functions return sets
 * of rows whose table metadata names (`return_table`); their arguments in order, typed.
 */
async function introspectRoutines(conn: BigQueryConnection, dataset: string): Promise<CatalogFunction[]> {
  const ds = quoteIdent(dataset);
  const [routines, parameters] = await Promise.all([
    conn.query(`SELECT routine_name, routine_type FROM ${ds}.INFORMATION_SCHEMA.ROUTINES WHERE routine_type IN ('TABLE FUNCTION', 'SCALAR FUNCTION') ORDER BY routine_name`, {}),
    conn.query(`SELECT specific_name, ordinal_position, parameter_name, data_type FROM ${ds}.INFORMATION_SCHEMA.PARAMETERS WHERE is_result = 'NO' ORDER BY specific_name, ordinal_position`, {}),
  ]);
  const args = new Map<string, CatalogFunction['args']>();
  for (const p of flatRows(parameters)) {
    const list = args.get(p['specific_name']!) ?? [];
    list.push({ name: p['parameter_name'] ?? null, type: catalogType(p['data_type'] ?? 'STRING'), hasDefault: false });
    args.set(p['specific_name']!, list);
  }
  return flatRows(routines).map((r, i): CatalogFunction => {
    const table = r['routine_type'] === 'TABLE FUNCTION';
    return {
      schema: dataset,
      name: r['routine_name']!,
      oid: i + 1,
      volatility: 'stable',
      returnType: table ? 'TABLE' : 'SCALAR',
      returnTypeSchema: dataset,
      returnTypeKind: table ? 'composite' : 'base',
      returnsSet: table,
      returnsTable: null,
      args: args.get(r['routine_name']!) ?? [],
      description: null,
      language: 'SQL',
    };
  });
}

async function introspectDataset(conn: BigQueryConnection, dataset: string): Promise<CatalogTable[]> {
  const ds = quoteIdent(dataset);
  const [tables, columns, keys, refs] = await Promise.all([
    conn.query(
      `SELECT t.table_name, t.table_type, o.option_value AS description FROM ${ds}.INFORMATION_SCHEMA.TABLES AS t
        LEFT JOIN ${ds}.INFORMATION_SCHEMA.TABLE_OPTIONS AS o ON o.table_name = t.table_name AND o.option_name = 'description'
        ORDER BY t.table_name`,
      {},
    ),
    conn.query(
      `SELECT c.table_name, c.column_name, c.ordinal_position, c.is_nullable, c.data_type, p.description FROM ${ds}.INFORMATION_SCHEMA.COLUMNS AS c
        LEFT JOIN ${ds}.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS AS p ON p.table_name = c.table_name AND p.column_name = c.column_name AND p.field_path = c.column_name
        ORDER BY c.table_name, c.ordinal_position`,
      {},
    ),
    conn.query(
      `SELECT tc.constraint_name, tc.table_name, tc.constraint_type, k.column_name, k.ordinal_position, k.position_in_unique_constraint
         FROM ${ds}.INFORMATION_SCHEMA.TABLE_CONSTRAINTS AS tc
         JOIN ${ds}.INFORMATION_SCHEMA.KEY_COLUMN_USAGE AS k ON k.constraint_name = tc.constraint_name AND k.table_name = tc.table_name
        ORDER BY tc.table_name, tc.constraint_name, k.ordinal_position`,
      {},
    ),
    conn.query(
      `SELECT constraint_name, table_schema, table_name, column_name FROM ${ds}.INFORMATION_SCHEMA.CONSTRAINT_COLUMN_USAGE ORDER BY constraint_name, column_name`,
      {},
    ),
  ]);
  const byTable = new Map<string, CatalogTable>();
  for (const t of flatRows(tables)) {
    const name = t['table_name']!;
    const view = t['table_type'] === 'VIEW' || t['table_type'] === 'MATERIALIZED VIEW';
    byTable.set(name, {
      schema: dataset,
      name,
      kind: t['table_type'] === 'MATERIALIZED VIEW' ? 'materialized_view' : view ? 'view' : 'table',
      description: optionText(t['description'] ?? null),
      columns: [],
      primaryKey: null,
      uniqueConstraints: [],
      foreignKeys: [],
      // Read-only kind: no row is ever written through the engine.
      insertable: false,
      updatable: false,
      deletable: false,
    });
  }
  for (const c of flatRows(columns)) {
    const table = byTable.get(c['table_name']!);
    if (!table) continue;
    const type = catalogType(c['data_type'] ?? 'STRING');
    const column: CatalogColumn = {
      name: c['column_name']!,
      position: Number(c['ordinal_position']),
      type,
      typeKind: type === 'ARRAY' ? 'other' : type === 'STRUCT' ? 'composite' : 'base',
      nullable: c['is_nullable'] !== 'NO',
      hasDefault: false,
      isIdentity: false,
      isGenerated: false,
      description: c['description'] ?? null,
    };
    table.columns.push(column);
  }
  const refColumns = new Map<string, { schema: string; table: string; columns: string[] }>();
  for (const r of flatRows(refs)) {
    const k = r['constraint_name']!;
    const entry = refColumns.get(k) ?? { schema: r['table_schema'] ?? dataset, table: r['table_name']!, columns: [] };
    entry.columns.push(r['column_name']!);
    refColumns.set(k, entry);
  }
  const constraints = new Map<string, { table: string; type: string; columns: Array<{ name: string; refPosition: number | null }> }>();
  for (const k of flatRows(keys)) {
    const id = `${k['table_name']}\u0000${k['constraint_name']}`;
    const entry = constraints.get(id) ?? { table: k['table_name']!, type: k['constraint_type'] ?? '', columns: [] };
    entry.columns.push({ name: k['column_name']!, refPosition: k['position_in_unique_constraint'] === null ? null : Number(k['position_in_unique_constraint']) });
    constraints.set(id, entry);
  }
  // Primary keys first: a foreign key's columns are matched to the key it references.
  for (const [id, c] of constraints) {
    const table = byTable.get(c.table);
    if (table && c.type === 'PRIMARY KEY') table.primaryKey = { name: keyName(id.split('\u0000')[1]!, c.table), columns: c.columns.map((x) => x.name) };
  }
  for (const [id, c] of constraints) {
    const table = byTable.get(c.table);
    if (!table) continue;
    const name = id.split('\u0000')[1]!;
    if (c.type === 'FOREIGN KEY') {
      const ref = refColumns.get(name);
      if (!ref) continue;
      const refTable = ref.schema === dataset ? byTable.get(ref.table) : undefined;
      // position_in_unique_constraint points into the referenced key; without it, the views' order.
      const refPk = refTable?.primaryKey?.columns;
      const refCols = c.columns.map((col, i) => (col.refPosition !== null && refPk?.[col.refPosition - 1] !== undefined ? refPk[col.refPosition - 1]! : ref.columns[i] ?? ref.columns[0]!));
      const fk: CatalogForeignKey = { name: keyName(name, c.table), columns: c.columns.map((x) => x.name), refTable: { schema: ref.schema, name: ref.table }, refColumns: refCols };
      table.foreignKeys.push(fk);
    }
  }
  return [...byTable.values()];
}
