import { expect } from 'chai';
import {
  relationshipDependents,
  relationshipTarget,
  reportDependent,
  sourceDependents,
  tableDependents,
} from '../../../core/metadata/dependencies.js';
import type { MetadataDocument } from '../../../core/metadata/types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

function doc(): MetadataDocument {
  return {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: {},
        tables: [
          {
            table: author,
            array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
            select_permissions: [
              { role: 'agg', permission: { columns: '*', filter: { articles_aggregate: { count: { predicate: { _gt: 1 }, filter: { title: { _eq: 'x' } } } } } } },
            ],
          },
          {
            table: article,
            object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
            delete_permissions: [{ role: 'x', permission: { filter: { _not: { _exists: { _table: { schema: 'public', name: 'author' }, _where: {} } } } } }],
            insert_permissions: [{ role: 'w', permission: { columns: '*', check: { author: { id: { _eq: 1 } } } } }],
          },
        ],
      },
      {
        name: 'other',
        kind: 'postgres',
        configuration: {},
        tables: [
          {
            table: author,
            remote_relationships: [{ name: 'twin', definition: { to_source: { source: 'default', table: { schema: 'public', name: 'author' } } } }],
          },
        ],
      },
    ],
  };
}

describe('metadata dependencies', () => {
  it('finds relationship targets from their definitions or the catalog', () => {
    const c = authorArticleCatalog();
    expect(relationshipTarget(article, 'object', { name: 'a', using: { foreign_key_constraint_on: 'author_id' } }, c)).to.deep.equal(author);
    expect(relationshipTarget(article, 'object', { name: 'a', using: { foreign_key_constraint_on: 'author_id' } }, undefined)).to.equal(null);
    expect(relationshipTarget(author, 'array', { name: 'a', using: { foreign_key_constraint_on: { table: 'article', columns: ['author_id'] } } }, c)).to.deep.equal(article);
    expect(relationshipTarget(author, 'object', { name: 'a', using: { manual_configuration: { remote_table: { schema: 's', name: 't' }, column_mapping: {} } } }, c)).to.deep.equal({ schema: 's', name: 't' });
  });

  it('follows aggregate predicates and relationships into permissions', () => {
    const d = doc();
    const deps = relationshipDependents(d.sources[0]!, author, 'articles', authorArticleCatalog());
    expect(deps.map(reportDependent)).to.deep.equal(['permission author.agg.select in source "default"']);
  });

  it('lists what needs a table: relationships, permissions (also through _exists) and remote relationships', () => {
    const d = doc();
    const deps = tableDependents(d, d.sources[0]!, author, authorArticleCatalog());
    expect(deps.map(reportDependent)).to.deep.equal([
      'relationship article.author in source "default"',
      'permission article.w.insert in source "default"',
      'permission article.x.delete in source "default"',
      'remote relationship author.twin in source "other"',
    ]);
  });

  it('lists remote relationships of other sources pointing into a source', () => {
    expect(sourceDependents(doc(), 'default').map(reportDependent)).to.deep.equal(['remote relationship author.twin in source "other"']);
    expect(sourceDependents(doc(), 'other')).to.deep.equal([]);
  });
});
