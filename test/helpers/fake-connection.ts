/**
 * A SourceConnection for unit tests that answers only the enum-value reads the resolver makes
 * (`readEnumValues`), from rows given per table, failing as PostgreSQL would for a missing one.
 */
import type { EnumValueRow, SourceConnection } from '../../core/db/contract.js';
import type { QualifiedTable } from '../../core/metadata/types.js';

export interface EnumRows {
  [qualifiedTable: string]: Array<{ value: string; description?: string | null }>;
}

export class FakeConnection implements SourceConnection {
  readonly kind = 'postgres';
  readonly statements: string[] = [];

  constructor(private readonly enumRows: EnumRows = {}) {}

  async readEnumValues(table: QualifiedTable, keyColumn: string, commentColumn: string | null): Promise<EnumValueRow[]> {
    const key = `${table.schema}.${table.name}`;
    this.statements.push(`enum values of ${key} (${keyColumn}, ${commentColumn ?? 'no comment'})`);
    const rows = this.enumRows[key];
    if (!rows) throw new Error(`postgres error: relation "${key}" does not exist`);
    return rows.map((r) => ({ value: r.value, description: commentColumn ? (r.description ?? null) : null }));
  }

  execute(): never {
    throw new Error('FakeConnection.execute is not used by these tests');
  }

  introspect(): never {
    throw new Error('FakeConnection.introspect is not used by these tests');
  }
  health(): never {
    throw new Error('FakeConnection.health is not used by these tests');
  }
  compileQuery(): never {
    throw new Error('FakeConnection.compileQuery is not used by these tests');
  }
  runQuery(): never {
    throw new Error('FakeConnection.runQuery is not used by these tests');
  }
  async close(): Promise<void> {}
}
