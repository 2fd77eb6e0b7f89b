import { expect } from 'chai';
import { getIntrospectionQuery, graphqlSync, printSchema } from 'graphql';
import { authorSpec, blogSource, makeSource, roleSchema } from './fixtures.js';
import { description, signature, typeNames } from './schema-helpers.js';

const SELECT_ARGS =
  'distinct_on: [author_select_column!], limit: Int, offset: Int, order_by: [author_order_by!], where: author_bool_exp';

describe('graphql schema: the reference author example', () => {
  const { schema } = roleSchema([makeSource('default', [authorSpec()])]);

  it('has the three read root fields, mirrored in subscription_root with the stream field (mutations: mutation-schema.test.ts)', () => {
    const expected = [
      `author(${SELECT_ARGS}): [author!]!`,
      `author_aggregate(${SELECT_ARGS}): author_aggregate!`,
      'author_by_pk(id: Int!): author',
    ];
    expect(signature(schema, 'query_root')).to.deep.equal(expected);
    expect(signature(schema, 'subscription_root')).to.deep.equal([
      ...expected,
      'author_stream(batch_size: Int!, cursor: [author_stream_cursor_input]!, where: author_bool_exp): [author!]!',
    ]);
    expect(signature(schema, 'author_stream_cursor_input')).to.deep.equal(['initial_value: author_stream_cursor_value_input!', 'ordering: cursor_ordering']);
    expect(signature(schema, 'author_stream_cursor_value_input')).to.deep.equal(['id: Int', 'name: String']);
    expect(schema.getMutationType()?.name).to.equal('mutation_root');
  });

  it('generates the object, aggregate, bool_exp, order_by and select_column types', () => {
    expect(signature(schema, 'author')).to.deep.equal(['id: Int!', 'name: String']);
    expect(signature(schema, 'author_aggregate')).to.deep.equal(['aggregate: author_aggregate_fields', 'nodes: [author!]!']);
    expect(signature(schema, 'author_aggregate_fields')).to.deep.equal([
      'avg: author_avg_fields',
      'count(columns: [author_select_column!], distinct: Boolean): Int!',
      'max: author_max_fields',
      'min: author_min_fields',
      'stddev: author_stddev_fields',
      'stddev_pop: author_stddev_pop_fields',
      'stddev_samp: author_stddev_samp_fields',
      'sum: author_sum_fields',
      'var_pop: author_var_pop_fields',
      'var_samp: author_var_samp_fields',
      'variance: author_variance_fields',
    ]);
    expect(signature(schema, 'author_avg_fields')).to.deep.equal(['id: Float']);
    expect(signature(schema, 'author_variance_fields')).to.deep.equal(['id: Float']);
    expect(signature(schema, 'author_max_fields')).to.deep.equal(['id: Int', 'name: String']);
    expect(signature(schema, 'author_min_fields')).to.deep.equal(['id: Int', 'name: String']);
    expect(signature(schema, 'author_sum_fields')).to.deep.equal(['id: Int']);
    expect(signature(schema, 'author_bool_exp')).to.deep.equal([
      '_and: [author_bool_exp!]',
      '_not: author_bool_exp',
      '_or: [author_bool_exp!]',
      'id: Int_comparison_exp',
      'name: String_comparison_exp',
    ]);
    expect(signature(schema, 'author_order_by')).to.deep.equal(['id: order_by', 'name: order_by']);
    expect(signature(schema, 'author_select_column')).to.deep.equal(['id', 'name']);
    expect(signature(schema, 'order_by')).to.deep.equal([
      'asc', 'asc_nulls_first', 'asc_nulls_last', 'desc', 'desc_nulls_first', 'desc_nulls_last',
    ]);
  });

  it('has the comparison types with exactly the reference operators', () => {
    expect(signature(schema, 'Int_comparison_exp')).to.deep.equal([
      '_eq: Int', '_gt: Int', '_gte: Int', '_in: [Int!]', '_is_null: Boolean', '_lt: Int', '_lte: Int', '_neq: Int', '_nin: [Int!]',
    ]);
    const ops = signature(schema, 'String_comparison_exp').map((s) => s.split(':')[0]);
    expect(ops).to.have.length(19);
    expect(ops).to.include.members([
      '_like', '_nlike', '_ilike', '_nilike', '_similar', '_nsimilar', '_regex', '_iregex', '_nregex', '_niregex',
    ]);
  });

  it('emits only reachable types', () => {
    const names = typeNames(schema);
    for (const absent of ['author_aggregate_order_by', 'author_aggregate_bool_exp', 'author_avg_order_by']) {
      expect(names).to.not.include(absent);
    }
  });

  it('uses the reference description strings', () => {
    expect(description(schema, 'query_root', 'author')).to.equal('fetch data from the table: "author"');
    expect(description(schema, 'query_root', 'author_aggregate')).to.equal('fetch aggregated fields from the table: "author"');
    expect(description(schema, 'query_root', 'author_by_pk')).to.equal('fetch data from the table: "author" using primary key columns');
    const root = schema.getQueryType()!.getFields()['author']!;
    expect(Object.fromEntries(root.args.map((a) => [a.name, a.description]))).to.deep.equal({
      distinct_on: 'distinct select on columns',
      limit: 'limit the number of rows returned',
      offset: 'skip the first n rows. Use only with order_by',
      order_by: 'sort the rows by one or more columns',
      where: 'filter the rows returned',
    });
    expect(description(schema, 'author')).to.equal('columns and relationships of "author"');
    expect(description(schema, 'author_aggregate')).to.equal('aggregated selection of "author"');
    expect(description(schema, 'author_aggregate_fields')).to.equal('aggregate fields of "author"');
    expect(description(schema, 'author_avg_fields')).to.equal('aggregate avg on columns');
    expect(description(schema, 'author_stddev_pop_fields')).to.equal('aggregate stddev_pop on columns');
    expect(description(schema, 'author_bool_exp')).to.equal(
      `Boolean expression to filter rows from the table "author". All fields are combined with a logical 'AND'.`,
    );
    expect(description(schema, 'Int_comparison_exp')).to.equal(
      `Boolean expression to compare columns of type "Int". All fields are combined with logical 'AND'.`,
    );
    expect(description(schema, 'author_order_by')).to.equal('Ordering options when selecting data from "author".');
    expect(description(schema, 'author_select_column')).to.equal('select columns of table "author"');
    expect(description(schema, 'author_select_column', 'id')).to.equal('column name');
    expect(description(schema, 'order_by')).to.equal('column ordering options');
    expect(description(schema, 'order_by', 'asc')).to.equal('in ascending order, nulls last');
    expect(description(schema, 'order_by', 'desc')).to.equal('in descending order, nulls first');
    expect(description(schema, 'order_by', 'desc_nulls_last')).to.equal('in descending order, nulls last');
    expect(description(schema, 'String_comparison_exp', '_ilike')).to.equal('does the column match the given case-insensitive pattern');
  });

  it('answers a standard introspection query', () => {
    const result = graphqlSync({ schema, source: getIntrospectionQuery() });
    expect(result.errors).to.equal(undefined);
  });
});

describe('graphql schema: the blog (relationships, enum tables, jsonb, arrays, comments)', () => {
  const { schema } = roleSchema([blogSource()]);

  it('exposes relationships with their own arguments and aggregates', () => {
    const article = signature(schema, 'article');
    expect(article).to.include('author: author!');
    expect(article).to.include(
      'comments(distinct_on: [comment_select_column!], limit: Int, offset: Int, order_by: [comment_order_by!], where: comment_bool_exp): [comment!]!',
    );
    expect(article.some((f) => f.startsWith('comments_aggregate(') && f.endsWith('): comment_aggregate!'))).to.equal(true);
    expect(signature(schema, 'author_bool_exp')).to.include.members([
      'articles: article_bool_exp',
      'articles_aggregate: article_aggregate_bool_exp',
    ]);
    expect(signature(schema, 'author_order_by')).to.include('articles_aggregate: article_aggregate_order_by');
    expect(signature(schema, 'article_order_by')).to.include('author: author_order_by');
    expect(signature(schema, 'article_aggregate_bool_exp_count')).to.deep.equal([
      'arguments: [article_select_column!]',
      'distinct: Boolean',
      'filter: article_bool_exp',
      'predicate: Int_comparison_exp!',
    ]);
    expect(signature(schema, 'article_aggregate_order_by')).to.include.members(['count: order_by', 'max: article_max_order_by']);
    expect(description(schema, 'article_aggregate_order_by')).to.equal('order by aggregate values of table "article"');
    expect(description(schema, 'article_avg_order_by')).to.equal('order by avg() on columns of table "article"');
  });

  it('takes descriptions from comments', () => {
    expect(description(schema, 'article')).to.equal('blog posts');
    expect(description(schema, 'article', 'headline')).to.equal('the title');
    expect(description(schema, 'article', 'comments')).to.equal('reader comments');
    expect(description(schema, 'article', 'author')).to.equal('An object relationship');
    expect(description(schema, 'author', 'articles')).to.equal('An array relationship');
    expect(description(schema, 'author', 'articles_aggregate')).to.equal('An aggregate relationship');
  });

  it('maps column types to scalars, enum-table enums, jsonb and array comparisons', () => {
    const article = signature(schema, 'article');
    expect(article).to.include.members([
      'headline: String!',
      'status: article_status_enum',
      'metadata(path: String): jsonb',
      'tags: [String!]',
      'rating: numeric',
      'created_at: timestamptz',
    ]);
    expect(signature(schema, 'comment')).to.include('id: bigint!');
    expect(signature(schema, 'article_status_enum')).to.deep.equal(['draft', 'published']);
    expect(description(schema, 'article_status_enum', 'published')).to.equal('visible to readers');
    expect(signature(schema, 'article_status_enum_comparison_exp')).to.deep.equal([
      '_eq: article_status_enum', '_in: [article_status_enum!]', '_is_null: Boolean', '_neq: article_status_enum', '_nin: [article_status_enum!]',
    ]);
    expect(signature(schema, 'jsonb_comparison_exp')).to.include.members([
      '_cast: jsonb_cast_exp', '_contains: jsonb', '_contained_in: jsonb', '_has_key: String',
      '_has_keys_any: [String!]', '_has_keys_all: [String!]',
    ]);
    expect(signature(schema, 'jsonb_cast_exp')).to.deep.equal(['String: String_comparison_exp']);
    expect(signature(schema, 'String_array_comparison_exp')).to.include.members([
      '_contains: [String!]', '_contained_in: [String!]', '_eq: [String!]', '_in: [[String!]!]',
    ]);
    // numeric and comparable columns only: no enum, jsonb, array or boolean in max/min or avg.
    expect(signature(schema, 'article_max_fields')).to.deep.equal([
      'author_id: Int', 'body: String', 'created_at: timestamptz', 'headline: String', 'id: Int', 'rating: numeric',
    ]);
    expect(signature(schema, 'article_sum_fields')).to.deep.equal(['author_id: Int', 'id: Int', 'rating: numeric']);
  });

  it('answers a standard introspection query', () => {
    const result = graphqlSync({ schema, source: getIntrospectionQuery() });
    expect(result.errors).to.equal(undefined);
  });
});

describe('graphql schema: role narrowing', () => {
  it('shows a role only its permitted tables and columns', () => {
    const { schema, roots } = roleSchema([blogSource()], 'user');
    expect([...roots.query.keys()].sort()).to.deep.equal(['article', 'article_aggregate', 'article_by_pk', 'author', 'author_by_pk']);
    expect(signature(schema, 'article').map((f) => f.split(/[(:]/)[0])).to.deep.equal([
      'author', 'author_id', 'headline', 'id', 'published', 'rating', 'status',
    ]);
    expect(signature(schema, 'article_select_column')).to.deep.equal(['author_id', 'headline', 'id', 'published', 'rating', 'status']);
    expect(signature(schema, 'article_bool_exp').map((f) => f.split(':')[0])).to.not.include.members(['body', 'comments', 'metadata']);
    expect(signature(schema, 'article_max_fields')).to.deep.equal(['author_id: Int', 'headline: String', 'id: Int', 'rating: numeric']);
    // author has no allow_aggregations; article does, so author.articles_aggregate exists.
    expect(roots.query.has('author_aggregate')).to.equal(false);
    expect(signature(schema, 'author').map((f) => f.split(/[(:]/)[0])).to.deep.equal(['articles', 'articles_aggregate', 'id', 'name']);
    expect(typeNames(schema)).to.not.include('comment');
    const result = graphqlSync({ schema, source: getIntrospectionQuery() });
    expect(result.errors).to.equal(undefined);
  });

  it('leaves out _by_pk when the primary key is not selectable, and aggregates without allow_aggregations', () => {
    const { schema, roots } = roleSchema([blogSource()], 'anon');
    expect([...roots.query.keys()]).to.deep.equal(['author']);
    expect(signature(schema, 'author')).to.deep.equal(['name: String']);
  });

  it('gives a role without permissions the no_queries_available placeholder', () => {
    const { schema, roots } = roleSchema([blogSource()], 'nobody');
    expect(roots.query.size).to.equal(0);
    expect(signature(schema, 'query_root')).to.deep.equal(['no_queries_available: String!']);
    expect(description(schema, 'query_root', 'no_queries_available')).to.equal(
      "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.",
    );
    expect(schema.getSubscriptionType() ?? null).to.equal(null);
    expect(graphqlSync({ schema, source: getIntrospectionQuery() }).errors).to.equal(undefined);
  });

  it('gives the placeholder when nothing is tracked', () => {
    const { schema } = roleSchema([makeSource('default', [])]);
    expect(printSchema(schema)).to.contain('no_queries_available: String!');
  });
});

describe('graphql schema: customization', () => {
  it('applies type-name and root-field prefix/suffix (not to shared comparison types)', () => {
    const source = blogSource({ type_names: { prefix: 'pre_', suffix: '_suf' }, root_fields: { prefix: 'p_', suffix: '_s' } });
    const { schema, roots } = roleSchema([source]);
    expect(roots.query.has('p_author_s')).to.equal(true);
    expect(roots.query.has('p_author_by_pk_s')).to.equal(true);
    const names = typeNames(schema);
    expect(names).to.include.members([
      'pre_author_suf', 'pre_author_bool_exp_suf', 'pre_author_order_by_suf', 'pre_author_aggregate_fields_suf',
      'pre_article_status_enum_suf', 'Int_comparison_exp', 'order_by',
    ]);
    expect(names).to.not.include('author');
    expect(signature(schema, 'query_root')).to.include('p_author_by_pk_s(id: Int!): pre_author_suf');
    expect(graphqlSync({ schema, source: getIntrospectionQuery() }).errors).to.equal(undefined);
  });

  it('groups root fields under a namespace', () => {
    const source = blogSource({ root_fields: { namespace: 'blog' } });
    const { schema, roots } = roleSchema([source]);
    expect([...roots.query.keys()]).to.deep.equal(['blog']);
    const entry = roots.query.get('blog')!;
    expect(entry.planner.kind).to.equal('namespace');
    expect(signature(schema, 'query_root')).to.deep.equal(['blog: blog_query']);
    expect(signature(schema, 'blog_query').map((f) => f.split(/[(:]/)[0])).to.include.members(['author', 'author_by_pk', 'article']);
    // The subscription root gets its own namespace object: it also holds the stream fields.
    expect(roots.subscription.get('blog')!.planner.kind).to.equal('namespace');
    expect(signature(schema, 'subscription_root')).to.deep.equal(['blog: blog_subscription']);
    expect(signature(schema, 'blog_subscription').map((f) => f.split(/[(:]/)[0])).to.include.members(['author', 'author_stream']);
  });

  it('uses custom table names, custom root fields and custom column names', () => {
    const source = makeSource('default', [
      {
        ...authorSpec(),
        identifier: 'writer',
        configuration: { custom_name: 'writer', custom_root_fields: { select: 'writers', select_by_pk: 'writer' } },
        columns: [{ name: 'id', type: 'int4' }, { name: 'name', type: 'text', graphqlName: 'fullName' }],
      },
    ]);
    const { schema, roots } = roleSchema([source]);
    expect([...roots.query.keys()].sort()).to.deep.equal(['writer', 'writer_aggregate', 'writers']);
    expect(signature(schema, 'writer')).to.deep.equal(['fullName: String', 'id: Int!']);
    expect(signature(schema, 'writer_select_column')).to.deep.equal(['fullName', 'id']);
  });

  it('supports the graphql-default naming convention', () => {
    const { schema, roots } = roleSchema([blogSource({ naming_convention: 'graphql-default' })]);
    expect(roots.query.has('authorByPk')).to.equal(true);
    expect(roots.query.has('articleAggregate')).to.equal(true);
    expect(signature(schema, 'query_root')).to.include(
      'author(distinctOn: [AuthorSelectColumn!], limit: Int, offset: Int, orderBy: [AuthorOrderBy!], where: AuthorBoolExp): [Author!]!',
    );
    expect(signature(schema, 'OrderBy')).to.deep.equal(['ASC', 'ASC_NULLS_FIRST', 'ASC_NULLS_LAST', 'DESC', 'DESC_NULLS_FIRST', 'DESC_NULLS_LAST']);
    expect(signature(schema, 'IntComparisonExp')).to.include('_isNull: Boolean');
    expect(signature(schema, 'JsonbComparisonExp')).to.include.members(['_hasKeysAny: [String!]', '_containedIn: jsonb']);
    expect(signature(schema, 'ArticleAggregateFields')).to.include('stddevPop: ArticleStddevPopFields');
    expect(signature(schema, 'ArticleStatusEnum')).to.deep.equal(['DRAFT', 'PUBLISHED']);
    expect(signature(schema, 'Article')).to.include('createdAt: timestamptz');
    expect(graphqlSync({ schema, source: getIntrospectionQuery() }).errors).to.equal(undefined);
  });

  it('shares comparison types between sources in one role schema', () => {
    const a = makeSource('a', [authorSpec()], { type_names: { prefix: 'a_' } });
    const b = makeSource('b', [authorSpec()], { type_names: { prefix: 'b_' }, root_fields: { prefix: 'b_' } });
    const { schema, roots } = roleSchema([a, b]);
    expect(roots.query.has('author')).to.equal(true);
    expect(roots.query.has('b_author')).to.equal(true);
    expect(signature(schema, 'a_author_bool_exp')).to.include('id: Int_comparison_exp');
    expect(signature(schema, 'b_author_bool_exp')).to.include('id: Int_comparison_exp');
  });
});
