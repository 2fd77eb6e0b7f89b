/**
 * Maps errors of statements the engine compiled to the reference engine's codes. Database detail
 * goes into `internal` only, which the HTTP layer shows to admins (or in dev mode).
 *
 * As the reference's DML error handler does: integrity violations are `constraint-violation`
 * with a prefix naming the kind (a check violation is `permission-error`), data exceptions are
 * `data-exception` (an invalid escape `bad-request`), an ON CONFLICT target or column the
 * database cannot use is `constraint-error`, a serialization failure `concurrent-update`; those
 * messages carry the database's own message, which is meant for clients. Anything else is
 * `unexpected` "database query error".
 */
import { EngineError, type ErrorCode, isEngineError } from '../../../core/sdk/index.js';
import { connectionEngineError, errorDetail, isConnectionError, isStatementError } from './pg-errors.js';

const INTEGRITY: Readonly<Record<string, [ErrorCode, string]>> = {
  '23001': ['constraint-violation', 'Can not delete or update due to data being referred. '],
  '23502': ['constraint-violation', 'Not-NULL violation. '],
  '23503': ['constraint-violation', 'Foreign key violation. '],
  '23505': ['constraint-violation', 'Uniqueness violation. '],
  '23514': ['permission-error', 'Check constraint violation. '],
  '23P01': ['constraint-violation', 'Exclusion violation. '],
};

/** The client-facing error of an expected database error, or undefined for unexpected ones. */
function expectedError(code: string, message: string, internal: unknown): EngineError | undefined {
  if (code.startsWith('23')) {
    const [errCode, prefix] = INTEGRITY[code] ?? ['constraint-violation', ''];
    return new EngineError(errCode, prefix + message, { internal });
  }
  if (code.startsWith('22')) return new EngineError(code === '22025' ? 'bad-request' : 'data-exception', message, { internal });
  // invalid_column_reference is what ON CONFLICT without a matching unique index raises.
  if (code === '42P10') return new EngineError('constraint-error', 'there is no unique or exclusion constraint on target column(s)', { internal });
  if (code === '42704') return new EngineError('constraint-error', message, { internal });
  if (code === '40001') return new EngineError('concurrent-update', 'serialization failure due to concurrent update', { internal });
  if (code.startsWith('40')) return new EngineError('concurrent-update', message, { internal });
  // PostgreSQL's statement_timeout (--pg-statement-timeout) cancelled it; other cancels stay unexpected.
  if (code === '57014' && message.includes('statement timeout')) {
    return new EngineError('statement-timeout', `database statement timeout: ${message} (--pg-statement-timeout)`, { internal });
  }
  return undefined;
}

export function queryEngineError(err: unknown, statement: string, secrets: readonly string[]): EngineError {
  if (isEngineError(err)) return err;
  if (isConnectionError(err)) return connectionEngineError(err, secrets);
  if (isStatementError(err)) {
    const code = err.code ?? '';
    const internal = {
      statement,
      prepared: true,
      error: { exec_status: 'FatalError', message: err.message, status_code: code, description: err.detail ?? null, hint: err.hint ?? null },
    };
    const expected = expectedError(code, err.message, internal);
    if (expected) return expected;
    return new EngineError('unexpected', 'database query error', { status: 500, internal });
  }
  return new EngineError('unexpected', 'database query error', { status: 500, internal: { ...errorDetail(err), message: String(err) } });
}
