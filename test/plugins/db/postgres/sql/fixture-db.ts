/**
 * A throwaway sample database for compiler tests: authors, their articles, comments on those,
 * an enum-like status table, jsonb, array, bigint/numeric/float columns and NULLs in most
 * columns. Created under a random name and dropped by `drop()`.
 *
 * Server: SVC_TEST_DATABASE_URL, else postgres@127.0.0.1:5432.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FixtureDb {
  readonly name: string;
  readonly client: pg.Client;
  /** Plain SQL, for computing expected results independently of the compiler. */
  rows<T = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

const SCHEMA = `
CREATE TABLE article_status (value text PRIMARY KEY, comment text);
CREATE TABLE author (
  id serial PRIMARY KEY, name text NOT NULL, email text, age int, is_active boolean,
  rating numeric, balance bigint, score float8, tags text[], profile jsonb, created_at timestamptz
);
CREATE TABLE article (
  id serial PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL,
  body text, rating int, status text REFERENCES article_status(value), published_at timestamptz,
  metadata jsonb, featured boolean
);
CREATE TABLE comment (
  id serial PRIMARY KEY, article_id int NOT NULL REFERENCES article(id), author_id int REFERENCES author(id),
  body text, likes int
);
INSERT INTO article_status VALUES ('draft', 'Draft'), ('published', 'Published'), ('archived', NULL);
INSERT INTO author (name, email, age, is_active, rating, balance, score, tags, profile, created_at) VALUES
  ('Alice', 'alice@example.com', 30, true, 4.5, 9007199254740993, 1.5, '{a,b}', '{"city":"Paris","langs":["en","fr"],"admin":true}', '2020-01-01T00:00:00Z'),
  ('Bob', NULL, 25, false, 3.25, -5, NULL, '{b}', '{"city":"Berlin","langs":["de"]}', '2021-01-01T00:00:00Z'),
  ('Carol', 'carol@example.org', NULL, true, NULL, 0, 2.75, NULL, NULL, NULL),
  ('O''Brien \\ Dan', 'dan@example.com', 41, NULL, 10, 123, -0.5, '{}', '{"city":"Dublin"}', '2022-06-01T12:00:00Z'),
  ('Eve', 'eve@EXAMPLE.com', 30, true, 2, 7, 3, '{c,a}', '{"langs":[]}', '2023-01-01T00:00:00Z');
INSERT INTO article (author_id, title, body, rating, status, published_at, metadata, featured) VALUES
  (1, 'Alpha', 'first body', 5, 'published', '2024-01-01T00:00:00Z', '{"tags":["x"],"views":10}', true),
  (1, 'Beta', NULL, 3, 'draft', NULL, NULL, false),
  (1, 'Gamma', 'gamma body', NULL, 'published', '2024-03-01T00:00:00Z', '{"views":3}', NULL),
  (2, 'alpha two', 'b', 4, 'published', '2024-02-01T00:00:00Z', '{"tags":["y","x"]}', true),
  (2, 'Delta', 'd', 1, 'archived', '2023-12-01T00:00:00Z', '{}', false),
  (3, 'Epsilon', 'e', 5, NULL, '2024-05-01T00:00:00Z', '{"views":100}', true),
  (4, 'Zeta_%', 'percent', 2, 'published', '2024-04-01T00:00:00Z', NULL, NULL),
  (5, 'Eta', NULL, 5, 'draft', '2024-06-01T00:00:00Z', '{"tags":[]}', false),
  (5, 'Theta', 'th', 4, 'published', '2024-06-01T00:00:00Z', '{"views":10}', true),
  (5, 'Iota', 'io', 3, 'published', '2024-07-01T00:00:00Z', NULL, true);
INSERT INTO comment (article_id, author_id, body, likes) VALUES
  (1, 2, 'nice', 3), (1, 3, 'great', NULL), (1, 5, 'meh', 0), (2, 1, 'self', 1), (4, 1, 'reply', 7),
  (4, 2, NULL, 2), (6, 1, 'wow', 10), (9, 4, 'ok', 1), (9, 5, 'fine', 4), (9, 2, 'last', NULL), (10, 3, 'hmm', 6);
`;

function clientConfig(database?: string): pg.ClientConfig {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) return { host: '127.0.0.1', port: 5432, user: 'postgres', database: database ?? 'postgres' };
  if (database === undefined) return { connectionString: url };
  // pg lets the URL win over a separate `database`, so the URL itself is rewritten.
  const u = new URL(url);
  u.pathname = '/' + database;
  return { connectionString: u.toString() };
}

export async function createFixtureDb(): Promise<FixtureDb> {
  const name = 'svc_sqltest_' + randomBytes(6).toString('hex');
  const admin = new pg.Client(clientConfig());
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const client = new pg.Client(clientConfig(name));
  await client.connect();
  await client.query(SCHEMA);
  return {
    name,
    client,
    async rows<T>(sql: string, values?: unknown[]): Promise<T[]> {
      return (await client.query(sql, values)).rows as T[];
    },
    async drop(): Promise<void> {
      await client.end();
      const a = new pg.Client(clientConfig());
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
