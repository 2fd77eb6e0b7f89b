/**
 * A running engine over a fresh database for the Relay tests: authors, their articles (a `user`
 * role sees only its own articles, a `capped` role at most 2 rows, a `no_id` role not the
 * primary key), a table without a primary key, and helpers to post to `/v1beta1/relay`.
 */
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { call, metadata, startTestEngine, type CallResult } from '../../helpers/engine.js';
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';

export const ADMIN_SECRET = 'relay-secret';
export const ADMIN = { 'x-svc-admin-secret': ADMIN_SECRET };
export const asRole = (role: string, userId?: string): Record<string, string> => ({
  ...ADMIN,
  'x-svc-role': role,
  ...(userId !== undefined ? { 'x-svc-user-id': userId } : {}),
});

export const SETUP_SQL = `
  CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
  CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), rating int);
  CREATE TABLE tag (label text NOT NULL);
  CREATE TABLE pair (a int, b text, v int, PRIMARY KEY (a, b));
  INSERT INTO pair VALUES (1, 'x', 10), (1, 'y', 11);
  CREATE FUNCTION titled(prefix text) RETURNS SETOF article LANGUAGE sql STABLE AS $$ SELECT * FROM article WHERE title LIKE prefix || '%' $$;
  INSERT INTO author (name) VALUES ('Ada'), ('Alan'), ('Grace');
  INSERT INTO article (title, author_id, rating) VALUES
    ('a1', 1, 5), ('a2', 1, NULL), ('a3', 1, 3), ('b1', 2, 4), ('b2', 2, 5), ('c1', 3, 1);
  INSERT INTO tag (label) VALUES ('x');
`;

export interface RelayFixture {
  db: TestDatabase;
  engine: Engine;
  wsUrl: string;
  relay<T = any>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<CallResult<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function startRelayFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<RelayFixture> {
  const db = await createTestDatabase(prefix, SETUP_SQL);
  let engine: Engine | undefined;
  try {
    engine = await startTestEngine({ databaseUrl: db.url, adminSecret: ADMIN_SECRET, ...config });
    const userArticles = { columns: ['id', 'title', 'author_id', 'rating'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } };
    const res = await metadata(
      engine,
      {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'author' } },
          { type: 'pg_track_table', args: { table: 'article' } },
          { type: 'pg_track_table', args: { table: 'tag' } },
          { type: 'pg_track_table', args: { table: 'pair' } },
          { type: 'pg_track_function', args: { function: 'titled' } },
          { type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
          {
            type: 'pg_create_array_relationship',
            args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
          },
          { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: userArticles } },
          { type: 'pg_create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
          { type: 'pg_create_select_permission', args: { table: 'article', role: 'capped', permission: { columns: '*', filter: {}, limit: 2 } } },
          { type: 'pg_create_select_permission', args: { table: 'author', role: 'no_id', permission: { columns: ['name'], filter: {} } } },
        ],
      },
      ADMIN,
    );
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  } catch (e) {
    await engine?.close();
    await db.drop();
    throw e;
  }
  const e = engine;
  return {
    db,
    engine: e,
    wsUrl: `ws://127.0.0.1:${e.port}/v1beta1/relay`,
    relay: (query, variables, headers = ADMIN) => call(e, '/v1beta1/relay', { query, ...(variables ? { variables } : {}) }, headers),
    async close() {
      await e.close();
      await db.drop();
    },
  };
}

/** The reference engine's node id of a row: base64 of `[1, "<schema>", "<table>", <pk>...]`. */
export const nodeId = (table: string, ...pk: unknown[]): string =>
  Buffer.from(JSON.stringify([1, 'public', table, ...pk]).replace(/,/g, ', '), 'utf8').toString('base64');

/** A cursor as the reference writes it: base64 of `json_build_object` text (`{"id" : 1}`). */
export const cursor = (values: Record<string, unknown>): string => Buffer.from(jsonBuildObject(values), 'utf8').toString('base64');

const jsonBuildObject = (values: Record<string, unknown>): string =>
  `{${Object.entries(values)
    .map(([k, v]) => `${JSON.stringify(k)} : ${typeof v === 'object' && v !== null ? jsonBuildObject(v as Record<string, unknown>) : JSON.stringify(v)}`)
    .join(', ')}}`;
