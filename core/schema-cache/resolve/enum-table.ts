/**
 * Enum tables (`is_enum`): a table whose rows become the values of a GraphQL enum. The shape rules
 * and messages follow the reference engine: a single-column primary key of the kind's enum value
 * type (PostgreSQL: `text`), optionally one more such column holding each value's description,
 * at least one row, and every value a valid GraphQL enum value name. The kind's connection reads
 * the rows (`readEnumValues`).
 */
import type { CatalogColumn, CatalogTable } from '../../db/catalog.js';
import type { SourceConnection } from '../../db/contract.js';
import type { ScalarTypes } from '../../db/scalar-types.js';
import type { QualifiedTable } from '../../metadata/types.js';
import { isGraphQLEnumValue } from './graphql-name.js';
import { quote, quoteTable } from './inconsistency.js';

export interface EnumShape {
  key: CatalogColumn;
  comment: CatalogColumn | null;
}

export type EnumValues = Array<{ value: string; description: string | null }>;

const commaSeparated = (xs: readonly string[]): string => [...xs].sort().join(', ');

const typeMismatch = (what: string, c: CatalogColumn, scalars: ScalarTypes): string =>
  `the table’s ${what} (${quote(c.name)}) must have type ${quote(scalars.enumValueType ?? 'text')}, not type ${quote(scalars.displayName(c.type))}`;

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
export function checkEnumShape(table: CatalogTable, scalars: ScalarTypes): { key: CatalogColumn | null; comment: CatalogColumn | null; problems: string[] } {
  const problems: string[] = [];
  let key: CatalogColumn | null = null;
  const pk = table.primaryKey;
  if (!pk || pk.columns.length === 0) problems.push('the table must have a primary key');
  else if (pk.columns.length > 1) problems.push(`the table’s primary key must not span multiple columns (${commaSeparated(pk.columns)})`);
  else {
    const column = table.columns.find((c) => c.name === pk.columns[0]);
    if (!column) problems.push('the table must have a primary key');
    else if (column.type !== scalars.enumValueType) problems.push(typeMismatch('primary key', column, scalars));
    else key = column;
  }
  let comment: CatalogColumn | null = null;
  const others = table.columns.filter((c) => c !== key);
  if (others.length === 1) {
    if (others[0]!.type === scalars.enumValueType) comment = others[0]!;
    else problems.push(typeMismatch('comment column', others[0]!, scalars));
  } else if (others.length > 1) {
    problems.push(
      `the table must have exactly one primary key and optionally one comment column, not ${others.length} columns (${commaSeparated(others.map((c) => c.name))})`,
    );
  }
  return { key, comment, problems };
}

/** Reads the values through the kind's connection; returns the values or the problems found in them. */
export async function loadEnumValues(
  connection: SourceConnection,
  table: QualifiedTable,
  shape: EnumShape,
): Promise<{ values: EnumValues } | { problems: string[] }> {
  if (!connection.readEnumValues) return { problems: [`the database kind ${quote(connection.kind)} has no enum tables`] };
  let rows: EnumValues;
  try {
    rows = await connection.readEnumValues(table, shape.key.name, shape.comment?.name ?? null);
  } catch (e) {
    return { problems: [(e as Error).message] };
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
