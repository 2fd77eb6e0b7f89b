/**
 * Raw SQL as an admin runs it (`run_sql`): the shapes a database-kind plugin exchanges with the
 * core. The plugin owns the transaction; the core judges the schema change while it is still open,
 * so a change that would break metadata is rolled back rather than undone afterwards.
 */
import type { DatabaseCatalog } from './catalog.js';

export interface RawSqlOptions {
  /** A read-only transaction: writes fail with the database's own error. */
  readOnly: boolean;
  /** Session variables as JSON, visible to the SQL and its triggers as the `svc.user` setting. */
  sessionJson: string;
  /**
   * When given, the source is introspected before and after the SQL on the transaction's own
   * connection and this is called with both catalogs before COMMIT; throwing rolls the
   * transaction back and the error reaches the caller. It must not touch the database through any
   * other connection: the embedded database has a single session, so that would wait forever.
   */
  beforeCommit?(before: DatabaseCatalog, after: DatabaseCatalog): void | Promise<void>;
}

/** The result of the last statement, in the reference engine's `run_sql` shape. */
export interface RawSqlResult {
  resultType: 'CommandOk' | 'TuplesOk';
  /**
   * TuplesOk: the column names, then one row per tuple with every value as the database's text
   * form (`NULL` for SQL NULL, as the reference engine answers). CommandOk: null.
   */
  result: string[][] | null;
}
