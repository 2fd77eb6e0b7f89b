/**
 * Test databases on a real PostgreSQL: SVC_TEST_DATABASE_URL if set, else 127.0.0.1:5432 as
 * `postgres`. Each test file creates its own database and drops it afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const SERVER_URL = process.env['SVC_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function urlForDatabase(name: string): string {
  const u = new URL(SERVER_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface TestDatabase {
  name: string;
  url: string;
  /** Runs SQL in the test database (a fresh short-lived client). */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Runs SQL on the database at `url`, each call on a fresh short-lived client. */
export function sqlOn(url: string): TestDatabase['sql'] {
  return async (text, values) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
}

export async function createTestDatabase(prefix: string, setupSql?: string): Promise<TestDatabase> {
  const name = `svc_t_${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = urlForDatabase(name);
  const sql = sqlOn(url);
  if (setupSql) await sql(setupSql);
  return {
    name,
    url,
    sql,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
