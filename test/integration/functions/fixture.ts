/**
 * The read-API sample schema plus SQL functions: tracked functions (a search, one with defaults,
 * one taking the session, one returning a single row, VOLATILE ones), computed-field functions
 * (`author.full_name`, `author.top_articles(n)`, one taking the session), and functions that
 * must be refused. Everything runs against a real engine on a real PostgreSQL.
 */
import type { Engine } from '../../../core/engine.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { createTestDatabase } from '../../helpers/database.js';
import { call, graphql, metadata, startTestEngine, type CallResult } from '../../helpers/engine.js';
import { SCHEMA_SQL, TRACK_BULK, type ReadApiFixture } from '../read-api/fixture.js';

export const FUNCTIONS_SQL = `
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
COMMENT ON FUNCTION search_articles(text) IS 'articles whose title matches';

CREATE FUNCTION articles_rated(min_rating int DEFAULT 0, max_rating int DEFAULT 5) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE rating BETWEEN min_rating AND max_rating
$$ LANGUAGE sql STABLE;

CREATE FUNCTION rated_between(int, int DEFAULT 5) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE rating BETWEEN $1 AND $2
$$ LANGUAGE sql IMMUTABLE;

CREATE FUNCTION my_articles(svc_session json) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = (svc_session->>'x-svc-user-id')::int
$$ LANGUAGE sql STABLE;

CREATE FUNCTION best_article(aid int) RETURNS article AS $$
  SELECT * FROM article WHERE author_id = aid ORDER BY rating DESC NULLS LAST, id LIMIT 1
$$ LANGUAGE sql STABLE;

CREATE FUNCTION publish_article(aid int) RETURNS SETOF article AS $$
  UPDATE article SET is_published = true WHERE id = aid RETURNING *
$$ LANGUAGE sql VOLATILE;

-- Reads the session the mutation transaction set, as triggers do.
CREATE FUNCTION touch_own_articles() RETURNS SETOF article AS $$
  UPDATE article SET views = views + 1
  WHERE author_id = (current_setting('svc.user', true)::json->>'x-svc-user-id')::int RETURNING *
$$ LANGUAGE sql VOLATILE;

CREATE FUNCTION full_name(author) RETURNS text AS $$
  SELECT $1.name || coalesce(' <' || $1.email || '>', '')
$$ LANGUAGE sql STABLE;

CREATE FUNCTION top_articles(author_row author, n int) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id ORDER BY rating DESC NULLS LAST, id LIMIT n
$$ LANGUAGE sql STABLE;
COMMENT ON FUNCTION top_articles(author, int) IS 'best articles first';

CREATE FUNCTION greeting(svc jsonb, who author) RETURNS text AS $$
  SELECT 'hello ' || who.name || ' from ' || coalesce(svc->>'x-svc-role', '?')
$$ LANGUAGE sql STABLE;

-- Functions the operations must refuse.
CREATE FUNCTION dup(int) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION dup(text) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION count_articles() RETURNS int AS $$ SELECT count(*)::int FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION vsum(VARIADIC ids int[]) RETURNS SETOF article AS $$ SELECT * FROM article WHERE id = ANY(ids) $$ LANGUAGE sql STABLE;
CREATE TABLE untracked_t (id int);
CREATE FUNCTION list_untracked() RETURNS SETOF untracked_t AS $$ SELECT * FROM untracked_t $$ LANGUAGE sql STABLE;
CREATE FUNCTION text_session(s text) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION volatile_name(author) RETURNS text AS $$ SELECT $1.name $$ LANGUAGE sql VOLATILE;
CREATE FUNCTION hello() RETURNS text AS $$ SELECT 'hello' $$ LANGUAGE sql STABLE;
CREATE FUNCTION fetch_articles(search text, author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id AND title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
`;

type Answer = Promise<CallResult<any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface FunctionsFixture extends ReadApiFixture {
  meta(body: unknown): Answer;
  query(body: unknown): Answer;
  gql(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>): Answer;
}

export async function startFunctionsFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<FunctionsFixture> {
  const db = await createTestDatabase(prefix, SCHEMA_SQL + FUNCTIONS_SQL);
  let engine: Engine | undefined;
  try {
    engine = await startTestEngine({ databaseUrl: db.url, ...config });
    const res = await metadata(engine, TRACK_BULK);
    if (res.status !== 200) throw new Error(`tracking failed: ${JSON.stringify(res.body)}`);
  } catch (e) {
    await engine?.close();
    await db.drop();
    throw e;
  }
  const e = engine;
  return {
    db,
    engine: e,
    meta: (body) => metadata(e, body),
    query: (body) => call(e, '/v1/query', body),
    gql: (query, headers = {}, variables) => graphql(e, query, variables, headers),
    close: async () => {
      await e.close();
      await db.drop();
    },
  };
}

/** Headers acting as `role`, with a user id when given. */
export const as = (role: string, userId?: number): Record<string, string> => ({
  'x-svc-role': role,
  ...(userId === undefined ? {} : { 'x-svc-user-id': String(userId) }),
});

/** The data of a GraphQL answer, failing loudly on errors. */
export function dataOf(res: { body: { data?: unknown; errors?: unknown } }): any { // eslint-disable-line @typescript-eslint/no-explicit-any
  if (res.body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}

/** The single error of a GraphQL answer. */
export function errorOf(res: { body: { errors?: Array<{ message: string; extensions: { code: string; path: string } }> } }): {
  message: string;
  code: string;
  path: string;
} {
  const e = res.body.errors?.[0];
  if (!e) throw new Error(`expected an error, got ${JSON.stringify(res.body)}`);
  return { message: e.message, code: e.extensions.code, path: e.extensions.path };
}

/** A successful metadata answer, failing loudly otherwise. */
export async function ok(p: Promise<{ status: number; body: unknown }>): Promise<void> {
  const res = await p;
  if (res.status !== 200) throw new Error(`expected success, got ${res.status}: ${JSON.stringify(res.body)}`);
}
