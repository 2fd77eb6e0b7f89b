/**
 * The bench dataset, generated in the database (nothing downloaded) and the same on every run:
 * 10k authors, 100k articles (exactly 10 per author, ratings 1-5, ~200-byte bodies, distinct
 * publication times), 300k comments (exactly 3 per article).
 */
import pg from 'pg';

export const AUTHORS = 10_000;
export const ARTICLES = 100_000;
export const COMMENTS = 300_000;

// Multipliers coprime with the table sizes spread each author's articles (and each article's
// comments) over the id range, so related rows are not physically adjacent.
export const DATASET_SQL = `
DROP TABLE IF EXISTS comment, article, author CASCADE;
CREATE TABLE author (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE TABLE article (
  id serial PRIMARY KEY,
  author_id int NOT NULL REFERENCES author(id),
  title text NOT NULL,
  body text NOT NULL,
  rating int NOT NULL,
  published_at timestamptz NOT NULL
);
CREATE TABLE comment (
  id serial PRIMARY KEY,
  article_id int NOT NULL REFERENCES article(id),
  author_id int NOT NULL REFERENCES author(id),
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
INSERT INTO author (name, email, created_at)
  SELECT 'Author ' || i, 'author' || i || '@example.com', timestamptz '2020-01-01 00:00:00+00' + i * interval '1 hour'
  FROM generate_series(1, ${AUTHORS}) i;
INSERT INTO article (author_id, title, body, rating, published_at)
  SELECT (i * 7919) % ${AUTHORS} + 1, 'Article ' || i, 'Body of article ' || i || ': ' || repeat(md5(i::text), 6),
         (i + i / ${AUTHORS}) % 5 + 1, timestamptz '2021-01-01 00:00:00+00' + i * interval '1 minute'
  FROM generate_series(1, ${ARTICLES}) i;
INSERT INTO comment (article_id, author_id, body, created_at)
  SELECT (i::bigint * 104729) % ${ARTICLES} + 1, i % ${AUTHORS} + 1, 'Comment ' || i || ' ' || md5(i::text),
         timestamptz '2022-01-01 00:00:00+00' + i * interval '1 second'
  FROM generate_series(1, ${COMMENTS}) i;
CREATE INDEX article_author_id_idx ON article(author_id);
CREATE INDEX article_published_at_idx ON article(published_at);
CREATE INDEX comment_article_id_idx ON comment(article_id);
CREATE INDEX comment_author_id_idx ON comment(author_id);
`;

export async function loadDataset(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(DATASET_SQL);
    // VACUUM sets the visibility map, so index-only scans behave as on a settled database.
    await client.query('VACUUM ANALYZE author, article, comment');
  } finally {
    await client.end();
  }
}

/**
 * Removes rows the insert benchmark (Q6) added and restores names the update benchmark (Q8)
 * changed, so every read query sees the generated data.
 */
export async function resetInserted(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DELETE FROM article WHERE id > ${ARTICLES}`);
    await client.query(`UPDATE author SET name = 'Author ' || id WHERE name <> 'Author ' || id`);
    await client.query('VACUUM ANALYZE article, author');
  } finally {
    await client.end();
  }
}
