import { expect } from 'chai';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { as, queryAs, startPermissionsFixture } from './fixture.js';

const NO_QUERIES =
  "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

describe('select permissions: enforcement over HTTP (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startPermissionsFixture('perm_select');
  });
  after(async () => f?.close());

  const data = async (headers: Record<string, string>, query: string, variables?: Record<string, unknown>) => {
    const body = await queryAs(f, headers, query, variables);
    if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  const error = async (headers: Record<string, string>, query: string) => {
    const body = await queryAs(f, headers, query);
    expect(body, 'no data may come with the error').to.not.have.property('data');
    expect(body.errors).to.have.length(1);
    return body.errors![0]!;
  };

  it('gives a user only their own rows and the permitted columns', async () => {
    expect(await data(as('user', 1), '{ author { id name email } }')).to.deep.equal({
      author: [{ id: 1, name: 'Ada Lovelace', email: 'ada@example.com' }],
    });
    expect(await data(as('user', 2), '{ article(order_by: {id: asc}) { id title author_id } }')).to.deep.equal({
      article: [
        { id: 3, title: 'On Computable Numbers', author_id: 2 },
        { id: 4, title: 'Computing Machinery and Intelligence', author_id: 2 },
        { id: 5, title: 'Unpublished draft', author_id: 2 },
      ],
    });
    // A user's `where` narrows within the permitted rows, never beyond them.
    expect(await data(as('user', 2), '{ article(where: {author_id: {_eq: 1}}) { id } }')).to.deep.equal({ article: [] });
    expect(await data(as('user', 99), '{ author { id } article { id } }')).to.deep.equal({ author: [], article: [] });
  });

  it('re-applies the target table permission in nested relationships', async () => {
    expect(await data(as('user', 1), '{ author { id articles(order_by: {id: asc}) { id } } }')).to.deep.equal({
      author: [{ id: 1, articles: [{ id: 1 }, { id: 2 }] }],
    });
    // A comment's commenter is another author, outside the user's author permission: null, not leaked.
    const alan = { author: { name: 'Alan Turing' } };
    expect(await data(as('user', 2), '{ comment(order_by: {id: asc}) { id commenter { name } article { author { name } } } }')).to.deep.equal({
      comment: [
        { id: 3, commenter: null, article: alan },
        { id: 4, commenter: null, article: alan },
        { id: 5, commenter: null, article: alan },
      ],
    });
    // reader sees published articles only, also through the relationship (article 5 is a draft).
    const nested = await data(as('reader', 3), '{ author(where: {id: {_eq: 2}}) { id articles(order_by: {id: asc}) { id } } }');
    expect(nested).to.deep.equal({ author: [{ id: 2, articles: [{ id: 3 }, { id: 4 }] }] });
  });

  it('filters through relationships (EXISTS) and _exists', async () => {
    // user's comments are those on their own articles.
    expect(await data(as('user', 2), '{ comment(order_by: {id: asc}) { id } }')).to.deep.equal({ comment: [{ id: 3 }, { id: 4 }, { id: 5 }] });
    expect(await data(as('user', 5), '{ comment { id } }')).to.deep.equal({ comment: [] });
    // reader sees every author once they have written a comment themselves.
    expect((await data(as('reader', 3), '{ author { id } }')).author).to.have.length(5);
    expect(await data(as('reader', 99), '{ author { id } }')).to.deep.equal({ author: [] });
  });

  it('caps rows at the permission limit, at the root and nested, whatever the query asks', async () => {
    expect(await data(as('reader', 3), '{ article(order_by: {id: asc}) { id } }')).to.deep.equal({ article: [{ id: 1 }, { id: 2 }] });
    expect(await data(as('reader', 3), '{ article(order_by: {id: asc}, limit: 10) { id } }')).to.deep.equal({ article: [{ id: 1 }, { id: 2 }] });
    expect(await data(as('reader', 3), '{ article(order_by: {id: asc}, limit: 1) { id } }')).to.deep.equal({ article: [{ id: 1 }] });
    expect(await data(as('reader', 3), '{ author(where: {id: {_eq: 4}}) { articles(order_by: {id: asc}) { id } } }')).to.deep.equal({
      author: [{ articles: [{ id: 7 }, { id: 8 }] }],
    });
  });

  it('offers aggregates only with allow_aggregations, computed over the permitted rows only', async () => {
    expect(await data(as('user', 2), '{ article_aggregate { aggregate { count max { rating } } nodes { id } } }')).to.deep.equal({
      article_aggregate: { aggregate: { count: 3, max: { rating: 5 } }, nodes: [{ id: 3 }, { id: 4 }, { id: 5 }] },
    });
    expect(await data(as('user', 1), '{ author { articles_aggregate { aggregate { count } } } }')).to.deep.equal({
      author: [{ articles_aggregate: { aggregate: { count: 2 } } }],
    });
    const root = await error(as('reader', 3), '{ article_aggregate { aggregate { count } } }');
    expect(root).to.deep.equal({
      extensions: { path: '$.selectionSet.article_aggregate', code: 'validation-failed' },
      message: "field 'article_aggregate' not found in type: 'query_root'",
    });
    const nested = await error(as('reader', 3), '{ author { articles_aggregate { aggregate { count } } } }');
    expect(nested.message).to.equal("field 'articles_aggregate' not found in type: 'author'");
    // user has no aggregation on author.
    expect((await error(as('user', 1), '{ author_aggregate { aggregate { count } } }')).extensions.code).to.equal('validation-failed');
  });

  it('offers <t>_by_pk only when the primary key is selectable, and filters it', async () => {
    expect(await data(as('user', 2), '{ article_by_pk(id: 5) { id title } }')).to.deep.equal({ article_by_pk: { id: 5, title: 'Unpublished draft' } });
    expect(await data(as('user', 1), '{ article_by_pk(id: 5) { id title } }')).to.deep.equal({ article_by_pk: null });
    expect(await error(as('nopk'), '{ author_by_pk(id: 1) { name } }')).to.deep.equal({
      extensions: { path: '$.selectionSet.author_by_pk', code: 'validation-failed' },
      message: "field 'author_by_pk' not found in type: 'query_root'",
    });
    expect((await data(as('nopk'), '{ author(order_by: {name: asc}, limit: 1) { name } }')).author).to.deep.equal([{ name: 'Ada Lovelace' }]);
  });

  it('refuses a query needing a session variable the request lacks', async () => {
    const expected = { extensions: { path: '$', code: 'not-found' }, message: 'missing session variable: "x-svc-user-id"' };
    expect(await error(as('user'), '{ author { id } }')).to.deep.equal(expected);
    // Nested permissions need it too, even when the root table's permission does not.
    expect(await data(as('reader'), '{ article(limit: 1) { id } }')).to.deep.equal({ article: [{ id: 1 }] });
    expect(await error(as('reader'), '{ article { id author { name } } }')).to.deep.equal(expected);
  });

  it('shows a role without permissions only no_queries_available', async () => {
    expect(await data(as('nobody'), '{ __schema { queryType { fields { name } } } }')).to.deep.equal({
      __schema: { queryType: { fields: [{ name: 'no_queries_available' }] } },
    });
    expect(await data(as('nobody'), '{ no_queries_available }')).to.deep.equal({ no_queries_available: NO_QUERIES });
    expect(await error(as('nobody'), '{ author { id } }')).to.deep.equal({
      extensions: { path: '$.selectionSet.author', code: 'validation-failed' },
      message: "field 'author' not found in type: 'query_root'",
    });
  });

  it('shares plans across users without leaking rows between them', async () => {
    const query = 'query Mine { article(order_by: {id: asc}) { id } author { id } }';
    const ids = async (user: number) => {
      const d = await data(as('user', user), query);
      return { articles: d.article.map((a: { id: number }) => a.id), authors: d.author.map((a: { id: number }) => a.id) };
    };
    expect(await ids(1)).to.deep.equal({ articles: [1, 2], authors: [1] });
    expect(await ids(2)).to.deep.equal({ articles: [3, 4, 5], authors: [2] });
    expect(await ids(1)).to.deep.equal({ articles: [1, 2], authors: [1] });
    // Concurrent requests of the same text from different users.
    const all = await Promise.all([1, 2, 3, 4, 1, 2].map(ids));
    expect(all.map((r) => r.authors)).to.deep.equal([[1], [2], [3], [4], [1], [2]]);
    // Admin (no role header) still sees everything with the same text.
    expect((await data({}, query)).article).to.have.length(9);
  });
});
