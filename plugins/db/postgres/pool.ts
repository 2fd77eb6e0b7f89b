/**
 * One connection pool per `pg_` source. Everything the engine sends to a user database goes
 * through here, so connection failures are retried and reported uniformly (and without secrets),
 * and the hot path (`queryJsonText`) hands back the JSON text PostgreSQL built, unparsed, for the
 * HTTP layer to stream as-is.
 */
import pg from 'pg';
import type { PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';
import type { IsolationLevel, ResolvedPgConnection } from './connection-info.js';
import {
  connectionEngineError,
  errorDetail,
  isConnectionError,
  isPermanentConnectionError,
  isStatementError,
  scrubbedMessage,
} from './pg-errors.js';
import { StatementDeadline, checkNotPassed, waitForConnection } from './statement-deadline.js';
import { EngineError, SpanKind, engineWorkerCount, timeLimitExceeded, tracing } from '../../../core/sdk/index.js';
import { PipelineStepError, runPipeline, type PipelineRows, type PipelineStep } from './pipeline.js';
import { stallGuardPoolConfig } from './stall-guard.js';
import { queryFirstText } from './json-text-query.js';
import { DEFAULT_PREPARED_STATEMENTS_PER_CONNECTION, releaseClient, trackPreparedStatements } from './prepared-statements.js';

export const APPLICATION_NAME = 'svc-graphql-engine';

/** What can run statements: the pool itself, or one transaction's client. */
export interface PgQueryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Always a named (server-side prepared) statement; one name must always carry the same text. */
  queryPrepared<R extends QueryResultRow = QueryResultRow>(
    name: string,
    text: string,
    values?: readonly unknown[],
  ): Promise<QueryResult<R>>;
  /**
   * The first column of the first row as PostgreSQL rendered it (json, jsonb and text are not
   * parsed), or null for no row / SQL NULL. `name` prepares the statement only when the source
   * has `use_prepared_statements` on, so callers may always pass one.
   */
  queryJsonText(name: string | undefined, text: string, values?: readonly unknown[]): Promise<string | null>;
  /**
   * `text` through the simple query protocol, so it may hold several statements: one result per
   * statement, every value as PostgreSQL's text (null for SQL NULL). For run_sql.
   */
  queryTextResults(text: string): Promise<TextResult[]>;
  /**
   * Every column of the first row as PostgreSQL rendered it (unparsed text, null for SQL NULL),
   * or null for no row. An unnamed statement: mutations are not prepared (their text varies with
   * the number of rows written, as in the reference engine).
   */
  queryTextRow(text: string, values?: readonly unknown[]): Promise<Array<string | null> | null>;
  /** Every row, every column as PostgreSQL rendered it; prepared as `name` when the source prepares statements. */
  queryTextRows(name: string | undefined, text: string, values?: readonly unknown[]): Promise<Array<Array<string | null>>>;
  /**
   * A catalog statement (introspection): one statement without parameters, answering one JSON
   * text value, run with JIT compilation off. Its cost estimate over a big catalog crosses
   * PostgreSQL's default `jit_above_cost`, and compiling it then takes seconds for a statement
   * that runs in milliseconds; the setting is confined to the statement (see CATALOG_JIT_OFF).
   */
  queryCatalogJson(text: string): Promise<string | null>;
}

/** One statement's outcome, untouched by type parsers. */
export interface TextResult {
  /** Column names when the statement returned a row description (a query), else null. */
  columns: string[] | null;
  rows: Array<Array<string | null>>;
}

export type PgHealthCheckResult =
  | { status: 'OK'; error: null; timestamp: string }
  | { status: 'TIMEOUT'; error: null; timestamp: string }
  | { status: 'ERROR'; error: { message: string; extra?: { code?: string; severity?: string } }; timestamp: string }
  | { status: 'FAILED'; error: string; timestamp: string };

export interface PgSourcePoolOptions {
  /** Errors of idle connections (e.g. the server restarted); without a listener they would crash the process. */
  onIdleError?: (message: string) => void;
  /** Prepared statements each connection keeps (./prepared-statements.ts); default 200. */
  preparedStatementsPerConnection?: number;
}

const identity = (v: string): string => v;
/** Shared by every raw query: built once because it sits on the hot path. */
const RAW_TYPES = { getTypeParser: (): ((v: string) => string) => identity };

const BEGIN: Record<IsolationLevel, readonly [string, string]> = {
  'read-committed': ['BEGIN ISOLATION LEVEL READ COMMITTED', 'BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY'],
  'repeatable-read': ['BEGIN ISOLATION LEVEL REPEATABLE READ', 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'],
  serializable: ['BEGIN ISOLATION LEVEL SERIALIZABLE', 'BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY'],
};

/** Names of the read-write BEGINs when they are prepared (one-trip transactions). */
const BEGIN_NAME: Record<IsolationLevel, string> = {
  'read-committed': 'svc_begin_rc',
  'repeatable-read': 'svc_begin_rr',
  serializable: 'svc_begin_s',
};

/**
 * Each connection's default isolation level, read once (DEFAULT_ISOLATION_SQL): a one-trip
 * transaction at that level needs no BEGIN/COMMIT (transactionInOneTrip).
 */
const defaultIsolationOf = new WeakMap<PoolClient, IsolationLevel>();
const DEFAULT_ISOLATION_SQL = `SELECT current_setting('default_transaction_isolation')`;
/** PostgreSQL runs READ UNCOMMITTED as READ COMMITTED. */
const ISOLATION_OF_DEFAULT: Record<string, IsolationLevel> = {
  'read uncommitted': 'read-committed',
  'read committed': 'read-committed',
  'repeatable read': 'repeatable-read',
  serializable: 'serializable',
};

/**
 * Sent on each new source connection unless --pg-jit: the generated statements are short OLTP
 * reads and writes that never gain from LLVM, and a deep boolean tree (26 nested relationships in
 * a `where`, found by the fuzzer) crosses `jit_above_cost` on a table without statistics and then
 * compiles for up to a minute, inside which PostgreSQL checks for neither statement_timeout nor a
 * cancel: one request could hold a database core that long, past --pg-statement-timeout.
 */
const JIT_OFF = 'SET jit = off';

/**
 * A server without the setting (before PostgreSQL 11, or a compatible server) has no JIT to turn
 * off; a broken connection fails the statement that follows, which reports it.
 */
function ignoreJitOffFailure(): void {}

export function poolConfigFor(conn: ResolvedPgConnection): PoolConfig {
  const t = conn.target;
  const base: PoolConfig =
    t.kind === 'url'
      ? { connectionString: t.url }
      : { host: t.host, port: t.port, user: t.user, password: t.password, database: t.database };
  return {
    ...base,
    application_name: APPLICATION_NAME,
    // With --workers N each worker has its own pool: the configured size is the engine's, split.
    max: Math.max(1, Math.ceil(conn.pool.maxConnections / engineWorkerCount())),
    idleTimeoutMillis: conn.pool.idleTimeoutSeconds * 1000,
    // pg-pool treats 0 as "no limit", matching an absent pool_timeout.
    connectionTimeoutMillis: (conn.pool.poolTimeoutSeconds ?? 0) * 1000,
    maxLifetimeSeconds: conn.pool.connectionLifetimeSeconds,
    // Idle connections must not keep a CLI command or a test run alive.
    allowExitOnIdle: true,
    // The server cancels slow statements itself; the client's guard catches a stalled path.
    ...stallGuardPoolConfig(conn.statementTimeoutSeconds),
  };
}

export class PgSourcePool implements PgQueryable {
  readonly usePreparedStatements: boolean;
  readonly isolationLevel: IsolationLevel;
  private readonly pool: pg.Pool;
  private readonly retries: number;
  private readonly maxConnections: number;
  private readonly poolTimeoutSeconds: number | null;
  private readonly secrets: readonly string[];
  private closing: Promise<void> | undefined;

  constructor(conn: ResolvedPgConnection, options: PgSourcePoolOptions = {}) {
    this.usePreparedStatements = conn.usePreparedStatements;
    this.isolationLevel = conn.isolationLevel;
    this.retries = conn.pool.retries;
    this.maxConnections = Math.max(1, Math.ceil(conn.pool.maxConnections / engineWorkerCount()));
    this.poolTimeoutSeconds = conn.pool.poolTimeoutSeconds;
    this.secrets = conn.secrets;
    this.pool = new pg.Pool(poolConfigFor(conn));
    const onIdleError = options.onIdleError;
    this.pool.on('error', (err) => onIdleError?.(scrubbedMessage(err, this.secrets)));
    // pg-pool listens for errors only on idle clients. A server restart terminates checked-out
    // ones too, between two statements of a transaction or right after acquire; unheard, that
    // 'error' event would crash the process. The statement that follows fails as a connection
    // error and the client is released as broken.
    const bound = options.preparedStatementsPerConnection ?? DEFAULT_PREPARED_STATEMENTS_PER_CONNECTION;
    this.pool.on('connect', (client) => {
      client.on('error', (err) => onIdleError?.(scrubbedMessage(err, this.secrets)));
      trackPreparedStatements(client, bound);
      // Queued ahead of the statement the connection was opened for: one round trip per
      // connection, paid by the request that opened it.
      if (!conn.jit) client.query(JIT_OFF).catch(ignoreJitOffFailure);
    });
  }

  /** Connections currently open / idle / callers waiting for one. */
  get stats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async query<R extends QueryResultRow = QueryResultRow>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    const client = await this.acquire();
    return runOn(client, this.secrets, () => client.query<R>(text, values as unknown[] | undefined));
  }

  async queryPrepared<R extends QueryResultRow = QueryResultRow>(
    name: string,
    text: string,
    values?: readonly unknown[],
  ): Promise<QueryResult<R>> {
    const client = await this.acquire();
    return runOn(client, this.secrets, () => client.query<R>({ name, text, values: values as unknown[] | undefined }));
  }

  // Written out rather than via runOn(): this runs once per GraphQL operation, so no closure.
  /** `deadline` (a Date.now() time): the statement is cancelled in the database when it passes. */
  async queryJsonText(name: string | undefined, text: string, values?: readonly unknown[], deadline?: number): Promise<string | null> {
    const client = await this.acquireBy(deadline);
    let broken: Error | undefined;
    let watch: StatementDeadline | undefined;
    try {
      if (deadline !== undefined) {
        checkNotPassed(deadline);
        watch = new StatementDeadline(client, deadline);
      }
      return await jsonTextOn(client, this.usePreparedStatements ? name : undefined, text, values);
    } catch (err) {
      if (isConnectionError(err)) broken = err as Error;
      // The deadline may have had to close the connection (a stalled path): still the time limit.
      if (watch?.fired) throw timeLimitExceeded();
      if (broken) throw connectionEngineError(err, this.secrets);
      throw err;
    } finally {
      const cancelled = watch?.clear();
      releaseClient(client, broken ?? cancelled);
    }
  }

  async queryTextResults(text: string): Promise<TextResult[]> {
    const client = await this.acquire();
    return runOn(client, this.secrets, () => textResultsOn(client, text));
  }

  async queryTextRow(text: string, values?: readonly unknown[]): Promise<Array<string | null> | null> {
    const client = await this.acquire();
    return runOn(client, this.secrets, () => textRowOn(client, text, values));
  }

  async queryTextRows(name: string | undefined, text: string, values?: readonly unknown[]): Promise<Array<Array<string | null>>> {
    const client = await this.acquire();
    const stmtName = this.usePreparedStatements ? name : undefined;
    return runOn(client, this.secrets, () => textRowsOn(client, stmtName, text, values));
  }

  async queryCatalogJson(text: string): Promise<string | null> {
    const client = await this.acquire();
    return runOn(client, this.secrets, () => catalogJsonOn(client, CATALOG_JIT_OFF.autocommit(text)));
  }

  /**
   * Run `fn` in one transaction on one connection; commits if it resolves, rolls back if it
   * throws. The handle given to `fn` must not be used after `fn` settles. `prefix` statements
   * (e.g. the session setting) are sent with BEGIN in one round trip, before `fn` runs.
   */
  async withTransaction<T>(
    isolation: IsolationLevel,
    readOnly: boolean,
    fn: (tx: PgQueryable) => Promise<T>,
    deadline?: number,
    prefix: readonly PipelineStep[] = [],
  ): Promise<T> {
    const client = await this.acquireBy(deadline);
    const tx = new TransactionHandle(client, this.usePreparedStatements, this.secrets);
    let broken: Error | undefined;
    let watch: StatementDeadline | undefined;
    try {
      if (deadline !== undefined) {
        checkNotPassed(deadline);
        watch = new StatementDeadline(client, deadline);
      }
      const begin = BEGIN[isolation][readOnly ? 1 : 0];
      if (prefix.length === 0) await client.query(begin);
      else {
        const steps = this.usePreparedStatements ? prefix : prefix.map(({ text, values }) => (values ? { text, values } : { text }));
        await runPipeline(client, [{ text: begin }, ...steps]).catch((e: unknown) => Promise.reject(e instanceof PipelineStepError ? e.cause : e));
      }
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      if (isConnectionError(err)) {
        broken = err as Error;
        if (watch?.fired) throw timeLimitExceeded();
        throw connectionEngineError(err, this.secrets);
      }
      // Whatever statement the cancel hit, the cause is the time limit. No ROLLBACK: the
      // connection is not reused (`clear` below), and closing it ends the transaction, where a
      // ROLLBACK would cost a round trip and, on a stalled backend, hold the answer until the
      // stall guard closed the connection anyway.
      if (watch?.fired) throw timeLimitExceeded();
      try {
        // Also harmless after a failed COMMIT, which has already ended the transaction.
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error;
      }
      throw err;
    } finally {
      const cancelled = watch?.clear();
      tx.finish();
      releaseClient(client, broken ?? cancelled);
    }
  }

  /**
   * A whole read-write transaction in ONE round trip: `steps` written at once and closed by one
   * Sync (./pipeline.ts). Answers each step's rows. PostgreSQL runs every extended-protocol message
   * up to a Sync in one implicit transaction block, committed at the Sync and rolled back whole by
   * any error, so BEGIN and COMMIT are sent only when the transaction needs an isolation level
   * other than the connection's default (learnt once per connection, with BEGIN, on its first
   * one-trip transaction). When a step fails, nothing after it runs (the server skips to the Sync)
   * and the transaction is rolled back; the error is a PipelineStepError whose `index` is the
   * step's (-1: BEGIN, steps.length: the commit) and whose `cause` is the driver's error.
   * Connection failures and the deadline are mapped here, as withTransaction does.
   */
  async transactionInOneTrip(isolation: IsolationLevel, steps: readonly PipelineStep[], deadline?: number): Promise<PipelineRows> {
    const client = await this.acquireBy(deadline);
    let broken: Error | undefined;
    let watch: StatementDeadline | undefined;
    const known = defaultIsolationOf.get(client);
    const implicit = known === isolation;
    const prefix: PipelineStep[] = implicit ? [] : [{ text: BEGIN[isolation][0], name: BEGIN_NAME[isolation] }];
    if (known === undefined) prefix.push({ text: DEFAULT_ISOLATION_SQL, name: 'svc_default_isolation' });
    try {
      if (deadline !== undefined) {
        checkNotPassed(deadline);
        watch = new StatementDeadline(client, deadline);
      }
      const all = implicit ? steps : [...prefix, ...steps, { text: 'COMMIT', name: 'svc_commit' }];
      const rows = await runPipeline(client, this.usePreparedStatements ? all : all.map(({ text, values }) => (values ? { text, values } : { text })));
      if (known === undefined) {
        const level = ISOLATION_OF_DEFAULT[rows[1]?.[0]?.[0] ?? ''];
        if (level !== undefined) defaultIsolationOf.set(client, level);
      }
      return implicit ? rows : rows.slice(prefix.length, -1);
    } catch (err) {
      const cause = err instanceof PipelineStepError ? err.cause : err;
      if (isConnectionError(cause)) broken = cause as Error;
      // The deadline, whether its cancel hit a step or the stall guard had to close the connection.
      // No ROLLBACK, as in withTransaction: the connection is not reused, and closing it ends the block.
      if (watch?.fired) throw timeLimitExceeded();
      if (broken) throw connectionEngineError(cause, this.secrets);
      // An implicit block is over (rolled back at the Sync) unless the pipeline never finished
      // (index -1: a stalled path); an explicit one stays aborted until ROLLBACK.
      if (!implicit || !(err instanceof PipelineStepError) || err.index < 0) {
        try {
          // Also harmless after a failed COMMIT, which has already ended the transaction.
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          broken = rollbackErr as Error;
        }
      }
      if (err instanceof PipelineStepError && !implicit) {
        // A failure in the prefix (BEGIN, the isolation read) is BEGIN's.
        throw new PipelineStepError(err.index < 0 ? err.index : Math.max(-1, err.index - prefix.length), cause);
      }
      throw err;
    } finally {
      const cancelled = watch?.clear();
      releaseClient(client, broken ?? cancelled);
    }
  }

  /**
   * Run `sql` (default `SELECT 1`) within `timeoutMs`. ERROR: the database could not be reached
   * or the session failed; FAILED: the check statement itself is wrong (bad configuration).
   */
  async healthCheck(timeoutMs: number, sql = 'SELECT 1'): Promise<PgHealthCheckResult> {
    let client: PoolClient | undefined;
    let settled = false;
    let released = false;
    const release = (err?: Error): void => {
      if (client !== undefined && !released) {
        released = true;
        client.release(err);
      }
    };
    // No retries here: the check reports the state of the source now, and runs again later.
    const check = (async () => {
      const c = await this.pool.connect();
      client = c;
      // Timed out while connecting: nobody waits for this connection any more.
      if (settled) release(new Error('health check timed out'));
      else await c.query(sql);
    })();

    type Outcome = { kind: 'ok' } | { kind: 'timeout' } | { kind: 'error'; err: unknown };
    const outcome = await new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
      check.then(
        () => {
          clearTimeout(timer);
          resolve({ kind: 'ok' });
        },
        (err: unknown) => {
          clearTimeout(timer);
          resolve({ kind: 'error', err });
        },
      );
    });
    settled = true;
    const timestamp = new Date().toISOString();
    switch (outcome.kind) {
      case 'ok':
        release();
        return { status: 'OK', error: null, timestamp };
      case 'timeout':
        // Destroying the connection also abandons a statement that is still running.
        release(new Error('health check timed out'));
        return { status: 'TIMEOUT', error: null, timestamp };
      case 'error': {
        const err = outcome.err;
        release(isConnectionError(err) ? (err as Error) : undefined);
        const message = scrubbedMessage(err, this.secrets);
        if (isStatementError(err)) return { status: 'FAILED', error: message, timestamp };
        const extra = errorDetail(err);
        return {
          status: 'ERROR',
          error: Object.keys(extra).length > 0 ? { message, extra } : { message },
          timestamp,
        };
      }
    }
  }

  /** Idempotent; waits for checked-out connections to be released. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }

  /**
   * pg-pool's "timeout exceeded when trying to connect" also means "every connection stayed busy
   * for pool_timeout": said plainly, so a saturated pool is not mistaken for a database outage.
   */
  private poolTimeoutError(err: unknown): EngineError | undefined {
    if (!(err instanceof Error) || !err.message.startsWith('timeout exceeded when trying to connect')) return undefined;
    if (this.pool.totalCount < this.maxConnections) return undefined;
    return new EngineError(
      'connection-not-established',
      `connection error: no database connection became free within the pool timeout (${this.poolTimeoutSeconds} s): ` +
        `all ${this.maxConnections} connections of the pool stayed busy (pool_settings.pool_timeout, --pool-timeout)`,
      { status: 400, internal: { pool: { max_connections: this.maxConnections, pool_timeout: this.poolTimeoutSeconds, waiting: this.pool.waitingCount } } },
    );
  }

  /**
   * A connection, for an operation that must be done by `deadline` (time-limit-exceeded if none is
   * free by then). An idle connection is handed over at once, so only a wait is watched.
   */
  private acquireBy(deadline: number | undefined): Promise<PoolClient> {
    if (deadline === undefined) return this.acquire();
    checkNotPassed(deadline);
    if (this.pool.idleCount > 0) return this.acquire();
    return waitForConnection(this.acquire(), deadline);
  }

  private async acquire(): Promise<PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.connect();
      } catch (err) {
        if (attempt >= this.retries || !isConnectionError(err) || isPermanentConnectionError(err)) {
          throw this.poolTimeoutError(err) ?? connectionEngineError(err, this.secrets);
        }
      }
    }
  }
}

/** The statements of one transaction, on the connection `withTransaction` holds. */
class TransactionHandle implements PgQueryable {
  private done = false;

  constructor(
    private readonly client: PoolClient,
    private readonly usePreparedStatements: boolean,
    private readonly secrets: readonly string[],
  ) {}

  finish(): void {
    this.done = true;
  }

  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    this.check();
    return mapConnectionErrors(this.client.query<R>(text, values as unknown[] | undefined), this.secrets);
  }

  queryPrepared<R extends QueryResultRow = QueryResultRow>(
    name: string,
    text: string,
    values?: readonly unknown[],
  ): Promise<QueryResult<R>> {
    this.check();
    return mapConnectionErrors(
      this.client.query<R>({ name, text, values: values as unknown[] | undefined }),
      this.secrets,
    );
  }

  queryJsonText(name: string | undefined, text: string, values?: readonly unknown[]): Promise<string | null> {
    this.check();
    const stmtName = this.usePreparedStatements ? name : undefined;
    return mapConnectionErrors(jsonTextOn(this.client, stmtName, text, values), this.secrets);
  }

  queryTextResults(text: string): Promise<TextResult[]> {
    this.check();
    return mapConnectionErrors(textResultsOn(this.client, text), this.secrets);
  }

  queryTextRow(text: string, values?: readonly unknown[]): Promise<Array<string | null> | null> {
    this.check();
    return mapConnectionErrors(textRowOn(this.client, text, values), this.secrets);
  }

  queryTextRows(name: string | undefined, text: string, values?: readonly unknown[]): Promise<Array<Array<string | null>>> {
    this.check();
    const stmtName = this.usePreparedStatements ? name : undefined;
    return mapConnectionErrors(textRowsOn(this.client, stmtName, text, values), this.secrets);
  }

  queryCatalogJson(text: string): Promise<string | null> {
    this.check();
    return mapConnectionErrors(catalogJsonOn(this.client, CATALOG_JIT_OFF.inTransaction(text)), this.secrets);
  }

  private check(): void {
    if (this.done) throw new Error('transaction handle used after its transaction ended');
  }
}

/** One client span per statement (only while tracing is on). */
function traced<T>(text: string, run: () => Promise<T>): Promise<T> {
  return tracing.span('db.query', { 'db.system': 'postgresql', 'db.statement': text }, run, SpanKind.CLIENT);
}

function jsonTextOn(client: PoolClient, name: string | undefined, text: string, values: readonly unknown[] | undefined): Promise<string | null> {
  return tracing.active ? traced(text, () => jsonTextRaw(client, name, text, values)) : jsonTextRaw(client, name, text, values);
}

function jsonTextRaw(
  client: PoolClient,
  name: string | undefined,
  text: string,
  values: readonly unknown[] | undefined,
): Promise<string | null> {
  return queryFirstText(client, name, text, values ?? NO_VALUES);
}

const NO_VALUES: readonly unknown[] = [];

function textResultsOn(client: PoolClient, text: string): Promise<TextResult[]> {
  return tracing.active ? traced(text, () => textResultsRaw(client, text)) : textResultsRaw(client, text);
}

async function textResultsRaw(client: PoolClient, text: string): Promise<TextResult[]> {
  // No values and no name: pg uses the simple protocol, which accepts several statements and
  // answers an array of results (a single result when there was one statement).
  const res = (await client.query({ text, rowMode: 'array', types: RAW_TYPES })) as unknown as
    | QueryResult<Array<string | null>>
    | Array<QueryResult<Array<string | null>>>;
  return (Array.isArray(res) ? res : [res]).map((r) => ({
    // A statement without a row description (DDL, plain DML) leaves `fields` empty.
    columns: r.fields.length > 0 ? r.fields.map((f) => f.name) : null,
    rows: r.rows,
  }));
}

/**
 * Sends a catalog statement with `jit = off` in the same message (the simple protocol carries
 * several statements, so this costs no extra round trip). Outside a transaction the message is
 * an implicit transaction block, which `SET LOCAL` lasts to the end of; inside one (run_sql's
 * before/after introspection) a savepoint rolled back afterwards restores the caller's setting,
 * so the user's own SQL in that transaction still runs with their JIT settings.
 */
export const CATALOG_JIT_OFF = {
  autocommit: (text: string): CatalogMessage => ({ text: `SET LOCAL jit = off;\n${text}`, resultIndex: 1 }),
  inTransaction: (text: string): CatalogMessage => ({
    text: `SAVEPOINT svc_catalog_read;\nSET LOCAL jit = off;\n${text};\nROLLBACK TO SAVEPOINT svc_catalog_read;\nRELEASE SAVEPOINT svc_catalog_read`,
    resultIndex: 2,
  }),
};

interface CatalogMessage {
  text: string;
  /** Which statement of the message answers. */
  resultIndex: number;
}

async function catalogJsonOn(client: PoolClient, message: CatalogMessage): Promise<string | null> {
  const rows = (await textResultsOn(client, message.text))[message.resultIndex]?.rows;
  return rows === undefined || rows.length === 0 ? null : (rows[0]![0] ?? null);
}

function textRowOn(client: PoolClient, text: string, values: readonly unknown[] | undefined): Promise<Array<string | null> | null> {
  return tracing.active ? traced(text, () => textRowRaw(client, text, values)) : textRowRaw(client, text, values);
}

async function textRowRaw(client: PoolClient, text: string, values: readonly unknown[] | undefined): Promise<Array<string | null> | null> {
  const res = await client.query<Array<string | null>>({
    text,
    values: values as unknown[] | undefined,
    rowMode: 'array',
    types: RAW_TYPES,
  });
  return res.rows.length === 0 ? null : res.rows[0]!;
}

function textRowsOn(client: PoolClient, name: string | undefined, text: string, values: readonly unknown[] | undefined): Promise<Array<Array<string | null>>> {
  return tracing.active ? traced(text, () => textRowsRaw(client, name, text, values)) : textRowsRaw(client, name, text, values);
}

async function textRowsRaw(
  client: PoolClient,
  name: string | undefined,
  text: string,
  values: readonly unknown[] | undefined,
): Promise<Array<Array<string | null>>> {
  const res = await client.query<Array<string | null>>({ name, text, values: values as unknown[] | undefined, rowMode: 'array', types: RAW_TYPES });
  return res.rows;
}

/** Run one statement on a checked-out client and give the client back, dropping it if it broke. */
async function runOn<T>(client: PoolClient, secrets: readonly string[], run: () => Promise<T>): Promise<T> {
  let broken: Error | undefined;
  try {
    return await run();
  } catch (err) {
    if (isConnectionError(err)) {
      broken = err as Error;
      throw connectionEngineError(err, secrets);
    }
    throw err;
  } finally {
    releaseClient(client, broken);
  }
}

async function mapConnectionErrors<T>(p: Promise<T>, secrets: readonly string[]): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw isConnectionError(err) ? connectionEngineError(err, secrets) : err;
  }
}
