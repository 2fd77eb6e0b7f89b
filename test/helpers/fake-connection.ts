/**
 * A SourceConnection for unit tests that answers only the enum-value reads the resolver makes:
 * rows are looked up by the table named in the statement's FROM clause.
 */
import type { SourceConnection } from '../../core/db/contract.js';

export interface EnumRows {
  [qualifiedTable: string]: Array<{ value: string; description?: string | null }>;
}

export class FakeConnection implements SourceConnection {
  readonly kind = 'postgres';
  readonly statements: string[] = [];

  constructor(private readonly enumRows: EnumRows = {}) {}

  async execute(sql: string): Promise<{ rows: Record<string, unknown>[] }> {
    this.statements.push(sql);
    const m = /FROM "((?:[^"]|"")+)"\."((?:[^"]|"")+)"/.exec(sql);
    const key = m ? `${m[1]!.replaceAll('""', '"')}.${m[2]!.replaceAll('""', '"')}` : '';
    const rows = this.enumRows[key];
    if (!rows) throw new Error(`relation "${key}" does not exist`);
    return { rows: rows.map((r) => ({ value: r.value, description: r.description ?? null })) };
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
