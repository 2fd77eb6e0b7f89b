import { expect } from 'chai';
import { call, graphql } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

/** Each query's answer is compared with what plain SQL over the same data returns. */
describe('read API: queries against the sample schema (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('read');
  });
  after(async () => f?.close());

  const rows = async (sql: string, values?: unknown[]) => (await f.db.sql(sql, values)).rows;

  it('filters through nested relationships (array → array → object)', async () => {
    const data = dataOf(
      await graphql(
        f.engine,
        `{ author(where: {articles: {comments: {commenter: {name: {_eq: "Alan Turing"}}}}}, order_by: {id: asc}) { id name } }`,
      ),
    );
    const expected = await rows(`
      SELECT a.id, a.name FROM author a WHERE EXISTS (
        SELECT 1 FROM article ar JOIN comment c ON c.article_id = ar.id JOIN author ca ON ca.id = c.author_id
        WHERE ar.author_id = a.id AND ca.name = 'Alan Turing') ORDER BY a.id`);
    expect(data.author).to.deep.equal(expected);
    expect(expected).to.have.length(2);
  });

  it('filters through an object relationship and combines _and/_or/_not', async () => {
    const data = dataOf(
      await graphql(
        f.engine,
        `{ article(where: {_and: [{author: {rating: {_eq: 5}}}, {_or: [{rating: {_gte: 5}}, {_not: {is_published: {_eq: true}}}]}]}, order_by: {id: asc}) { id } }`,
      ),
    );
    const expected = await rows(`
      SELECT ar.id FROM article ar JOIN author a ON a.id = ar.author_id
      WHERE a.rating = 5 AND (ar.rating >= 5 OR NOT ar.is_published) ORDER BY ar.id`);
    expect(data.article).to.deep.equal(expected);
  });

  it('orders by a related column, then by its own', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ article(order_by: [{author: {name: asc}}, {id: desc}]) { id title author { name } } }`),
    );
    const expected = await rows(`
      SELECT ar.id, ar.title, json_build_object('name', a.name) AS author
      FROM article ar JOIN author a ON a.id = ar.author_id ORDER BY a.name ASC, ar.id DESC`);
    expect(data.article).to.deep.equal(expected);
  });

  it('orders by an array relationship aggregate', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ author(order_by: [{articles_aggregate: {count: desc}}, {id: asc}]) { id } }`),
    );
    const expected = await rows(`
      SELECT a.id FROM author a ORDER BY (SELECT count(*) FROM article ar WHERE ar.author_id = a.id) DESC, a.id ASC`);
    expect(data.author).to.deep.equal(expected);
  });

  it('honours nulls ordering', async () => {
    const data = dataOf(await graphql(f.engine, `{ author(order_by: {rating: asc_nulls_first, id: asc}) { id } }`));
    const expected = await rows('SELECT id FROM author ORDER BY rating ASC NULLS FIRST, id ASC');
    expect(data.author).to.deep.equal(expected);
    const desc = dataOf(await graphql(f.engine, `{ author(order_by: {rating: desc, id: asc}) { id } }`));
    expect(desc.author).to.deep.equal(await rows('SELECT id FROM author ORDER BY rating DESC NULLS FIRST, id ASC'));
  });

  it('computes aggregates like SQL does', async () => {
    const data = dataOf(
      await graphql(
        f.engine,
        `{ article_aggregate(where: {is_published: {_eq: true}}) {
             aggregate { count c2: count(columns: [rating], distinct: true) sum { rating } avg { rating }
                         max { rating published_at } min { title } stddev { rating } var_samp { rating } }
           } }`,
      ),
    );
    const [e] = await rows(`
      SELECT count(*)::int AS count, count(DISTINCT rating)::int AS c2, sum(rating)::int AS sum, avg(rating)::float8 AS avg,
             max(rating) AS max_rating, to_json(max(published_at)) AS max_pub, min(title) AS min_title,
             stddev(rating)::float8 AS stddev, var_samp(rating)::float8 AS var_samp
      FROM article WHERE is_published`);
    const agg = data.article_aggregate.aggregate;
    expect(agg.count).to.equal(e.count);
    expect(agg.c2).to.equal(e.c2);
    expect(agg.sum.rating).to.equal(e.sum);
    expect(agg.avg.rating).to.be.closeTo(e.avg, 1e-9);
    expect(agg.max).to.deep.equal({ rating: e.max_rating, published_at: e.max_pub });
    expect(agg.min.title).to.equal(e.min_title);
    expect(agg.stddev.rating).to.be.closeTo(e.stddev, 1e-9);
    expect(agg.var_samp.rating).to.be.closeTo(e.var_samp, 1e-9);
  });

  it('returns aggregate nodes with limit and order', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ article_aggregate(order_by: {id: asc}, limit: 3) { aggregate { count } nodes { id } } }`),
    );
    expect(data.article_aggregate).to.deep.equal({ aggregate: { count: 3 }, nodes: [{ id: 1 }, { id: 2 }, { id: 3 }] });
  });

  it('supports distinct_on with the distinct column leading order_by', async () => {
    const data = dataOf(
      await graphql(
        f.engine,
        `{ article(distinct_on: author_id, order_by: [{author_id: asc}, {rating: desc_nulls_last}, {id: asc}]) { author_id title } }`,
      ),
    );
    const expected = await rows(
      'SELECT DISTINCT ON (author_id) author_id, title FROM article ORDER BY author_id ASC, rating DESC NULLS LAST, id ASC',
    );
    expect(data.article).to.deep.equal(expected);
  });

  it('selects by primary key, with a relationship aggregate; a missing key is null', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ author_by_pk(id: 2) { name articles_aggregate { aggregate { count } } } none: author_by_pk(id: 999) { id } }`),
    );
    expect(data).to.deep.equal({ author_by_pk: { name: 'Alan Turing', articles_aggregate: { aggregate: { count: 3 } } }, none: null });
  });

  it('nests relationships with their own arguments', async () => {
    const data = dataOf(
      await graphql(
        f.engine,
        `{ author(order_by: {id: asc}, limit: 3) {
             name
             articles(where: {is_published: {_eq: true}}, order_by: {published_at: desc}, limit: 1) {
               title
               comments(order_by: {id: asc}) { body commenter { name } }
             }
           } }`,
      ),
    );
    const authors = await rows('SELECT id, name FROM author ORDER BY id LIMIT 3');
    const expected = [];
    for (const a of authors) {
      const arts = await rows('SELECT id, title FROM article WHERE author_id = $1 AND is_published ORDER BY published_at DESC LIMIT 1', [a.id]);
      const articles = [];
      for (const ar of arts) {
        const cs = await rows(
          `SELECT c.body, CASE WHEN ca.id IS NULL THEN NULL ELSE json_build_object('name', ca.name) END AS commenter
           FROM comment c LEFT JOIN author ca ON ca.id = c.author_id WHERE c.article_id = $1 ORDER BY c.id`,
          [ar.id],
        );
        articles.push({ title: ar.title, comments: cs });
      }
      expected.push({ name: a.name, articles });
    }
    expect(data.author).to.deep.equal(expected);
  });

  it('resolves fragments, inline fragments, aliases, __typename and variables', async () => {
    const query = `
      query Q($min: Int!, $n: Int, $withEmail: Boolean!) {
        top: author(where: {rating: {_gte: $min}}, order_by: {id: asc}, limit: $n) {
          ...AuthorBits
          ... on author { email @include(if: $withEmail) }
          __typename
        }
        __typename
      }
      fragment AuthorBits on author { id handle: name }`;
    const res = await graphql(f.engine, query, { min: 4, n: 2, withEmail: true });
    const expected = (await rows('SELECT id, name AS handle, email FROM author WHERE rating >= 4 ORDER BY id LIMIT 2')).map((r) => ({
      ...r,
      __typename: 'author',
    }));
    expect(dataOf(res)).to.deep.equal({ top: expected, __typename: 'query_root' });

    // Same text, other values: the cached plan is reused with new parameters and a new @include shape.
    const again = dataOf(await graphql(f.engine, query, { min: 5, n: 10, withEmail: false }));
    const e2 = (await rows('SELECT id, name AS handle FROM author WHERE rating >= 5 ORDER BY id LIMIT 10')).map((r) => ({
      ...r,
      __typename: 'author',
    }));
    expect(again.top).to.deep.equal(e2);
  });

  it('takes a whole where object from a variable', async () => {
    const query = `query($w: article_bool_exp) { article(where: $w, order_by: {id: asc}) { id } }`;
    const a = dataOf(await graphql(f.engine, query, { w: { rating: { _eq: 4 } } }));
    expect(a.article).to.deep.equal(await rows('SELECT id FROM article WHERE rating = 4 ORDER BY id'));
    const b = dataOf(await graphql(f.engine, query, { w: { title: { _ilike: '%note%' } } }));
    expect(b.article).to.deep.equal(await rows("SELECT id FROM article WHERE title ILIKE '%note%' ORDER BY id"));
  });

  it('runs several root fields in one request', async () => {
    const data = dataOf(await graphql(f.engine, `{ a: author_aggregate { aggregate { count } } b: comment_aggregate { aggregate { count } } }`));
    expect(data).to.deep.equal({ a: { aggregate: { count: 5 } }, b: { aggregate: { count: 7 } } });
  });

  it('answers GET requests and batches', async () => {
    const q = encodeURIComponent('query($id: Int!) { author_by_pk(id: $id) { name } }');
    const v = encodeURIComponent(JSON.stringify({ id: 3 }));
    const get = await call(f.engine, `/v1/graphql?query=${q}&variables=${v}`);
    expect(get.body).to.deep.equal({ data: { author_by_pk: { name: 'Grace Hopper' } } });

    const batch = await call(f.engine, '/v1/graphql', [
      { query: '{ author_by_pk(id: 1) { name } }' },
      { query: '{ nope }' },
      { query: '{ article_by_pk(id: 1) { title } }' },
    ]);
    expect(batch.status).to.equal(200);
    expect(batch.body[0]).to.deep.equal({ data: { author_by_pk: { name: 'Ada Lovelace' } } });
    expect(batch.body[1].errors[0].extensions.code).to.equal('validation-failed');
    expect(batch.body[2]).to.deep.equal({ data: { article_by_pk: { title: 'Notes on the Analytical Engine' } } });
  });

  it('returns jsonb, arrays, dates and timestamps as PostgreSQL renders them in JSON', async () => {
    const data = dataOf(await graphql(f.engine, `{ author_by_pk(id: 1) { meta tags born } article_by_pk(id: 3) { published_at score } }`));
    const [a] = await rows("SELECT meta, to_json(tags) AS tags, to_json(born) AS born FROM author WHERE id = 1");
    const [ar] = await rows('SELECT to_json(published_at) AS published_at, to_json(score) AS score FROM article WHERE id = 3');
    expect(data.author_by_pk).to.deep.equal(a);
    expect(data.article_by_pk).to.deep.equal(ar);
  });

  it('describes types and fields from database comments', async () => {
    const data = dataOf(
      await graphql(f.engine, `{ __type(name: "author") { description fields { name description } } }`),
    );
    expect(data.__type.description).to.equal('people who write');
    expect(data.__type.fields.find((x: { name: string }) => x.name === 'name').description).to.equal('full name');
  });
});
