/**
 * Telling connection failures apart from statement failures. Only the former are retried and
 * turned into `connection-not-established`; statement errors (DatabaseError with a SQLSTATE) go
 * back to the caller untouched, because the executor maps constraint violations etc. itself.
 */
import pg from 'pg';
import { EngineError } from '../../../core/sdk/index.js';
import { StatementStalledError, codedStall } from './stall-guard.js';

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);

/**
 * Messages pg and pg-pool raise without an errno. Matched by prefix because they are the only
 * signal those errors carry.
 */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'The server does not support SSL connections',
  // pg's own connect deadline (connectionTimeoutMillis, set by --pg-statement-timeout).
  'timeout expired',
];

/** SQLSTATEs that mean "could not get a usable session" rather than "this statement failed". */
function isConnectionSqlState(code: string): boolean {
  return (
    code.startsWith('08') || // connection exception
    code.startsWith('28') || // invalid authorization
    code === '3D000' || // database does not exist
    code === '53300' || // too many connections
    code === '57P01' || // admin shutdown
    code === '57P02' || // crash shutdown
    code === '57P03' // cannot connect now
  );
}

export function isStatementError(err: unknown): err is pg.DatabaseError {
  return err instanceof pg.DatabaseError && !isConnectionSqlState(err.code ?? '');
}

export function isConnectionError(err: unknown): boolean {
  // The stall guard destroyed the connection: the client must be dropped like a broken one.
  if (err instanceof StatementStalledError) return true;
  if (err instanceof pg.DatabaseError) return isConnectionSqlState(err.code ?? '');
  if (!(err instanceof Error)) return false;
  const errno = (err as NodeJS.ErrnoException).code;
  if (typeof errno === 'string' && CONNECTION_ERRNOS.has(errno)) return true;
  return CONNECTION_MESSAGES.some((m) => err.message.startsWith(m));
}

/** Errors that will not go away by trying again with the same configuration. */
export function isPermanentConnectionError(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) {
    const c = err.code ?? '';
    return c.startsWith('28') || c === '3D000';
  }
  return err instanceof Error && err.message.startsWith('timeout exceeded when trying to connect');
}

/** The driver's message, with every known secret masked. */
export function scrubbedMessage(err: unknown, secrets: readonly string[]): string {
  let msg: string;
  if (err instanceof AggregateError && err.message === '' && err.errors.length > 0) {
    // Node's happy-eyeballs connect reports one error per address and leaves its own message empty.
    msg = err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ');
  } else if (err instanceof Error) {
    msg = err.message || ((err as NodeJS.ErrnoException).code ?? err.name);
  } else {
    msg = String(err);
  }
  for (const s of secrets) {
    if (s !== '') msg = msg.split(s).join('***');
  }
  return msg;
}

/** What an error says about itself, for `internal` and health-check `extra`, without secrets. */
export function errorDetail(err: unknown): { code?: string; severity?: string } {
  if (err instanceof pg.DatabaseError) {
    const out: { code?: string; severity?: string } = {};
    if (err.code !== undefined) out.code = err.code;
    if (err.severity !== undefined) out.severity = err.severity;
    return out;
  }
  const errno = err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
  return typeof errno === 'string' ? { code: errno } : {};
}

export function connectionEngineError(err: unknown, secrets: readonly string[]): EngineError {
  if (err instanceof StatementStalledError) return codedStall(err, 'the database') as EngineError;
  const detail = errorDetail(err);
  if (detail.code === '53300') {
    return new EngineError('postgres-max-connections-error', `connection error: ${scrubbedMessage(err, secrets)}`, {
      internal: detail,
    });
  }
  // pg-pool's words for a wait in its queue that passed pool_timeout: say which setting it was.
  const hint = err instanceof Error && err.message.startsWith('timeout exceeded when trying to connect')
    ? ' (no pooled connection became free within pool_settings.pool_timeout)'
    : '';
  return new EngineError('connection-not-established', `connection error: ${scrubbedMessage(err, secrets)}${hint}`, {
    status: 400,
    internal: detail,
  });
}
