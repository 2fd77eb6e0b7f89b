/**
 * A role trying to read what its select permission hides: `user` may not see article.body,
 * article.score, article.views or author.rating, nor other users' rows. Every attempt must fail
 * as a whole with `validation-failed` (no `data` at all), or, for rows hidden by a filter, come
 * back as if those rows did not exist.
 */
import { expect } from 'chai';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { as, queryAs, startPermissionsFixture } from './fixture.js';

describe('select permissions: hostile reads (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startPermissionsFixture('perm_hostile');
  });
  after(async () => f?.close());

  const user = as('user', 1);

  /** The request fails whole: one validation error naming the forbidden field and its type, no data. */
  async function refused(query: string, field: string, type: string, variables?: Record<string, unknown>): Promise<void> {
    const body = await queryAs(f, user, query, variables);
    expect(body, JSON.stringify(body)).to.not.have.property('data');
    expect(body.errors).to.have.length(1);
    const e = body.errors![0]!;
    expect(e.extensions.code).to.equal('validation-failed');
    expect(e.message).to.match(new RegExp(`\\b${field}\\b`));
    expect(e.message).to.contain(type);
    expect(JSON.stringify(body)).to.not.match(/imagination|engine weaves|9007199254740993|99\.5/);
  }

  it('refuses a forbidden column selected directly', async () => {
    const body = await queryAs(f, user, '{ article { id body } }');
    expect(body).to.deep.equal({
      errors: [
        {
          extensions: { path: '$.selectionSet.article.selectionSet.body', code: 'validation-failed' },
          message: "field 'body' not found in type: 'article'",
        },
      ],
    });
    await refused('{ article { id views } }', 'views', "'article'");
    await refused('{ author { id rating } }', 'rating', "'author'");
  });

  it('refuses a forbidden column through a relationship', async () => {
    const body = await queryAs(f, user, '{ author { articles { body } } }');
    expect(body).to.deep.equal({
      errors: [
        {
          extensions: { path: '$.selectionSet.author.selectionSet.articles.selectionSet.body', code: 'validation-failed' },
          message: "field 'body' not found in type: 'article'",
        },
      ],
    });
    await refused('{ comment { article { score } } }', 'score', "'article'");
    await refused('{ article { author { rating } } }', 'rating', "'author'");
    await refused('{ author { articles_aggregate { nodes { body } } } }', 'body', "'article'");
  });

  it('refuses a forbidden column in an aggregate', async () => {
    await refused('{ article_aggregate { aggregate { max { score } } } }', 'score', 'article_max_fields');
    await refused('{ article_aggregate { aggregate { sum { views } } } }', 'views', 'article_sum_fields');
    await refused('{ article_aggregate { nodes { body } } }', 'body', "'article'");
    await refused('{ author { articles_aggregate { aggregate { avg { score } } } } }', 'score', 'article_avg_fields');
    await refused('{ article_aggregate { aggregate { count(columns: [body]) } } }', 'body', 'article_select_column');
  });

  it('refuses a forbidden column in distinct_on', async () => {
    await refused('{ article(distinct_on: body) { id } }', 'body', 'article_select_column');
    await refused('query($d: [article_select_column!]) { article(distinct_on: $d) { id } }', 'body', 'article_select_column', { d: ['body'] });
  });

  it('refuses ordering by a forbidden column, directly or through a relationship', async () => {
    await refused('{ article(order_by: {body: asc}) { id } }', 'body', 'article_order_by');
    await refused('query($o: [article_order_by!]) { article(order_by: $o) { id } }', 'body', 'article_order_by', { o: [{ body: 'asc' }] });
    await refused('{ article(order_by: {author: {rating: asc}}) { id } }', 'rating', 'author_order_by');
  });

  it('refuses filtering on a forbidden column, however nested', async () => {
    await refused('{ article(where: {body: {_eq: "x"}}) { id } }', 'body', 'article_bool_exp');
    await refused('{ article(where: {_not: {body: {_is_null: true}}}) { id } }', 'body', 'article_bool_exp');
    await refused('{ article(where: {_or: [{id: {_eq: 1}}, {score: {_gt: 90}}]}) { id } }', 'score', 'article_bool_exp');
    await refused('{ author(where: {articles: {body: {_ilike: "%engine%"}}}) { id } }', 'body', 'article_bool_exp');
    await refused('{ article(where: {author: {rating: {_eq: 5}}}) { id } }', 'rating', 'author_bool_exp');
    await refused('query($w: article_bool_exp) { article(where: $w) { id } }', 'body', 'article_bool_exp', { w: { body: { _eq: 'x' } } });
    await refused('{ author { articles(where: {views: {_gt: 0}}) { id } } }', 'views', 'article_bool_exp');
  });

  it('refuses <rel>_aggregate ordering and filtering on forbidden columns', async () => {
    await refused('{ author(order_by: {articles_aggregate: {max: {score: asc}}}) { id } }', 'score', 'article_max_order_by');
    await refused('{ author(order_by: {articles_aggregate: {sum: {views: desc}}}) { id } }', 'views', 'article_sum_order_by');
    await refused(
      '{ author(where: {articles_aggregate: {count: {predicate: {_gt: 0}, filter: {body: {_eq: "x"}}}}}) { id } }',
      'body',
      'article_bool_exp',
    );
    await refused(
      '{ author(where: {articles_aggregate: {count: {predicate: {_gt: 0}, arguments: [body]}}}) { id } }',
      'body',
      'article_select_column',
    );
  });

  it('does not reveal rows of other users through relationships, ordering or aggregates', async () => {
    const data = async (query: string, headers = as('user', 2)) => {
      const body = await queryAs(f, headers, query);
      expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
      return body.data;
    };
    // comment 3 was written by author 4, whom user 2 cannot see: filtering by it matches nothing.
    expect(await data('{ comment(where: {commenter: {name: {_eq: "Edsger Dijkstra"}}}) { id } }')).to.deep.equal({ comment: [] });
    expect(await data('{ comment(where: {commenter: {id: {_is_null: false}}}) { id } }')).to.deep.equal({ comment: [] });
    // Ordering by a hidden commenter's name sorts as if it were null: the tie-breaker decides.
    expect(await data('{ comment(order_by: [{commenter: {name: asc}}, {id: desc}]) { id } }')).to.deep.equal({
      comment: [{ id: 5 }, { id: 4 }, { id: 3 }],
    });
    // Counting and ordering by related rows only counts the permitted ones.
    expect(await data('{ author { articles_aggregate(where: {author_id: {_eq: 1}}) { aggregate { count } } } }')).to.deep.equal({
      author: [{ articles_aggregate: { aggregate: { count: 0 } } }],
    });
    expect(await data('{ author(where: {articles_aggregate: {count: {predicate: {_gt: 2}}}}) { id } }')).to.deep.equal({ author: [{ id: 2 }] });
    expect(await data('{ article_aggregate(where: {author_id: {_neq: 2}}) { aggregate { count } } }')).to.deep.equal({
      article_aggregate: { aggregate: { count: 0 } },
    });
    // _by_pk of someone else's row is null, the same as a row that does not exist.
    expect(await data('{ a: article_by_pk(id: 1) { id } b: article_by_pk(id: 999) { id } }')).to.deep.equal({ a: null, b: null });
  });

  it('cannot widen its access with headers: the role decides, session variables only fill the filter', async () => {
    const body = await queryAs(f, { 'x-svc-role': 'user', 'x-svc-user-id': '1 OR 1=1' }, '{ author { id } }');
    expect(body).to.not.have.property('data');
    expect(body.errors![0]!.extensions.code).to.equal('data-exception');
    const other = await queryAs(f, { ...as('user', 1), 'x-svc-allowed-roles': '["admin"]' }, '{ article { id body } }');
    expect(other.errors![0]!.extensions.code).to.equal('validation-failed');
  });
});
