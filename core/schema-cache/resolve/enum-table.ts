/**
 * Enum tables (`is_enum`): a table whose rows become the values of a GraphQL enum. The shape rules
 * and messages follow the reference engine: a single-column `text` primary key, optionally one
 * more `text` column holding each value's description, at least one row, and every value a valid
 * GraphQL enum value name.
 */
import type { CatalogColumn, CatalogTable } from '../../db/catalog.js';
import type { SourceConnection } from '../../db/contract.js';
import type { QualifiedTable } from '../../metadata/types.js';
import { isGraphQLEnumValue } from './graphql-name.js';
import { quote, quoteTable } from './inconsistency.js';

export interface EnumShape {
  key: CatalogColumn;
  comment: CatalogColumn | null;
}

export type EnumValues = Array<{ value: string; description: string | null }>;

/** The reference prints PostgreSQL's own type names (`integer`, not `int4`). */
const PG_TYPE_NAMES: Record<string, string> = {
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  bool: 'boolean',
  float4: 'real',
};

const typeName = (c: CatalogColumn): string => PG_TYPE_NAMES[c.type] ?? c.type;

const commaSeparated = (xs: readonly string[]): string => [...xs].sort().join(', ');

const typeMismatch = (what: string, c: CatalogColumn): string =>
  `the table’s ${what} (${quote(c.name)}) must have type "text", not type ${quote(typeName(c))}`;

/** "because X" for one problem, a bulleted list for several, as the reference words it. */
function reasonMessage(problems: readonly string[]): string {
  if (problems.length === 1) return `because ${problems[0]}`;
  return `for the following reasons:\n${problems.map((p) => `  • ${p}\n`).join('')}`;
}

export const enumTableError = (table: QualifiedTable, problems: readonly string[]): string =>
  `the table ${quoteTable(table)} cannot be used as an enum ${reasonMessage(problems)}`;

/**
 * Checks the columns of a would-be enum table. Like the reference, every problem is collected; when
 * the key is unusable all columns count as "other" columns, and the values are only read if the
 * key is usable.
 */
export function checkEnumShape(table: CatalogTable): { key: CatalogColumn | null; comment: CatalogColumn | null; problems: string[] } {
  const problems: string[] = [];
  let key: CatalogColumn | null = null;
  const pk = table.primaryKey;
  if (!pk || pk.columns.length === 0) problems.push('the table must have a primary key');
  else if (pk.columns.length > 1) problems.push(`the table’s primary key must not span multiple columns (${commaSeparated(pk.columns)})`);
  else {
    const column = table.columns.find((c) => c.name === pk.columns[0]);
    if (!column) problems.push('the table must have a primary key');
    else if (column.type !== 'text') problems.push(typeMismatch('primary key', column));
    else key = column;
  }
  let comment: CatalogColumn | null = null;
  const others = table.columns.filter((c) => c !== key);
  if (others.length === 1) {
    if (others[0]!.type === 'text') comment = others[0]!;
    else problems.push(typeMismatch('comment column', others[0]!));
  } else if (others.length > 1) {
    problems.push(
      `the table must have exactly one primary key and optionally one comment column, not ${others.length} columns (${commaSeparated(others.map((c) => c.name))})`,
    );
  }
  return { key, comment, problems };
}

const ident = (s: string): string => `"${s.replaceAll('"', '""')}"`;

/** Reads the values with one statement; returns the values or the problems found in them. */
export async function loadEnumValues(
  connection: SourceConnection,
  table: QualifiedTable,
  shape: EnumShape,
): Promise<{ values: EnumValues } | { problems: string[] }> {
  const comment = shape.comment ? `${ident(shape.comment.name)}::text` : 'NULL::text';
  const sql = `SELECT ${ident(shape.key.name)}::text AS value, ${comment} AS description FROM ${ident(table.schema)}.${ident(table.name)}`;
  let rows: Record<string, unknown>[];
  try {
    rows = (await connection.execute(sql)).rows;
  } catch (e) {
    return { problems: [`postgres error: ${(e as Error).message}`] };
  }
  if (rows.length === 0) return { problems: ['the table must have at least one row'] };
  const values = rows.map((r) => ({ value: String(r.value), description: r.description == null ? null : String(r.description) }));
  const bad = values.map((v) => v.value).filter((v) => !isGraphQLEnumValue(v));
  if (bad.length) return { problems: [invalidValuesMessage(bad)] };
  return { values };
}

function invalidValuesMessage(bad: readonly string[]): string {
  const sorted = [...bad].sort();
  const plural = ' are not valid GraphQL enum value names';
  if (sorted.length === 1) return `the value ${quote(sorted[0]!)} is not a valid GraphQL enum value name`;
  if (sorted.length === 2) return `the values ${quote(sorted[0]!)} and ${quote(sorted[1]!)}${plural}`;
  const last = sorted[sorted.length - 1]!;
  return `the values ${sorted.slice(0, -1).join(', ')}, and ${quote(last)}${plural}`;
}
