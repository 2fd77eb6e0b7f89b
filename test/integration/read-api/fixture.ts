/**
 * The sample schema of the read-API tests: author → article → comment with foreign keys, tracked
 * and related through the metadata API of a real engine on a real PostgreSQL.
 */
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { metadata, startTestEngine } from '../../helpers/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';

export const SCHEMA_SQL = `
CREATE TABLE author (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  rating int,
  born date,
  meta jsonb,
  tags text[]
);
COMMENT ON TABLE author IS 'people who write';
COMMENT ON COLUMN author.name IS 'full name';
CREATE TABLE article (
  id serial PRIMARY KEY,
  author_id int NOT NULL REFERENCES author(id),
  title text NOT NULL,
  body text,
  rating int,
  published_at timestamptz,
  is_published boolean NOT NULL DEFAULT false,
  views bigint NOT NULL DEFAULT 0,
  score numeric(6,2)
);
CREATE INDEX ON article(author_id);
CREATE TABLE comment (
  id serial PRIMARY KEY,
  article_id int NOT NULL REFERENCES article(id),
  author_id int REFERENCES author(id),
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT '2024-01-01T00:00:00Z'
);

INSERT INTO author (name, email, rating, born, meta, tags) VALUES
  ('Ada Lovelace', 'ada@example.com', 5, '1815-12-10', '{"lang": "en", "langs": ["en", "fr"], "level": 3}', '{math,poetry}'),
  ('Alan Turing', 'alan@example.com', 4, '1912-06-23', '{"lang": "en", "level": 2}', '{math}'),
  ('Grace Hopper', NULL, 5, '1906-12-09', '{"lang": "en"}', '{navy,cobol}'),
  ('Edsger Dijkstra', 'ewd@example.nl', 3, NULL, NULL, '{}'),
  ('Barbara Liskov', 'liskov@example.com', NULL, '1939-11-07', '{"lang": "en", "level": 1}', NULL);

INSERT INTO article (author_id, title, body, rating, published_at, is_published, views, score) VALUES
  (1, 'Notes on the Analytical Engine', 'the engine weaves algebraic patterns', 5, '1843-09-01T00:00:00Z', true, 9007199254740993, 99.50),
  (1, 'Poetical Science', 'imagination is the discovering faculty', 4, '1844-01-01T00:00:00Z', true, 120, 80.25),
  (2, 'On Computable Numbers', 'numbers computable by finite means', 5, '1936-11-12T00:00:00Z', true, 5000, 97.00),
  (2, 'Computing Machinery and Intelligence', 'can machines think?', 4, '1950-10-01T00:00:00Z', true, 7000, 95.10),
  (2, 'Unpublished draft', NULL, NULL, NULL, false, 0, NULL),
  (3, 'The Education of a Computer', 'on compilers', 4, '1952-05-01T00:00:00Z', true, 300, 88.00),
  (4, 'Go To Statement Considered Harmful', 'GOTO is harmful', 5, '1968-03-01T00:00:00Z', true, 8000, 96.40),
  (4, 'A Note on Two Problems', 'shortest paths', 5, '1959-01-01T00:00:00Z', true, 6500, 98.00),
  (4, 'EWD 1036', 'On the cruelty of really teaching computing science', 3, '1988-12-01T00:00:00Z', true, 900, 70.00);

INSERT INTO comment (article_id, author_id, body, created_at) VALUES
  (1, 2, 'visionary', '2024-01-02T00:00:00Z'),
  (1, 3, 'agreed', '2024-01-03T00:00:00Z'),
  (3, 4, 'fundamental', '2024-01-04T00:00:00Z'),
  (3, 1, 'remarkable', '2024-01-05T00:00:00Z'),
  (3, NULL, 'anonymous praise', '2024-01-06T00:00:00Z'),
  (7, 2, 'controversial', '2024-01-07T00:00:00Z'),
  (8, 5, 'elegant', '2024-01-08T00:00:00Z');
`;

export const TRACK_BULK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'author' } } },
    { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'article' } } },
    { type: 'pg_track_table', args: { source: 'default', table: 'comment' } },
    { type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', columns: ['author_id'] } } },
    },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'article', name: 'comments', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'comment' }, column: 'article_id' } } },
    },
    { type: 'pg_create_object_relationship', args: { table: 'comment', name: 'article', using: { foreign_key_constraint_on: ['article_id'] } } },
    {
      type: 'pg_create_object_relationship',
      args: {
        table: 'comment',
        name: 'commenter',
        using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } },
      },
    },
  ],
};

export interface ReadApiFixture {
  db: TestDatabase;
  engine: Engine;
  close(): Promise<void>;
}

export async function startReadApiFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<ReadApiFixture> {
  const db = await createTestDatabase(prefix, SCHEMA_SQL);
  const engine = await startTestEngine({ databaseUrl: db.url, ...config });
  const res = await metadata(engine, TRACK_BULK);
  if (res.status !== 200) throw new Error(`tracking failed: ${JSON.stringify(res.body)}`);
  return {
    db,
    engine,
    close: async () => {
      await engine.close();
      await db.drop();
    },
  };
}

/** The data of a successful GraphQL response, failing loudly on errors. */
export function dataOf(res: { status: number; body: { data?: unknown; errors?: unknown } }): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (res.body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}
