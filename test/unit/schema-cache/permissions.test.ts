import { expect } from 'chai';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import { catalog, table } from '../../helpers/catalog.js';
import { buildTestCache } from '../../helpers/operation-context.js';

const author = { schema: 'public', name: 'author' };

const doc = (tables: TableMetadata[]): MetadataDocument => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: { connection_info: { database_url: 'postgres://db/x' } } }],
});

describe('schema cache: permissions', () => {
  const meta: TableMetadata = {
    table: author,
    select_permissions: [
      { role: 'user', permission: { columns: ['id', 'email'], filter: { id: { _eq: 'X-Svc-User-Id' } } } },
      { role: 'admin', permission: { columns: '*', filter: {} } },
      { role: 'guest', permission: { columns: ['id'], filter: { email: { _is_null: false } }, limit: 5 } },
    ],
    delete_permissions: [{ role: 'user', permission: { filter: {} } }],
  };

  it('keeps valid permissions, parsed, and reports the others with the reference names and reasons', async () => {
    const cache = await buildTestCache(doc([meta]), { default: catalog(table('author', { columns: ['id:int4', 'email'], pk: ['id'] })) });
    const t = cache.sources.get('default')!.tables.get('public.author')!;
    expect([...t.permissions.select.keys()]).to.deep.equal(['user', 'guest']);
    expect(t.permissions.select.get('guest')).to.deep.equal({ columns: ['id'], filter: { email: { _is_null: false } }, limit: 5 });
    expect([...t.permissions.delete.keys()]).to.deep.equal(['user']);
    expect(cache.inconsistentObjects).to.deep.equal([
      {
        type: 'select_permission',
        name: 'select_permission admin in table author in source default',
        definition: { source: 'default', table: author, role: 'admin', permission: { columns: '*', filter: {} }, comment: null },
        reason: 'Inconsistent object: in table "author": in permission for role "admin": cannot define permission for admin role',
      },
    ]);
  });

  it('reports permissions broken by a database change (a dropped column) and leaves them out', async () => {
    const cache = await buildTestCache(doc([meta]), { default: catalog(table('author', { columns: ['id:int4'], pk: ['id'] })) });
    const t = cache.sources.get('default')!.tables.get('public.author')!;
    expect([...t.permissions.select.keys()]).to.deep.equal([]);
    expect(cache.inconsistentObjects.map((o) => [o.name, o.reason])).to.deep.equal([
      ['select_permission user in table author in source default', 'Inconsistent object: in table "author": in permission for role "user": column "email" does not exist'],
      ['select_permission admin in table author in source default', 'Inconsistent object: in table "author": in permission for role "admin": cannot define permission for admin role'],
      ['select_permission guest in table author in source default', 'Inconsistent object: in table "author": in permission for role "guest": "email" does not exist'],
    ]);
  });

  it('reports a permission whose shape is wrong (e.g. replaced metadata)', async () => {
    const bad = { table: author, select_permissions: [{ role: 'user', permission: { filter: {} } }] } as unknown as TableMetadata;
    const cache = await buildTestCache(doc([bad]), { default: catalog(table('author', { columns: ['id:int4'], pk: ['id'] })) });
    expect(cache.inconsistentObjects.map((o) => o.reason)).to.deep.equal([
      'Inconsistent object: in table "author": in permission for role "user": key "columns" not found',
    ]);
  });
});
