/**
 * SQL Server errors → the reference engine's codes, as the other kinds map theirs: integrity
 * violations are `constraint-violation` (the kind of violation first), conversion and overflow
 * errors `data-exception`, deadlocks, lock timeouts and snapshot conflicts `concurrent-update`,
 * a server that cannot be reached or refuses the login `connection-not-established`, a statement
 * cancelled at the request's deadline `time-limit-exceeded`. The server's message goes to
 * `internal` only, except for the violations whose message is meant for clients.
 */
import { EngineError, isEngineError, timeLimitExceeded } from '../../../core/sdk/index.js';

/** The fields of mssql's ConnectionError / RequestError (and tedious's errors under them) read here. */
interface DriverError {
  code?: string;
  number?: number | string;
  state?: number;
  class?: number;
  message?: string;
  originalError?: DriverError;
}

const INTEGRITY: Readonly<Record<number, string>> = {
  2627: 'Uniqueness violation. ',
  2601: 'Uniqueness violation. ',
  515: 'Not-NULL violation. ',
  547: 'Foreign key violation. ',
};

/**
 * Conversion, overflow, truncation and invalid-value errors (6522: a CLR routine failed, such as
 * STGeomFromText reading malformed WKT).
 */
const DATA_ERRORS = new Set([8114, 245, 8115, 220, 232, 241, 242, 517, 8152, 2628, 8134, 13609, 9413, 295, 296, 8169, 6522]);

const CONNECTION_CODES = new Set(['ELOGIN', 'ESOCKET', 'ETIMEOUT', 'EINSTLOOKUP', 'ECONNCLOSED', 'ENOTOPEN', 'ECONNREFUSED', 'ENOTFOUND']);

/** SQL Server's error number (mssql sets `number` to its own code, `ETIMEOUT`, for driver errors). */
const errorNumber = (e: DriverError): number | undefined => {
  const n = e.number ?? e.originalError?.number;
  return typeof n === 'number' ? n : undefined;
};

export function isDuplicateKey(e: unknown): boolean {
  const n = errorNumber((e ?? {}) as DriverError);
  return n === 2627 || n === 2601;
}

/**
 * The unique key named in a duplicate-key error: `Violation of UNIQUE KEY constraint 'name'.`
 * (2627) or `... with unique index 'name'.` (2601).
 */
export function duplicateKeyName(e: unknown): string | null {
  const message = ((e ?? {}) as DriverError).message ?? '';
  const m = /constraint '([^']*)'/.exec(message) ?? /unique index '([^']*)'/.exec(message);
  return m ? m[1]! : null;
}

export function mssqlEngineError(err: unknown, statement: string): EngineError {
  if (isEngineError(err)) return err;
  const e = (err ?? {}) as DriverError;
  const message = e.message ?? String(err);
  const n = errorNumber(e);
  const internal = { statement, error: { message, code: e.code ?? null, number: n ?? null, state: e.state ?? null } };
  if (e.code === 'ECANCEL') return timeLimitExceeded({ internal });
  if (n === undefined && e.code !== undefined && CONNECTION_CODES.has(e.code)) {
    return new EngineError('connection-not-established', `could not connect to the SQL Server: ${e.code}`, { status: 500, internal });
  }
  if (n === 18456 || n === 4060) return new EngineError('connection-not-established', `could not connect to the SQL Server: login failed`, { status: 500, internal });
  if (n !== undefined) {
    if (n === 547 && /CHECK constraint/.test(message)) return new EngineError('permission-error', 'Check constraint violation. ' + message, { internal });
    const prefix = INTEGRITY[n];
    if (prefix !== undefined) return new EngineError('constraint-violation', prefix + message, { internal });
    if (DATA_ERRORS.has(n)) return new EngineError('data-exception', message, { internal });
    if (n === 1205 || n === 1222 || n === 3960) return new EngineError('concurrent-update', message, { internal });
  }
  return new EngineError('unexpected', 'database query error', { status: 500, internal });
}
