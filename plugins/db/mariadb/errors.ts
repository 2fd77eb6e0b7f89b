/**
 * MariaDB errors → the reference engine's codes, as the postgres kind maps SQLSTATE classes:
 * integrity violations are `constraint-violation` with the kind of violation first, data errors
 * `data-exception`, deadlocks and lock timeouts `concurrent-update`, a lost server
 * `connection-not-established`. The server's message goes to `internal` only, except for the
 * violations whose message is meant for clients.
 */
import { EngineError, isEngineError, timeLimitExceeded } from '../../../core/sdk/index.js';

interface MysqlError {
  code?: string;
  errno?: number;
  sqlState?: string;
  sqlMessage?: string;
  message?: string;
}

const INTEGRITY: Readonly<Record<number, string>> = {
  1062: 'Uniqueness violation. ',
  1586: 'Uniqueness violation. ',
  1048: 'Not-NULL violation. ',
  1364: 'Not-NULL violation. ',
  1451: 'Foreign key violation. ',
  1452: 'Foreign key violation. ',
};

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_ACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR']);

export function isDuplicateKey(e: unknown): boolean {
  return (e as MysqlError | null)?.errno === 1062;
}

/** The unique key named in a duplicate-key error (`... for key 'name'`). */
export function duplicateKeyName(e: unknown): string | null {
  const m = /for key '(?:[^'.]*\.)?([^']*)'$/.exec((e as MysqlError).sqlMessage ?? '');
  return m ? m[1]! : null;
}

export function mariaEngineError(err: unknown, statement: string): EngineError {
  if (isEngineError(err)) return err;
  const e = (err ?? {}) as MysqlError;
  const message = e.sqlMessage ?? e.message ?? String(err);
  const internal = { statement, error: { message, code: e.code ?? null, errno: e.errno ?? null, sql_state: e.sqlState ?? null } };
  if (e.code !== undefined && CONNECTION_CODES.has(e.code)) {
    return new EngineError('connection-not-established', `could not connect to the MariaDB server: ${e.code}`, { status: 500, internal });
  }
  const errno = e.errno ?? 0;
  const prefix = INTEGRITY[errno];
  if (prefix !== undefined) return new EngineError('constraint-violation', prefix + message, { internal });
  if (errno === 4025) return new EngineError('permission-error', 'Check constraint violation. ' + message, { internal });
  if (e.sqlState?.startsWith('22') || [1264, 1265, 1292, 1366, 1406, 1367, 1411, 3140, 1690].includes(errno)) {
    return new EngineError('data-exception', message, { internal });
  }
  if (errno === 1969) return timeLimitExceeded({ internal });
  if (errno === 1213 || errno === 1205) return new EngineError('concurrent-update', message, { internal });
  return new EngineError('unexpected', 'database query error', { status: 500, internal });
}
