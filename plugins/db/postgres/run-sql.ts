/**
 * `run_sql` on a PostgreSQL source: the admin's statements in one transaction of the source's
 * isolation level, with the session visible as `svc.user` (as mutations set it, so triggers see
 * who acted). When the core wants to judge the schema change, the source is introspected on the
 * same connection before and after, and the core's verdict is taken while the transaction is
 * still open, so a refused change leaves nothing behind.
 */
import type pg from 'pg';
import { EngineError, type RawSqlOptions, type RawSqlResult } from '../../../core/sdk/index.js';
import type { PgSourcePool, TextResult } from './pool.js';
import { introspectPostgres } from './introspect.js';
import { isStatementError } from './pg-errors.js';

/** The reference engine renders SQL NULL as this text in run_sql results. */
const NULL_TEXT = 'NULL';

export async function runPgSql(pool: PgSourcePool, sql: string, options: RawSqlOptions): Promise<RawSqlResult> {
  return pool.withTransaction(pool.isolationLevel, options.readOnly, async (tx) => {
    // A parameter, not SET LOCAL with the JSON spliced in: session values are client-controlled.
    await tx.query(`SELECT set_config('svc.user', $1, true)`, [options.sessionJson]);
    const check = options.beforeCommit;
    const before = check ? await introspectPostgres(tx, { withOids: true }) : null;
    let results: TextResult[];
    try {
      results = await tx.queryTextResults(sql);
    } catch (err) {
      throw isStatementError(err) ? executionFailed(err, sql) : err;
    }
    if (check && before) await check(before, await introspectPostgres(tx, { withOids: true }));
    return lastResult(results);
  });
}

function lastResult(results: readonly TextResult[]): RawSqlResult {
  const last = results[results.length - 1];
  if (!last || last.columns === null) return { resultType: 'CommandOk', result: null };
  return {
    resultType: 'TuplesOk',
    result: [last.columns, ...last.rows.map((row) => row.map((v) => v ?? NULL_TEXT))],
  };
}

/** The reference's error for a failing statement: the database's report only in `internal`. */
function executionFailed(err: pg.DatabaseError, sql: string): EngineError {
  return new EngineError('postgres-error', 'query execution failed', {
    status: 400,
    internal: {
      statement: sql,
      prepared: false,
      error: {
        exec_status: 'FatalError',
        hint: err.hint ?? null,
        message: err.message,
        status_code: err.code ?? '',
        description: err.detail ?? null,
      },
      arguments: [],
    },
  });
}
