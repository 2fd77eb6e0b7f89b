/**
 * Maps errors of statements the engine compiled to the reference engine's codes. Database detail
 * goes into `internal` only, which the HTTP layer shows to admins (or in dev mode).
 */
import { EngineError, isEngineError } from '../../../core/errors.js';
import { connectionEngineError, errorDetail, isConnectionError, isStatementError } from './pg-errors.js';

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
    if (code.startsWith('22')) {
      return new EngineError(code === '22025' ? 'bad-request' : 'data-exception', err.message, { internal });
    }
    return new EngineError('unexpected', 'database query error', { status: 500, internal });
  }
  return new EngineError('unexpected', 'database query error', { status: 500, internal: { ...errorDetail(err), message: String(err) } });
}
