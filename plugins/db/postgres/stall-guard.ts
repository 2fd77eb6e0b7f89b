/**
 * Client-side deadlines for `--pg-statement-timeout`. PostgreSQL's own `statement_timeout` (sent
 * at connection start-up) stops a slow statement, but only while the path to the server works:
 * behind a proxy or a network path that stalls (TCP stays open, nothing flows), neither the
 * server's answer nor a cancel request gets through, and TCP keep-alives are answered by the
 * proxy. So the client keeps its own deadline: a statement still unanswered STALL_GRACE_MS after
 * the server should have cancelled it is failed with `statement-timeout`, and its connection is
 * destroyed (never reused: what it would read next is unknown). Opening a connection has the same
 * bound, through pg's own `connectionTimeoutMillis`.
 */
import pg from 'pg';
import { EngineError } from '../../../core/sdk/index.js';

/** How long past the server-side timeout the client waits before it declares the path stalled. */
export const STALL_GRACE_MS = 1000;

/** What pg keeps on a client about its socket (not in pg's published types). */
interface ClientInternals {
  connection?: { stream?: { destroy(err?: Error): void } };
}

/** A statement the database did not answer in time; the connection it ran on is gone. */
export class StatementStalledError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer from the database within ${timeoutMs + STALL_GRACE_MS} ms`);
    this.name = 'StatementStalledError';
  }
}

export function statementTimeoutError(detail: string, timeoutMs: number): EngineError {
  return new EngineError(
    'statement-timeout',
    `database statement timeout: no result within the statement timeout (${timeoutMs / 1000} s, --pg-statement-timeout); ${detail}`,
    { internal: { statement_timeout_ms: timeoutMs } },
  );
}

/** `err`, or for a stalled statement the coded `statement-timeout` error naming `where` it stalled. */
export function codedStall(err: unknown, where: string): unknown {
  if (!(err instanceof StatementStalledError)) return err;
  return statementTimeoutError(`the connection was closed (${where}, or the network path to it, stalled)`, err.timeoutMs);
}

/** Destroys the client's socket: pending statements fail, the pool drops the client. */
export function destroyConnection(client: unknown, err?: Error): void {
  (client as ClientInternals).connection?.stream?.destroy(err);
}

/**
 * A pg Client class whose promise-returning `query` calls fail with StatementStalledError at
 * `timeoutMs + STALL_GRACE_MS`, and whose connect gives up at `timeoutMs`. pg-pool builds its
 * clients from `PoolConfig.Client`.
 */
export function guardedClientClass(timeoutMs: number): typeof pg.Client {
  class GuardedClient extends pg.Client {
    /** Read by code that sends submittables (the one-trip pipeline), which `query` cannot wrap. */
    readonly stallTimeoutMs = timeoutMs;
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: config?.connectionTimeoutMillis || timeoutMs });
    }
  }
  (GuardedClient.prototype as unknown as { query: unknown }).query = function guardedQuery(this: pg.Client, ...args: unknown[]): unknown {
    // pg-pool's own `Pool#query` calls `client.query(text, values, callback)`: that form gets
    // the same deadline, through its callback.
    const last = args.length - 1;
    if (last > 0 && typeof args[last] === 'function' && !isSubmittable(args[0])) {
      args[last] = callbackWithStallDeadline(this, args[last] as QueryCallback, timeoutMs);
    }
    // Looked up per call, as `super.query` would be: whatever pg.Client's query is now.
    const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    // Submittables (cursors) manage their own lifetime.
    if (!(result instanceof Promise)) return result;
    return withStallDeadline(this, result, timeoutMs);
  };
  return GuardedClient;
}

function isSubmittable(query: unknown): boolean {
  return typeof (query as { submit?: unknown } | null)?.submit === 'function';
}

type QueryCallback = (err: Error | null | undefined, result?: unknown) => void;

/** `callback`, called once: with the statement's outcome, or with StatementStalledError at the deadline. */
function callbackWithStallDeadline(client: pg.Client, callback: QueryCallback, timeoutMs: number): QueryCallback {
  let called = false;
  const timer = setTimeout(() => {
    called = true;
    callback(new StatementStalledError(timeoutMs));
    // The statement's own error (connection terminated) then reaches the wrapper below, ignored.
    destroyConnection(client);
  }, timeoutMs + STALL_GRACE_MS);
  return (err, result) => {
    clearTimeout(timer);
    if (called) return;
    called = true;
    callback(err, result);
  };
}

/**
 * The pool settings of `--pg-statement-timeout` (seconds; null, undefined or 0: none): PostgreSQL's
 * own statement_timeout, and guarded clients for a path that stalls.
 */
export function stallGuardPoolConfig(seconds: number | null | undefined): Pick<pg.PoolConfig, 'statement_timeout' | 'Client'> {
  if (seconds === null || seconds === undefined || seconds <= 0) return {};
  const ms = seconds * 1000;
  return { statement_timeout: ms, Client: guardedClientClass(ms) };
}

/** The statement timeout a guarded client enforces, or undefined for a plain client. */
export function stallTimeoutOf(client: unknown): number | undefined {
  return (client as { stallTimeoutMs?: number }).stallTimeoutMs;
}

/**
 * `pending` fails with StatementStalledError (and the connection is destroyed) when unanswered
 * `timeoutMs + STALL_GRACE_MS` after now. `statements`: how many statements `pending` waits for,
 * each of which the server may run for up to `timeoutMs`.
 */
export function withStallDeadline<T>(client: pg.Client, pending: Promise<T>, timeoutMs: number, statements = 1): Promise<T> {
  return stallDeadline(client, pending, timeoutMs, statements * timeoutMs + STALL_GRACE_MS);
}

function stallDeadline<T>(client: pg.Client, pending: Promise<T>, timeoutMs: number, waitMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = new StatementStalledError(timeoutMs);
      reject(err);
      // The statement's own rejection (connection terminated) then lands in the handlers below,
      // on a promise already settled.
      destroyConnection(client);
    }, waitMs);
    pending.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
