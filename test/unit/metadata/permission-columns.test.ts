import { expect } from 'chai';
import { permissionColumnDependents } from '../../../core/metadata/permission-columns.js';
import type { MetadataDocument, TableMetadata } from '../../../core/metadata/types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

const doc = (tables: TableMetadata[]): MetadataDocument => ({
  version: 3,
  sources: [{ name: 'default', kind: 'postgres', tables, configuration: {} }],
});

describe('permissionColumnDependents', () => {
  const draft = doc([
    {
      table: author,
      select_permissions: [
        { role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Svc-User-Id' } } } },
        { role: 'star', permission: { columns: '*', filter: {} } },
        { role: 'named', permission: { columns: ['id'], filter: { $or: [{ name: { _like: 'A%' } }] } } },
      ],
      insert_permissions: [{ role: 'user', permission: { check: {}, set: { bio: 'x-svc-bio' }, columns: ['name'] } }],
    },
    {
      table: article,
      object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      select_permissions: [
        { role: 'user', permission: { columns: ['id'], filter: { author: { name: { _eq: 'x' } } } } },
        { role: 'ceq', permission: { columns: ['id'], filter: { _exists: { _table: 'author', _where: { id: { _ceq: ['$', 'author_id'] } } } } } },
        { role: 'other', permission: { columns: ['title'], filter: { title: { _eq: 'name' } } } },
      ],
    },
  ]);
  const describe = (column: string, table = author) =>
    permissionColumnDependents(draft, 'default', table, column, authorArticleCatalog()).map((d) => [d.description, d.reasons]);

  it('finds named, preset and compared uses, through relationships and _exists, but not `*`', () => {
    expect(describe('name')).to.deep.equal([
      ['permission author.named.select in source "default"', ['on_type']],
      ['permission author.user.insert in source "default"', ['untyped']],
      ['permission article.user.select in source "default"', ['on_type']],
    ]);
    expect(describe('id')).to.deep.equal([
      ['permission author.user.select in source "default"', ['untyped', 'session_variable']],
      ['permission author.named.select in source "default"', ['untyped']],
      ['permission article.ceq.select in source "default"', ['session_variable']],
    ]);
    expect(describe('bio')).to.deep.equal([
      ['permission author.user.insert in source "default"', ['session_variable']],
    ]);
    expect(describe('author_id', article)).to.deep.equal([['permission article.ceq.select in source "default"', ['on_type']]]);
    expect(describe('published_on', article)).to.deep.equal([]);
    expect(permissionColumnDependents(draft, 'nope', author, 'id')).to.deep.equal([]);
  });
});
