/**
 * A small schema the hardening tests share: `item` (self-referencing through `parent`) and
 * `secret` rows owned by users, with a `user` role that sees its own rows and never the `token`
 * column. Built through the metadata API like a user would.
 */
import { expect } from 'chai';
import type { TestDatabase } from './database.js';
import { metadata } from './engine.js';
import { spawnEngine, type EngineProcess } from './engine-process.js';

export const ADMIN_SECRET = 'hardening-admin-secret';
export const ADMIN = { 'x-svc-admin-secret': ADMIN_SECRET };
export const asUser = (id: number): Record<string, string> => ({ ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

/** The 30 rows of `item`; also how the coverage fuzzer puts them back after a mutation. */
export const ITEMS_ROWS_SQL = `
  INSERT INTO item (name, owner_id, parent_id, price, tags, token)
    SELECT 'item ' || g, (g % 3) + 1, CASE WHEN g > 1 THEN g - 1 END, g * 1.5, jsonb_build_object('n', g), 'SECRET-TOKEN-' || g
    FROM generate_series(1, 30) g;
`;

export const ITEMS_SQL = `
  CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, owner_id int NOT NULL, parent_id int REFERENCES item(id),
                     price numeric, tags jsonb, token text);
  ${ITEMS_ROWS_SQL}
`;

async function ok(engine: { url: string }, body: unknown): Promise<void> {
  const res = await metadata(engine, body, ADMIN);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** Tracks `item`, its `parent` relationship and the `user` role's permissions. */
export async function trackItems(engine: { url: string }, db: TestDatabase): Promise<void> {
  await db.sql(ITEMS_SQL);
  await ok(engine, { type: 'pg_track_table', args: { table: 'item' } });
  await ok(engine, {
    type: 'pg_create_object_relationship',
    args: { table: 'item', name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } },
  });
  const own = { owner_id: { _eq: 'X-Svc-User-Id' } };
  const columns = ['id', 'name', 'owner_id', 'parent_id', 'price', 'tags'];
  await ok(engine, { type: 'pg_create_select_permission', args: { table: 'item', role: 'user', permission: { columns, filter: own, allow_aggregations: true } } });
  await ok(engine, {
    type: 'pg_create_insert_permission',
    args: { table: 'item', role: 'user', permission: { columns: ['name', 'price', 'tags', 'parent_id'], check: own, set: { owner_id: 'X-Svc-User-Id' } } },
  });
  await ok(engine, { type: 'pg_create_update_permission', args: { table: 'item', role: 'user', permission: { columns: ['name', 'price', 'tags'], filter: own, check: own } } });
  await ok(engine, { type: 'pg_create_delete_permission', args: { table: 'item', role: 'user', permission: { filter: own } } });
}

/** An engine child process that a test kills with SIGKILL (and starts again on the same data). */
export interface KillableEngine extends EngineProcess {
  kill(): Promise<void>;
}

/** Starts the engine from the sources with the admin secret, on loopback, quiet; env adds to it. */
export async function spawnKillableEngine(env: Record<string, string>): Promise<KillableEngine> {
  const base: NodeJS.ProcessEnv = { ...process.env, SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: ADMIN_SECRET, SVC_GRAPHQL_LOG_LEVEL: 'warn' };
  if (!('SVC_GRAPHQL_DATABASE_URL' in env)) delete base['SVC_GRAPHQL_DATABASE_URL'];
  const engine = await spawnEngine({ ...base, ...env }, ['serve'], 90_000);
  const { child } = engine;
  return {
    ...engine,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
