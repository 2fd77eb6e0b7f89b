/**
 * The read-API sample schema with select permissions for a few roles, on a real engine whose
 * admin secret is unset, so `X-Svc-Role` and `X-Svc-User-Id` headers make the session:
 *
 * - `user`: their own author row (id, name, email); their own articles (no body, views, score,
 *   published_at), with aggregations; comments on their own articles (through a relationship).
 * - `reader`: published articles (id, title, rating), at most 2 rows, no aggregations; every author
 *   (id, name) as long as a comment by the reader exists (`_exists`).
 * - `nopk`: author names only, so no `author_by_pk`.
 * - any other role (`nobody`): nothing at all.
 */
import { graphql, metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';

const USER_ID = 'X-Svc-User-Id';

const select = (table: string, role: string, permission: Record<string, unknown>) => ({
  type: 'pg_create_select_permission',
  args: { source: 'default', table, role, permission },
});

export const PERMISSIONS_BULK = {
  type: 'bulk',
  args: [
    select('author', 'user', { columns: ['id', 'name', 'email'], filter: { id: { _eq: USER_ID } } }),
    select('article', 'user', {
      columns: ['id', 'title', 'author_id', 'rating', 'is_published'],
      filter: { author_id: { _eq: USER_ID } },
      allow_aggregations: true,
    }),
    select('comment', 'user', { columns: ['id', 'body', 'article_id'], filter: { article: { author_id: { _eq: USER_ID } } } }),
    select('article', 'reader', { columns: ['id', 'title', 'rating', 'author_id'], filter: { is_published: { _eq: true } }, limit: 2 }),
    select('author', 'reader', {
      columns: ['id', 'name'],
      filter: { _exists: { _table: { schema: 'public', name: 'comment' }, _where: { author_id: { _eq: USER_ID } } } },
    }),
    select('author', 'nopk', { columns: ['name'], filter: {} }),
  ],
};

export async function startPermissionsFixture(prefix: string): Promise<ReadApiFixture> {
  const f = await startReadApiFixture(prefix);
  const res = await metadata(f.engine, PERMISSIONS_BULK);
  if (res.status !== 200) {
    await f.close();
    throw new Error(`creating permissions failed: ${JSON.stringify(res.body)}`);
  }
  return f;
}

/** Session headers of a role (and user id); no admin secret is configured. */
export const as = (role: string, userId?: number | string): Record<string, string> =>
  userId === undefined ? { 'x-svc-role': role } : { 'x-svc-role': role, 'x-svc-user-id': String(userId) };

/** Runs a query as a role and returns the whole body. */
export async function queryAs(f: ReadApiFixture, headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  const res = await graphql(f.engine, query, variables, headers);
  if (res.status !== 200) throw new Error(`unexpected HTTP ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { data?: any; errors?: Array<{ message: string; extensions: { code: string; path: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
