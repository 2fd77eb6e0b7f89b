/**
 * A stand-in for SQL Server at the driver boundary (plugins/db/mssql/pool.ts's MssqlDriver),
 * since no SQL Server runs on this machine: it answers the introspection batch with the rows SQL
 * Server's catalog views give for the conformance fixture (test/conformance/fixture.ts), keeps
 * every statement and its parameters, and answers the statements of a mutation program as a
 * server would shape them (a locked key row, an OUTPUT row, an empty check, an empty answer). It
 * does not evaluate T-SQL: tests assert the statements, never the data.
 */
import type { MssqlDriver, Queryable, Row } from '../../../../plugins/db/mssql/pool.js';
import { INTROSPECTION_BATCH } from '../../../../plugins/db/mssql/introspect.js';

export interface Recorded {
  sql: string;
  params: unknown[];
}

const column = (tbl: string, name: string, pos: number, type: string, nullable: boolean, extra: Partial<Row> = {}): Row => ({
  schema: 'dbo',
  tbl,
  name,
  pos,
  type,
  nullable,
  max_length: type === 'nvarchar' ? 200 : type === 'bit' ? 1 : 4,
  precision: type === 'int' ? 10 : type === 'bit' ? 1 : 0,
  scale: 0,
  has_default: false,
  is_identity: false,
  is_computed: false,
  comment: null,
  ...extra,
});

/** sys.* rows for the conformance fixture in schema dbo, in INTROSPECTION_BATCH's order. */
export const FIXTURE_RESULT_SETS: Row[][] = [
  [{ version: '16.0.4135.4', banner: 'Microsoft SQL Server 2022 (RTM-CU15) - 16.0.4135.4 (X64)' }],
  [
    { schema: 'dbo', name: 'article', type: 'U ', comment: null },
    { schema: 'dbo', name: 'author', type: 'U ', comment: 'People who write' },
    { schema: 'dbo', name: 'place', type: 'U ', comment: null },
  ],
  [
    column('article', 'id', 1, 'int', false, { is_identity: true }),
    column('article', 'title', 2, 'nvarchar', false),
    column('article', 'author_id', 3, 'int', true),
    column('article', 'published', 4, 'bit', false),
    column('article', 'views', 5, 'int', true),
    column('author', 'id', 1, 'int', false),
    column('author', 'name', 2, 'nvarchar', false, { comment: 'Shown on articles' }),
    column('author', 'rating', 3, 'int', true),
    column('place', 'id', 1, 'int', false),
    column('place', 'geo', 2, 'geography', true),
    column('place', 'shape', 3, 'geometry', true),
  ],
  [
    { schema: 'dbo', tbl: 'article', name: 'PK__article__3213E83F1A2B3C4D', is_primary: true, col: 'id' },
    { schema: 'dbo', tbl: 'article', name: 'article_title_key', is_primary: false, col: 'title' },
    { schema: 'dbo', tbl: 'author', name: 'PK__author__3213E83F5E6F7A8B', is_primary: true, col: 'id' },
    { schema: 'dbo', tbl: 'place', name: 'PK__place__3213E83F9C8D7E6F', is_primary: true, col: 'id' },
  ],
  [{ schema: 'dbo', tbl: 'article', name: 'FK__article__author___2C3393D0', col: 'author_id', ref_schema: 'dbo', ref_table: 'author', ref_col: 'id' }],
];

export class RecordingDriver implements MssqlDriver {
  readonly statements: Recorded[] = [];
  transactions = 0;
  closed = false;
  /** The next OUTPUT INSERTED identity value. */
  private nextId = 100;
  /** Answers for the next read statements (their `root`), taken in order before the default. */
  readonly roots: string[] = [];

  async batch(sql: string): Promise<Row[][]> {
    if (sql !== INTROSPECTION_BATCH) throw new Error('the recording driver answers only the introspection batch');
    return structuredClone(FIXTURE_RESULT_SETS);
  }

  async rows(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    this.statements.push({ sql, params: [...values] });
    return this.answer(sql, values);
  }

  async plan(sql: string, values: readonly unknown[]): Promise<string[]> {
    this.statements.push({ sql, params: [...values] });
    return ['  |--Compute Scalar(DEFINE:([Expr1002]=...))'];
  }

  async transaction<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    this.transactions++;
    return fn({ rows: (sql, values) => this.rows(sql, values) });
  }

  stats(): null {
    return null;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** What a server would send back, shaped only (the data is made up). */
  private answer(sql: string, values: readonly unknown[]): Row[] {
    if (sql.endsWith('AS [root]') && !sql.includes('OPENJSON(@p0) WITH ([k0]') && this.roots.length > 0) return [{ root: this.roots.shift() }];
    if (sql.endsWith('AS [root]')) return [{ root: sql.includes('WITHOUT_ARRAY_WRAPPER) AS [root]') ? null : '[]' }];
    if (sql.startsWith('SELECT TOP 1 1 AS [failed]')) return [];
    if (sql.startsWith('DECLARE @svc_out') && sql.includes('; UPDATE ')) {
      const cols = [...(/ OUTPUT (.*?) INTO @svc_out/.exec(sql)?.[1] ?? '').matchAll(/INSERTED\.\[([^\]]+)\]/g)].map((m) => m[1]!);
      return [Object.fromEntries(cols.map((c) => [c, 1]))];
    }
    if (sql.includes('WITH (UPDLOCK, ROWLOCK)')) {
      const cols = [...sql.slice(7, sql.indexOf(' FROM ')).matchAll(/\.\[([^\]]+)\]/g)].map((m) => m[1]!);
      return [Object.fromEntries(cols.map((c) => [c, c === 'title' ? 'Alpha' : 1]))];
    }
    const insert = /INSERT INTO (\S+)(?: \(([^)]*)\))?/.exec(sql);
    if (insert) {
      const cols = [...(insert[2] ?? '').matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!);
      const given = new Map(cols.map((c, i) => [c, values[i]]));
      // The fixture's article 'Alpha' exists: SQL Server's answer to a second one.
      if (insert[1] === '[dbo].[article]' && given.get('title') === 'Alpha') {
        throw Object.assign(new Error("Violation of UNIQUE KEY constraint 'article_title_key'. Cannot insert duplicate key in object 'dbo.article'. The duplicate key value is (Alpha)."), {
          code: 'EREQUEST',
          number: 2627,
        });
      }
      const out = [...(/ OUTPUT (.*?) INTO @svc_out/.exec(sql)?.[1] ?? '').matchAll(/INSERTED\.\[([^\]]+)\]/g)].map((m) => m[1]!);
      return out.length === 0 ? [] : [Object.fromEntries(out.map((c) => [c, given.has(c) ? given.get(c) : this.nextId++]))];
    }
    return [];
  }
}
