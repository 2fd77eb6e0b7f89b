/**
 * A source's mysql2 pool, opened on first use (a down server fails requests, never the engine's
 * start). Statements go through `execute`: server-side prepared statements, values always
 * parameters. JSON results stay text (`jsonStrings`), so the engine forwards the server's bytes.
 * mysql2 itself is loaded with the first pool (~100 ms of module loading that an engine without
 * MariaDB sources never pays).
 */
import type { ExecuteValues, Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
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
  private pool: Promise<Pool> | undefined;

  constructor(private readonly resolve: () => ResolvedMariaConnection) {}

  get database(): string {
    return this.resolve().database;
  }

  private get(): Promise<Pool> {
    if (!this.pool) {
      const opening = import('mysql2/promise').then(({ createPool }) => {
        const c = this.resolve();
        return createPool({
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
      });
      // A configuration that cannot be resolved (a missing variable) is tried again next time.
      opening.catch(() => {
        if (this.pool === opening) this.pool = undefined;
      });
      this.pool = opening;
    }
    return this.pool;
  }

  async rows(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    const [rows] = await (await this.get()).execute<RowDataPacket[]>(sql, values as ExecuteValues[]);
    return rows as Row[];
  }

  /** The statement with its values written as literals (mysql2's escaping), for the explain API. */
  async inline(sql: string, values: readonly unknown[]): Promise<string> {
    const { format } = await import('mysql2/promise');
    return format(sql, values as Parameters<typeof format>[1]);
  }

  async transaction<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const conn = await (await this.get()).getConnection();
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

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    const pool = await p?.catch(() => undefined);
    await pool?.end();
  }
}
