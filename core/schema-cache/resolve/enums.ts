/**
 * Enum tables of a source: validates each `is_enum` table, loads its values, and marks the
 * columns of other tables whose single-column foreign key references an enum table's key.
 */
import type { SourceConnection } from '../../db/contract.js';
import type { ScalarTypes } from '../../db/scalar-types.js';
import type { ResolvedTable } from '../model.js';
import { tableKey, tableOfKey } from '../../db/catalog.js';
import { qualifiedTableName } from '../../metadata/types.js';
import { quote, quoteTable, ResolveError } from './inconsistency.js';
import { checkEnumShape, enumTableError, loadEnumValues } from './enum-table.js';

/** Loads the values of every enum table; returns an error message per table that failed. */
export async function resolveEnumTables(tables: readonly ResolvedTable[], connection: SourceConnection, scalars: ScalarTypes): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  await Promise.all(
    tables
      .filter((t) => t.isEnum)
      .map(async (t) => {
        const shape = checkEnumShape(t.catalog, scalars);
        const problems = [...shape.problems];
        if (shape.key) {
          const loaded = await loadEnumValues(connection, t.table, { key: shape.key, comment: shape.comment });
          if ('values' in loaded) t.enumValues = loaded.values;
          else problems.push(...loaded.problems);
        }
        if (problems.length) failures.set(t.key, enumTableError(t.table, problems));
      }),
  );
  return failures;
}

/**
 * Sets `enumTable` on columns referencing an enum table's key. A column referencing two enum
 * tables makes its table unusable, as in the reference.
 */
export function applyEnumReferences(table: ResolvedTable, enumTables: ReadonlyMap<string, ResolvedTable>): void {
  const refs = new Map<string, string[]>();
  for (const fk of table.catalog.foreignKeys) {
    if (fk.columns.length !== 1) continue;
    const target = enumTables.get(tableKey(fk.refTable));
    if (!target || target.primaryKey?.[0] !== fk.refColumns[0]) continue;
    refs.set(fk.columns[0]!, [...(refs.get(fk.columns[0]!) ?? []), target.key]);
  }
  for (const [column, targets] of refs) {
    if (targets.length > 1) {
      const names = targets.map((k) => quote(qualifiedKey(k)));
      throw new ResolveError(
        `column ${quote(column)} in table ${quoteTable(table.table)} references multiple enum tables (${names.join(', ')})`,
        'constraint-violation',
      );
    }
  }
  for (const [column, targets] of refs) {
    const c = table.columnsByName.get(column);
    if (c) c.enumTable = targets[0]!;
  }
}

/** `public.color` → `color`, as the reference prints table names. */
function qualifiedKey(key: string): string {
  return qualifiedTableName(tableOfKey(key));
}
