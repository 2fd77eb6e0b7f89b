/**
 * Throwaway databases for the postgres plugin tests: each suite gets its own, so suites can run
 * in parallel with other engineers' tests against the same server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ResolvedPgConnection } from '../../../../plugins/db/postgres/connection-info.js';
import { resolvePgSourceConfiguration } from '../../../../plugins/db/postgres/connection-info.js';

export const PG_HOST = process.env.SVC_TEST_PG_HOST ?? '127.0.0.1';
export const PG_PORT = Number(process.env.SVC_TEST_PG_PORT ?? 5432);
export const PG_USER = process.env.SVC_TEST_PG_USER ?? 'postgres';

export const urlFor = (database: string, port = PG_PORT): string =>
  `postgres://${PG_USER}@${PG_HOST}:${port}/${database}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: urlFor('postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function createTestDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return name;
}

export async function dropTestDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Run a script as-is (several statements, no parameters) in the given database. */
export async function runScript(database: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: urlFor(database) });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export function resolvedFor(
  database: string,
  extra: Record<string, unknown> = {},
  port = PG_PORT,
): ResolvedPgConnection {
  return resolvePgSourceConfiguration({ connection_info: { database_url: urlFor(database, port), ...extra } }, {});
}
