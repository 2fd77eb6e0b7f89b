/**
 * The docs/plugins.md tutorial kind (test/fixtures/memory-kind) as a test database: a JSON file of
 * tables and rows, read by a real kind through the SDK. With `bootTestEngine` it lets metadata
 * plugin tests go through HTTP with no database server and no socket.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import memoryKind from '../fixtures/memory-kind/index.js';
import adminSecret from '../../plugins/auth/admin-secret/index.js';
import apiMetadata from '../../plugins/api/metadata/index.js';
import type { AnyPlugin } from '../../core/plugin.js';
import { bootTestEngine, type TestEngine } from './inject.js';

export const LIBRARY = {
  tables: [
    {
      schema: 'public',
      name: 'author',
      columns: { id: 'integer', name: 'text' },
      primary_key: ['id'],
      rows: [
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bo' },
      ],
    },
    {
      schema: 'public',
      name: 'book',
      columns: { id: 'integer', title: 'text', author_id: 'integer', pages: 'integer' },
      primary_key: ['id'],
      foreign_keys: [{ columns: ['author_id'], references: { table: 'author', columns: ['id'] } }],
      rows: [
        { id: 10, title: 'Tide', author_id: 1, pages: 120 },
        { id: 11, title: 'Moss', author_id: 2, pages: 80 },
      ],
    },
  ],
};

export const ADMIN_SECRET = 'secret';

/** A file holding `data` (LIBRARY by default), for a memory source's configuration. */
export function memoryDataFile(data: unknown = LIBRARY): string {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-core3-memory-')), 'library.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

/**
 * An engine (no socket, metadata in memory) with the memory kind, the admin secret, the metadata
 * API and `plugins`. `admin(body)` posts to /v1/metadata with the admin secret.
 */
export async function memoryKindEngine(...plugins: AnyPlugin[]): Promise<TestEngine & { admin<T = any>(body: unknown): Promise<{ status: number; body: T }> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const engine = await bootTestEngine({ plugins: [memoryKind, adminSecret, apiMetadata, ...plugins], config: { adminSecret: ADMIN_SECRET } });
  return Object.assign(engine, {
    admin: <T>(body: unknown) => engine.inject<T>({ url: '/v1/metadata', headers: { 'x-svc-admin-secret': ADMIN_SECRET }, body }),
  });
}
