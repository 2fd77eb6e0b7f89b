/** GraphQL requests of the data pages, built from a table's names (api/naming.ts) and literals. */
import type { DbColumn, DbTable } from '../../api/catalog';
import { graphqlData, type ConsoleClient } from '../../api/client';
import { columnValue, fieldName, toLiteral } from '../../api/literal';
import type { TableFields } from '../../api/naming';
import { LIST_OPS } from '../../api/operators';

export type Row = Record<string, unknown>;

export interface Filter {
  column: string;
  op: string;
  value: string;
}


const wrap = (fields: TableFields, selection: string): string => (fields.namespace ? `${fieldName(fields.namespace)} { ${selection} }` : selection);
const unwrap = (fields: TableFields, data: Record<string, unknown>): Record<string, unknown> =>
  fields.namespace ? ((data[fields.namespace] as Record<string, unknown>) ?? {}) : data;

const columnOf = (table: DbTable, name: string): DbColumn | undefined => table.columns.find((c) => c.name === name);

function whereOf(table: DbTable, fields: TableFields, filters: Filter[]): Record<string, unknown> {
  const clauses = filters
    .filter((f) => f.column)
    .map((f) => {
      const col = columnOf(table, f.column);
      let value: unknown;
      if (f.op === '_is_null') value = f.value.trim() !== 'false';
      else if (LIST_OPS.has(f.op)) value = f.value.split(',').map((v) => columnValue(col, v.trim()));
      else value = columnValue(col, f.value);
      return { [fields.column(f.column)]: { [f.op]: value } };
    });
  return clauses.length === 1 ? clauses[0]! : { _and: clauses };
}

export interface BrowseRequest {
  filters: Filter[];
  sort: { column: string; direction: 'asc' | 'desc' } | null;
  limit: number;
  offset: number;
}

export async function fetchRows(client: ConsoleClient, table: DbTable, fields: TableFields, req: BrowseRequest): Promise<{ rows: Row[]; count: number | null }> {
  const where = toLiteral(whereOf(table, fields, req.filters));
  const args = [`where: ${where}`, `limit: ${req.limit}`, `offset: ${req.offset}`];
  if (req.sort) args.push(`order_by: ${toLiteral({ [fields.column(req.sort.column)]: { __enum: req.sort.direction } })}`);
  const selection = table.columns.map((c) => fieldName(fields.column(c.name))).join(' ');
  const query = `query BrowseRows { ${wrap(
    fields,
    `rows: ${fieldName(fields.select)}(${args.join(', ')}) { ${selection} } total: ${fieldName(fields.selectAggregate)}(where: ${where}) { aggregate { count } }`,
  )} }`;
  const data = unwrap(fields, graphqlData(await client.graphql(query)));
  const rows = (data['rows'] as Row[]) ?? [];
  const total = data['total'] as { aggregate?: { count?: number } } | undefined;
  // Rows come back under GraphQL field names; the page works with column names.
  const byColumn = rows.map((r) => Object.fromEntries(table.columns.map((c) => [c.name, r[fields.column(c.name)]])));
  return { rows: byColumn, count: total?.aggregate?.count ?? null };
}

/** Column values typed by the user, as a GraphQL object literal keyed by field names. */
function objectLiteral(table: DbTable, fields: TableFields, values: Record<string, string | null>): string {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(values)) {
    out[fields.column(name)] = text === null ? null : columnValue(columnOf(table, name), text);
  }
  return toLiteral(out);
}

function pkLiteral(table: DbTable, fields: TableFields, row: Row): string {
  const pk: Record<string, unknown> = {};
  for (const name of table.primaryKey) pk[fields.column(name)] = row[name];
  return toLiteral(pk);
}

const pkSelection = (table: DbTable, fields: TableFields): string => table.primaryKey.map((c) => fieldName(fields.column(c))).join(' ') || '__typename';

export async function insertRow(client: ConsoleClient, table: DbTable, fields: TableFields, values: Record<string, string | null>): Promise<Row> {
  const query = `mutation InsertRow { ${wrap(fields, `row: ${fieldName(fields.insertOne)}(object: ${objectLiteral(table, fields, values)}) { ${pkSelection(table, fields)} }`)} }`;
  return unwrap(fields, graphqlData(await client.graphql(query)))['row'] as Row;
}

export async function updateRow(client: ConsoleClient, table: DbTable, fields: TableFields, row: Row, values: Record<string, string | null>): Promise<void> {
  const query = `mutation UpdateRow { ${wrap(
    fields,
    `row: ${fieldName(fields.updateByPk)}(pk_columns: ${pkLiteral(table, fields, row)}, _set: ${objectLiteral(table, fields, values)}) { ${pkSelection(table, fields)} }`,
  )} }`;
  const data = unwrap(fields, graphqlData(await client.graphql(query)));
  if (!data['row']) throw new Error('No row was updated: it may have been changed or deleted meanwhile.');
}

export async function deleteRow(client: ConsoleClient, table: DbTable, fields: TableFields, row: Row): Promise<void> {
  const query = `mutation DeleteRow { ${wrap(fields, `row: ${fieldName(fields.deleteByPk)}(${pkArgs(table, fields, row)}) { ${pkSelection(table, fields)} }`)} }`;
  const data = unwrap(fields, graphqlData(await client.graphql(query)));
  if (!data['row']) throw new Error('No row was deleted: it may have been deleted meanwhile.');
}

/** `delete_by_pk` takes the key columns as arguments, not as an object. */
function pkArgs(table: DbTable, fields: TableFields, row: Row): string {
  return table.primaryKey.map((c) => `${fieldName(fields.column(c))}: ${toLiteral(row[c])}`).join(', ');
}

/** How a cell shows: JSON values as JSON text, null marked. */
export const cellText = (v: unknown): string => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));
/** The text an edit field starts with. */
export const editText = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v));
