/**
 * The legacy DML tests' engine: the permissions fixture (read-API schema, select permissions of
 * `user`, `reader`, `nopk`; no admin secret, so `X-Svc-Role` picks the role) plus write
 * permissions for `user`:
 *
 * - article insert: own rows only (`check` author_id = user), columns author_id, title, body,
 *   rating, is_published;
 * - article update: title, body, rating of own rows, `check` rating <= 5, preset is_published = false;
 * - article delete: own unpublished rows;
 * - comment insert: article_id, body, author_id preset to the user.
 */
import { call, metadata } from '../../helpers/engine.js';
import { startPermissionsFixture } from '../permissions/fixture.js';
import type { ReadApiFixture } from '../read-api/fixture.js';

const USER_ID = 'X-Svc-User-Id';

const perm = (kind: string, table: string, role: string, permission: Record<string, unknown>) => ({
  type: `pg_create_${kind}_permission`,
  args: { table, role, permission },
});

export const WRITE_PERMISSIONS = {
  type: 'bulk',
  args: [
    perm('insert', 'article', 'user', {
      check: { author_id: { _eq: USER_ID } },
      columns: ['author_id', 'title', 'body', 'rating', 'is_published'],
    }),
    perm('update', 'article', 'user', {
      columns: ['title', 'body', 'rating'],
      filter: { author_id: { _eq: USER_ID } },
      check: { rating: { _lte: 5 } },
      set: { is_published: false },
    }),
    perm('delete', 'article', 'user', { filter: { author_id: { _eq: USER_ID }, is_published: { _eq: false } } }),
    perm('insert', 'comment', 'user', { check: {}, columns: ['article_id', 'body'], set: { author_id: USER_ID } }),
  ],
};

export async function startLegacyFixture(prefix: string): Promise<ReadApiFixture> {
  const f = await startPermissionsFixture(prefix);
  const res = await metadata(f.engine, WRITE_PERMISSIONS);
  if (res.status !== 200) {
    await f.close();
    throw new Error(`creating write permissions failed: ${JSON.stringify(res.body)}`);
  }
  return f;
}

/** POST /v1/query; no headers means admin (no admin secret is configured). */
export const query = (f: ReadApiFixture, body: unknown, headers: Record<string, string> = {}) =>
  call<any>(f.engine, '/v1/query', body, headers); // eslint-disable-line @typescript-eslint/no-explicit-any

export const user = (id: number): Record<string, string> => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });
