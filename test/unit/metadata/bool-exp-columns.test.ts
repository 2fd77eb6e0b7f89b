import { expect } from 'chai';
import { walkBoolExpColumns, type FieldUse } from '../../../core/metadata/bool-exp-columns.js';
import type { SourceMetadata } from '../../../core/metadata/types.js';
import { authorArticleCatalog } from '../../helpers/catalog.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

const source: SourceMetadata = {
  name: 'default',
  kind: 'postgres',
  configuration: {},
  tables: [
    { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
    { table: article, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
  ],
};

function uses(exp: unknown, table = article): string[] {
  const seen: FieldUse[] = [];
  walkBoolExpColumns(exp, table, { source, catalog: authorArticleCatalog(), visit: (u) => void seen.push(u) });
  return seen.map((u) => `${u.table.name}.${u.field}${u.onType ? ':type' : ''}`);
}

describe('permission expression columns', () => {
  it('marks literal comparisons as type-dependent, session variables and null tests not', () => {
    expect(
      uses({ title: { _eq: 'x' }, id: { _eq: 'X-Svc-User-Id' }, published_on: { _is_null: false }, author_id: 'x-svc-user-id', rating: 3 }),
    ).to.deep.equal(['article.title:type', 'article.id', 'article.published_on', 'article.author_id', 'article.rating:type']);
  });

  it('follows relationships, aggregates, _exists (also spelled $exists) and column operators', () => {
    expect(uses({ author: { name: { _ceq: ['$', 'title'] } } })).to.deep.equal(['author.name', 'article.title:type']);
    expect(uses({ articles_aggregate: { count: { arguments: ['title'], predicate: { _gt: 1 }, filter: { rating: { _gt: 2 } } } } }, author)).to.deep.equal([
      'article.rating:type',
      'article.title',
    ]);
    expect(uses({ $or: [{ $exists: { _table: 'author', _where: { bio: { $eq: 'x' } } } }] })).to.deep.equal(['author.bio:type']);
  });

  it('renames the columns visit asks for, leaving values and other keys alone', () => {
    const renamed = walkBoolExpColumns(
      { author: { id: { _eq: 'id' } }, id: { _cneq: 'author_id' } },
      article,
      { source, catalog: authorArticleCatalog(), visit: (u) => (u.table.name === 'author' && u.field === 'id' ? 'author_id' : u.field === 'author_id' ? 'writer_id' : undefined) },
    );
    expect(renamed).to.deep.equal({ author: { author_id: { _eq: 'id' } }, id: { _cneq: 'writer_id' } });
  });
});
