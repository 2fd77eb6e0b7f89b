/**
 * A source's mysql2 pool, opened on first use (a down server fails requests, never the engine's
 * start). Statements go through `execute`: server-side prepared statements, values always
 * parameters. JSON results stay text (`jsonStrings`), so the engine forwards the server's bytes.
 */
import { createPool, type ExecuteValues, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import type { ResolvedMariaConnection } from './config.js';

export type Row = Record<string, unknown>;

/** Something that runs statements: the pool, or one connection inside a transaction. */
export interface Queryable {
  rows(sql: string, values?: readonly unknown[]): Promise<Row[]>;
}

class ConnectionQueryable implements Queryable {
  constructor(private readonly conn: PoolConnection) {}
  async rows(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    const [rows] = await this.conn.execute<RowDataPacket[]>(sql, values as ExecuteValues[]);
    return rows as Row[];
  }
}

export class MariaPool implements Queryable {
  private pool: Pool | undefined;

  constructor(private readonly resolve: () => ResolvedMariaConnection) {}

  get database(): string {
    return this.resolve().database;
  }

  private get(): Pool {
    if (!this.pool) {
      const c = this.resolve();
      this.pool = createPool({
        host: c.host,
        port: c.port,
        user: c.user,
        password: c.password,
        database: c.database,
        connectionLimit: c.maxConnections,
        idleTimeout: c.idleTimeoutMs,
        maxIdle: c.maxConnections,
        jsonStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        decimalNumbers: false,
        dateStrings: true,
        charset: 'utf8mb4',
      });
    }
    return this.pool;
  }

  async rows(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    const [rows] = await this.get().execute<RowDataPacket[]>(sql, values as ExecuteValues[]);
    return rows as Row[];
  }

  /** Runs `sql` (text, not prepared): for statements the binary protocol cannot prepare. */
  async text(sql: string): Promise<void> {
    await this.get().query(sql);
  }

  async transaction<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const conn = await this.get().getConnection();
    try {
      await conn.query('START TRANSACTION');
      try {
        const out = await fn(new ConnectionQueryable(conn));
        await conn.query('COMMIT');
        return out;
      } catch (e) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    } finally {
      conn.release();
    }
  }

  stats(): { total: number; idle: number; waiting: number } {
    // mysql2 keeps its counts private; an unopened pool has nothing.
    const p = this.pool?.pool as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } } | undefined;
    return { total: p?._allConnections?.length ?? 0, idle: p?._freeConnections?.length ?? 0, waiting: p?._connectionQueue?.length ?? 0 };
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    await p?.end();
  }
}
