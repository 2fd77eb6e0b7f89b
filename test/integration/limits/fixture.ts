/**
 * The read-API sample schema plus a `user` role (own rows of author) for the allow-list, REST
 * and API-limit tests.
 */
import { metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import type { ServerConfig } from '../../../core/config/types.js';

export const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };
export const EDITOR = { 'x-svc-role': 'editor' };

export async function startLimitsFixture(prefix: string, config: Partial<ServerConfig> = {}): Promise<ReadApiFixture> {
  const f = await startReadApiFixture(prefix, config);
  const permission = (role: string) => ({
    type: 'pg_create_select_permission',
    args: { table: 'author', role, permission: { columns: ['id', 'name'], filter: {} } },
  });
  const res = await metadata(f.engine, {
    type: 'bulk',
    args: [
      permission('user'),
      permission('editor'),
      { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title'], filter: {} } } },
    ],
  });
  if (res.status !== 200) throw new Error(`permissions failed: ${JSON.stringify(res.body)}`);
  return f;
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
