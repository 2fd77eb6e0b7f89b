import { expect } from 'chai';
import { as, dataOf, errorOf, ok, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Tracked functions as query root fields, compared with what plain SQL over the same data returns. */
describe('tracked functions: queries (integration)', function () {
  let f: FunctionsFixture;
  before(async () => {
    f = await startFunctionsFixture('fn_query');
    await ok(
      f.meta({
        type: 'bulk',
        args: [
          { type: 'pg_track_function', args: { function: 'search_articles' } },
          { type: 'pg_track_function', args: { function: { schema: 'public', name: 'articles_rated' } } },
          { type: 'pg_track_function', args: { function: 'rated_between' } },
          { type: 'pg_track_function', args: { function: 'best_article' } },
          { type: 'pg_track_function', args: { function: 'my_articles', configuration: { session_argument: 'svc_session' } } },
          {
            type: 'pg_create_select_permission',
            args: {
              table: 'article',
              role: 'user',
              permission: { columns: ['id', 'title', 'rating'], filter: { is_published: { _eq: true } }, limit: 2 },
            },
          },
          {
            type: 'pg_create_select_permission',
            args: { table: 'article', role: 'analyst', permission: { columns: '*', filter: {}, allow_aggregations: true } },
          },
        ],
      }),
    );
  });
  after(async () => f?.close());

  const rows = async (sql: string) => (await f.db.sql(sql)).rows;

  it('calls a SETOF function with args, where, order_by, limit and offset', async () => {
    const data = dataOf(
      await f.gql(`{ search_articles(args: {search: "comput"}, where: {rating: {_gte: 4}}, order_by: {id: desc}, limit: 2, offset: 1) { id title } }`),
    );
    const expected = await rows(
      `SELECT id, title FROM search_articles('comput') WHERE rating >= 4 ORDER BY id DESC LIMIT 2 OFFSET 1`,
    );
    expect(data.search_articles).to.deep.equal(expected);
    expect(expected).to.have.length(2);
  });

  it('takes variables in args and nests relationships under the rows', async () => {
    const data = dataOf(
      await f.gql(
        `query ($s: String!) { search_articles(args: {search: $s}, order_by: {id: asc}) { id author { name } } }`,
        {},
        { s: 'note' },
      ),
    );
    expect(data.search_articles).to.deep.equal([
      { id: 1, author: { name: 'Ada Lovelace' } },
      { id: 8, author: { name: 'Edsger Dijkstra' } },
    ]);
  });

  it('aggregates over the function rows', async () => {
    const data = dataOf(
      await f.gql(`{ search_articles_aggregate(args: {search: "o"}, where: {is_published: {_eq: true}}) { aggregate { count max { rating } } nodes { id } } }`),
    );
    const [expected] = await rows(`SELECT count(*)::int AS count, max(rating) AS max FROM search_articles('o') WHERE is_published`);
    expect(data.search_articles_aggregate.aggregate).to.deep.equal({ count: expected.count, max: { rating: expected.max } });
    expect(data.search_articles_aggregate.nodes).to.have.length(expected.count);
  });

  it('leaves out arguments with defaults, by name when an earlier one is given and a later one not', async () => {
    const all = dataOf(await f.gql('{ articles_rated(order_by: {id: asc}) { id } }'));
    expect(all.articles_rated).to.deep.equal(await rows('SELECT id FROM articles_rated() ORDER BY id'));
    const capped = dataOf(await f.gql('{ articles_rated(args: {max_rating: 3}, order_by: {id: asc}) { id } }'));
    expect(capped.articles_rated).to.deep.equal(await rows('SELECT id FROM articles_rated(max_rating => 3) ORDER BY id'));
  });

  it('names unnamed arguments arg_1, arg_2 and passes them by position', async () => {
    const data = dataOf(await f.gql('{ rated_between(args: {arg_1: 5}, order_by: {id: asc}) { id } }'));
    expect(data.rated_between).to.deep.equal(await rows('SELECT id FROM rated_between(5) ORDER BY id'));
    const gap = await f.gql('{ rated_between(args: {arg_2: 4}) { id } }');
    expect(errorOf(gap).code).to.equal('not-supported');
    expect(errorOf(gap).message).to.equal('Non default arguments cannot be omitted');
  });

  it('requires args when an argument has no default', async () => {
    const res = await f.gql('{ search_articles { id } }');
    expect(errorOf(res).code).to.equal('validation-failed');
  });

  it('returns one nullable row for a function not returning SETOF', async () => {
    expect(dataOf(await f.gql('{ best_article(args: {aid: 4}) { id rating } }'))).to.deep.equal({ best_article: { id: 7, rating: 5 } });
    // A composite-returning SQL function that finds nothing yields one row of NULLs, in
    // PostgreSQL and so in the reference engine's answer too.
    expect(dataOf(await f.gql('{ best_article(args: {aid: 99}) { id } }'))).to.deep.equal({ best_article: { id: null } });
  });

  it('passes the session variables to the session argument, which is not an argument in GraphQL', async () => {
    // The role needs a select permission on the table to see the function at all.
    expect(dataOf(await f.gql('{ my_articles(order_by: {id: asc}) { id } }', as('user', 4)))).to.deep.equal({
      my_articles: [{ id: 7 }, { id: 8 }],
    });
    const schema = dataOf(await f.gql('{ __type(name: "query_root") { fields { name args { name } } } }'));
    const field = schema.__type.fields.find((x: { name: string }) => x.name === 'my_articles');
    expect(field.args.map((a: { name: string }) => a.name)).to.deep.equal(['distinct_on', 'limit', 'offset', 'order_by', 'where']);
  });

  it("applies the role's select permission: filter, columns, row limit, aggregates", async () => {
    const data = dataOf(await f.gql('{ search_articles(args: {search: ""}, order_by: {id: asc}) { id title } }', as('user')));
    expect(data.search_articles).to.deep.equal(await rows(`SELECT id, title FROM article WHERE is_published ORDER BY id LIMIT 2`));
    const hidden = await f.gql('{ search_articles(args: {search: ""}) { body } }', as('user'));
    expect(errorOf(hidden).message).to.equal("field 'body' not found in type: 'article'");
    const noAgg = await f.gql('{ search_articles_aggregate(args: {search: ""}) { aggregate { count } } }', as('user'));
    expect(errorOf(noAgg).message).to.equal("field 'search_articles_aggregate' not found in type: 'query_root'");
    const agg = dataOf(await f.gql('{ search_articles_aggregate(args: {search: ""}) { aggregate { count } } }', as('analyst')));
    expect(agg.search_articles_aggregate.aggregate.count).to.equal(9);
    // A role without a select permission on the table sees no function either.
    const none = await f.gql('{ search_articles(args: {search: ""}) { id } }', as('stranger'));
    expect(errorOf(none).code).to.equal('validation-failed');
  });

  it('describes the root fields and args the reference way', async () => {
    const data = dataOf(
      await f.gql(`{ __schema { queryType { fields { name description args { name description type { name kind ofType { name } } } } } } }`),
    );
    const fields = Object.fromEntries(data.__schema.queryType.fields.map((x: { name: string }) => [x.name, x]));
    expect(fields.search_articles.description).to.equal('articles whose title matches');
    expect(fields.articles_rated.description).to.equal('execute function "articles_rated" which returns "article"');
    expect(fields.search_articles_aggregate.description).to.equal(
      'execute function "search_articles" and query aggregates on result of table type "article"',
    );
    const args = fields.search_articles.args.find((a: { name: string }) => a.name === 'args');
    expect(args).to.deep.equal({
      name: 'args',
      description: 'input parameters for function "search_articles"',
      type: { name: null, kind: 'NON_NULL', ofType: { name: 'search_articles_args' } },
    });
    const optional = fields.articles_rated.args.find((a: { name: string }) => a.name === 'args');
    expect(optional.type).to.deep.equal({ name: 'articles_rated_args', kind: 'INPUT_OBJECT', ofType: null });
  });

  it('applies custom root field names and custom_name', async () => {
    await ok(
      f.meta({
        type: 'pg_set_function_customization',
        args: { function: 'articles_rated', configuration: { custom_name: 'rated', custom_root_fields: { function_aggregate: 'rated_stats' } } },
      }),
    );
    const data = dataOf(await f.gql('{ rated(args: {min_rating: 5}) { id } rated_stats(args: {min_rating: 5}) { aggregate { count } } }'));
    expect(data.rated).to.have.length(4);
    expect(data.rated_stats.aggregate.count).to.equal(4);
    const type = dataOf(await f.gql('{ __type(name: "rated_args") { inputFields { name } } }'));
    expect(type.__type.inputFields.map((x: { name: string }) => x.name)).to.deep.equal(['min_rating', 'max_rating']);
    const exported = await f.meta({ type: 'export_metadata', args: {} });
    const entry = (exported.body as { sources: Array<{ functions: unknown[] }> }).sources[0]!.functions[1];
    expect(entry).to.deep.equal({
      function: { schema: 'public', name: 'articles_rated' },
      configuration: { custom_root_fields: { function_aggregate: 'rated_stats' }, custom_name: 'rated' },
    });
  });

  it("puts functions under the source's root-field namespace and prefix", async () => {
    await ok(
      f.meta({
        type: 'pg_update_source',
        args: { name: 'default', customization: { root_fields: { namespace: 'db', prefix: 'p_' }, type_names: { prefix: 'T_' } } },
      }),
    );
    const data = dataOf(await f.gql('{ db { p_search_articles(args: {search: "harmful"}) { id __typename } } }'));
    expect(data).to.deep.equal({ db: { p_search_articles: [{ id: 7, __typename: 'T_article' }] } });
    const type = dataOf(await f.gql('{ __type(name: "T_search_articles_args") { name } }'));
    expect(type.__type).to.deep.equal({ name: 'T_search_articles_args' });
  });
});
