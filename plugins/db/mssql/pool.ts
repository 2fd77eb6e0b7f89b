/**
 * A source's mssql pool (tedious underneath), opened on first use: a down server fails requests,
 * never the engine's start, and the mssql package itself (with tedious: 0.5-0.8 s of module
 * loading) is imported with the first pool, so an engine without SQL Server sources never loads
 * it. Statements are parameterised (`@p0`, `@p1`, ... in text order: sp_executesql), values
 * never enter the text. A statement past its deadline is cancelled on the server (a TDS
 * attention), not only given up.
 */
import type { ConnectionPool, Request, Transaction } from 'mssql';
import { EngineError, giveUpAtDeadline, timeLimitExceeded } from '../../../core/sdk/index.js';
import type { MssqlIsolationLevel, ResolvedMssqlConnection } from './config.js';

export type Row = Record<string, unknown>;

/** Something that runs statements: the pool, or one connection inside a transaction. */
export interface Queryable {
  /** The first result set's rows. `deadline` (a Date.now() time) cancels the statement on the server. */
  rows(sql: string, values?: readonly unknown[], deadline?: number): Promise<Row[]>;
}

/** What a source connection needs from SQL Server: the real one is MssqlPool. */
export interface MssqlDriver extends Queryable {
  /** Every result set of a batch of statements, in one round trip. */
  batch(sql: string, values?: readonly unknown[]): Promise<Row[][]>;
  /** The estimated plan of a statement (SHOWPLAN_TEXT), one line per row. */
  plan(sql: string, values: readonly unknown[]): Promise<string[]>;
  /** Runs `fn` in one transaction at the source's isolation level; rolls back when it throws. */
  transaction<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Connections open / idle / callers waiting. */
  stats(): { total: number; idle: number; waiting: number } | null;
  close(): Promise<void>;
}

type Mssql = typeof import('mssql');

/** tedious's isolation level numbers (mssql's ISOLATION_LEVEL). */
const ISOLATION: Readonly<Record<MssqlIsolationLevel, keyof Mssql['ISOLATION_LEVEL']>> = {
  'read-uncommitted': 'READ_UNCOMMITTED',
  'read-committed': 'READ_COMMITTED',
  'repeatable-read': 'REPEATABLE_READ',
  snapshot: 'SNAPSHOT',
  serializable: 'SERIALIZABLE',
};

let loading: Promise<Mssql> | undefined;

/** The mssql module, imported once, on first use. */
export function loadMssql(): Promise<Mssql> {
  loading ??= import('mssql').then((m) => ((m as { default?: Mssql }).default ?? m) as Mssql);
  return loading;
}

/** `@p0..@pN` for `values`, and a cancel at the deadline. */
function prepare(request: Request, values: readonly unknown[]): void {
  values.forEach((v, i) => {
    request.input(`p${i}`, v === undefined ? null : v);
  });
}

async function run(request: Request, sql: string, values: readonly unknown[], deadline: number | undefined): Promise<Row[][]> {
  prepare(request, values);
  let timer: NodeJS.Timeout | undefined;
  if (deadline !== undefined) {
    const left = deadline - Date.now();
    if (left <= 0) throw timeLimitExceeded();
    timer = setTimeout(() => request.cancel(), left);
  }
  try {
    const result = await request.query(sql);
    return (result.recordsets as unknown as Row[][]) ?? [];
  } finally {
    clearTimeout(timer);
  }
}

/** `opening` (a pool still connecting) given up at the deadline with time-limit-exceeded. */
function beforeDeadline<T>(opening: Promise<T>, deadline: number | undefined): Promise<T> {
  return deadline === undefined ? opening : giveUpAtDeadline(opening, deadline);
}

class TransactionQueryable implements Queryable {
  constructor(private readonly tx: Transaction) {}
  async rows(sql: string, values: readonly unknown[] = [], deadline?: number): Promise<Row[]> {
    return (await run(this.tx.request(), sql, values, deadline))[0] ?? [];
  }
}

export class MssqlPool implements MssqlDriver {
  private pool: Promise<{ pool: ConnectionPool; mssql: Mssql; isolation: number }> | undefined;
  /** The open pool, for its counts. */
  private opened: ConnectionPool | undefined;

  constructor(private readonly resolve: () => ResolvedMssqlConnection) {}

  private get(): Promise<{ pool: ConnectionPool; mssql: Mssql; isolation: number }> {
    if (!this.pool) {
      const opening = (async () => {
        const c = this.resolve();
        const mssql = await loadMssql();
        let config: ReturnType<Mssql['ConnectionPool']['parseConnectionString']>;
        try {
          config = mssql.ConnectionPool.parseConnectionString(c.connectionString);
        } catch (e) {
          throw new EngineError('invalid-configuration', `the connection string cannot be read: ${(e as Error).message}`, { path: '$.configuration.connection_info.connection_string' });
        }
        const isolation = mssql.ISOLATION_LEVEL[ISOLATION[c.isolationLevel]];
        const pool = new mssql.ConnectionPool({
          ...config,
          // The engine gives statements their time limit (RunOptions.deadline), not the driver.
          requestTimeout: 0,
          pool: { ...config.pool, min: 0, max: c.maxConnections, idleTimeoutMillis: c.idleTimeoutMs },
          options: { ...config.options, connectionIsolationLevel: isolation, useUTC: true },
        });
        // mssql re-emits a connection's fatal errors on the pool; the caller waiting for that
        // connection gets the same error, so the event is only kept from crashing the process.
        pool.on('error', () => undefined);
        await pool.connect();
        this.opened = pool;
        return { pool, mssql, isolation };
      })();
      // A pool that could not open (a missing variable, a down server) is tried again next time.
      opening.catch(() => {
        if (this.pool === opening) this.pool = undefined;
      });
      this.pool = opening;
    }
    return this.pool;
  }

  async rows(sql: string, values: readonly unknown[] = [], deadline?: number): Promise<Row[]> {
    // Connecting counts against the deadline too (tedious's own connect timeout is 15 s).
    const { pool } = await beforeDeadline(this.get(), deadline);
    return (await run(pool.request(), sql, values, deadline))[0] ?? [];
  }

  async batch(sql: string, values: readonly unknown[] = []): Promise<Row[][]> {
    const { pool } = await this.get();
    return run(pool.request(), sql, values, undefined);
  }

  async plan(sql: string, values: readonly unknown[]): Promise<string[]> {
    // SHOWPLAN_TEXT is a session setting, so it and the statement need one connection: a
    // transaction holds one, and is rolled back (nothing ran).
    const { pool, mssql, isolation } = await this.get();
    const tx = new mssql.Transaction(pool);
    // The level a transaction begins at stays on its connection: the source's, as everywhere.
    await tx.begin(isolation);
    try {
      await tx.request().batch('SET SHOWPLAN_TEXT ON');
      try {
        const sets = await run(tx.request(), sql, values, undefined);
        return sets.flatMap((rows) => rows.map((r) => String(r['StmtText'] ?? Object.values(r)[0] ?? '')));
      } finally {
        await tx.request().batch('SET SHOWPLAN_TEXT OFF');
      }
    } finally {
      await tx.rollback().catch(() => undefined);
    }
  }

  async transaction<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const { pool, mssql, isolation } = await this.get();
    const tx = new mssql.Transaction(pool);
    await tx.begin(isolation);
    try {
      const out = await fn(new TransactionQueryable(tx));
      await tx.commit();
      return out;
    } catch (e) {
      await tx.rollback().catch(() => undefined);
      throw e;
    }
  }

  stats(): { total: number; idle: number; waiting: number } | null {
    const p = this.opened;
    return p ? { total: p.size, idle: p.available, waiting: p.pending } : null;
  }

  async close(): Promise<void> {
    const p = this.pool;
    const opened = this.opened;
    this.pool = undefined;
    this.opened = undefined;
    if (opened) return opened.close();
    // A pool still connecting (a server that does not answer) is closed once it opens, not waited for.
    void p?.then(({ pool }) => pool.close()).catch(() => undefined);
  }
}
