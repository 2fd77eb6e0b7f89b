/**
 * The plan's queries Q0-Q8: the engine's GraphQL, how wrk varies the variables, sample variables
 * for the correctness gate, a reference written in plain SQL (independent of the engine's SQL),
 * and PostGraphile's equivalent (aliased to our names, so the `data` compares as it is; its
 * inflected field names are looked up by introspection: `{{Author->[Article]}}` is the field of
 * `Author` listing `Article`s, `{{Query->Author(id)}}` the one taking an `id`).
 */
export type VarSpec = { name: string; kind: 'int'; min: number; max: number } | { name: string; kind: 'text'; prefix: string };

export type Vars = Record<string, number | string>;

export interface BenchQuery {
  id: string;
  title: string;
  graphql: string;
  vars: VarSpec[];
  /** Run as the `user` role, with `X-Svc-User-Id` taken from this variable. */
  userIdVar?: string;
  mutation?: boolean;
  samples: Vars[];
  /** SQL returning the expected `data` as one JSON value; null when the gate is custom (Q0, Q6). */
  reference: ((v: Vars) => string) | null;
  /** Null when PostGraphile has no equivalent without more plugins; `why` says so in the report. */
  postgraphile: { query: string } | { why: string };
  /** pgbench and Node floor SQL written by hand, when the explain API cannot give the engine's. */
  manualSql?: { pgbench: string; floor: string };
}

const agg = (inner: string) => `coalesce(json_agg(${inner}), '[]')`;
const int = (name: string, min: number, max: number): VarSpec => ({ name, kind: 'int', min, max });

export const QUERIES: BenchQuery[] = [
  {
    id: 'Q0',
    title: '`__typename` (no database)',
    graphql: 'query Q0 { __typename }',
    vars: [],
    samples: [{}],
    reference: null,
    postgraphile: { query: 'query Q0 { __typename }' },
  },
  {
    id: 'Q1',
    title: 'pk lookup `author_by_pk(id)`',
    graphql: 'query Q1($id: Int!) { author_by_pk(id: $id) { id name email } }',
    vars: [int('id', 1, 10_000)],
    samples: [{ id: 1 }, { id: 5000 }, { id: 10_000 }],
    reference: (v) =>
      `SELECT json_build_object('author_by_pk', (SELECT json_build_object('id', id, 'name', name, 'email', email) FROM author WHERE id = ${v['id']}))`,
    postgraphile: { query: 'query Q1($id: Int!) { author_by_pk: {{Query->Author(id)}}(id: $id) { id name email } }' },
  },
  {
    id: 'Q2',
    title: 'list with where, order and limit',
    graphql:
      'query Q2($a: Int!) { article(where: {author_id: {_eq: $a}, rating: {_gte: 3}}, order_by: {published_at: desc}, limit: 20) { id title rating published_at } }',
    vars: [int('a', 1, 10_000)],
    samples: [{ a: 1 }, { a: 777 }, { a: 10_000 }],
    reference: (v) => `SELECT json_build_object('article', (SELECT ${agg(
      `json_build_object('id', id, 'title', title, 'rating', rating, 'published_at', published_at) ORDER BY published_at DESC`,
    )} FROM (SELECT * FROM article WHERE author_id = ${v['a']} AND rating >= 3 ORDER BY published_at DESC LIMIT 20) s))`,
    postgraphile: {
      query:
        'query Q2($a: Int!) { article: {{Query->[Article]}}(filter: {authorId: {equalTo: $a}, rating: {greaterThanOrEqualTo: 3}}, orderBy: PUBLISHED_AT_DESC, first: 20) { id title rating published_at: publishedAt } }',
    },
  },
  {
    id: 'Q3',
    title: 'nested object relationship',
    graphql: 'query Q3($cursor: Int!) { article(where: {id: {_gt: $cursor}}, order_by: {id: asc}, limit: 20) { id title author { id name } } }',
    vars: [int('cursor', 0, 99_980)],
    samples: [{ cursor: 0 }, { cursor: 50_000 }, { cursor: 99_990 }],
    reference: (v) => `SELECT json_build_object('article', (SELECT ${agg(
      `json_build_object('id', s.id, 'title', s.title, 'author', json_build_object('id', au.id, 'name', au.name)) ORDER BY s.id`,
    )} FROM (SELECT * FROM article WHERE id > ${v['cursor']} ORDER BY id LIMIT 20) s JOIN author au ON au.id = s.author_id))`,
    postgraphile: {
      query:
        'query Q3($cursor: Int!) { article: {{Query->[Article]}}(filter: {id: {greaterThan: $cursor}}, orderBy: ID_ASC, first: 20) { id title author: {{Article->Author}} { id name } } }',
    },
  },
  {
    id: 'Q4',
    title: 'nested array relationships, 2 levels',
    // comments are ordered (the plan leaves them unordered) so every candidate's answer is deterministic.
    graphql:
      'query Q4($x: Int!) { author(where: {id: {_gt: $x}}, order_by: {id: asc}, limit: 10) { id name articles(order_by: {published_at: desc}, limit: 5) { id title comments(order_by: {id: asc}, limit: 3) { id body } } } }',
    vars: [int('x', 0, 9_990)],
    samples: [{ x: 0 }, { x: 5000 }, { x: 9_995 }],
    reference: (v) => `SELECT json_build_object('author', (SELECT ${agg(
      `json_build_object('id', au.id, 'name', au.name, 'articles', (SELECT ${agg(
        `json_build_object('id', ar.id, 'title', ar.title, 'comments', (SELECT ${agg(
          `json_build_object('id', c.id, 'body', c.body) ORDER BY c.id`,
        )} FROM (SELECT * FROM comment WHERE article_id = ar.id ORDER BY id LIMIT 3) c)) ORDER BY ar.published_at DESC`,
      )} FROM (SELECT * FROM article WHERE author_id = au.id ORDER BY published_at DESC LIMIT 5) ar)) ORDER BY au.id`,
    )} FROM (SELECT * FROM author WHERE id > ${v['x']} ORDER BY id LIMIT 10) au))`,
    postgraphile: {
      query:
        'query Q4($x: Int!) { author: {{Query->[Author]}}(filter: {id: {greaterThan: $x}}, orderBy: ID_ASC, first: 10) { id name articles: {{Author->[Article]}}(orderBy: PUBLISHED_AT_DESC, first: 5) { id title comments: {{Article->[Comment]}}(orderBy: ID_ASC, first: 3) { id body } } } }',
    },
  },
  {
    id: 'Q5',
    title: 'aggregate',
    graphql:
      'query Q5($a: Int!) { article_aggregate(where: {author_id: {_eq: $a}}) { aggregate { count avg { rating } max { published_at } } } }',
    vars: [int('a', 1, 10_000)],
    samples: [{ a: 1 }, { a: 4242 }, { a: 9_999 }],
    reference: (v) =>
      `SELECT json_build_object('article_aggregate', (SELECT json_build_object('aggregate', json_build_object('count', count(*), 'avg', json_build_object('rating', avg(rating)), 'max', json_build_object('published_at', max(published_at)))) FROM article WHERE author_id = ${v['a']}))`,
    postgraphile: { why: 'needs @graphile/pg-aggregates (not installed); compared with pgbench only, as the plan allows' },
  },
  {
    id: 'Q6',
    title: 'mutation `insert_article_one`',
    graphql:
      'mutation Q6($a: Int!, $t: String!, $b: String!) { insert_article_one(object: {author_id: $a, title: $t, body: $b, rating: 3, published_at: "now()"}) { id } }',
    vars: [int('a', 1, 10_000), { name: 't', kind: 'text', prefix: 'bench title ' }, { name: 'b', kind: 'text', prefix: 'bench body ' }],
    mutation: true,
    samples: [{ a: 42, t: 'gate title', b: 'gate body' }],
    reference: null,
    postgraphile: {
      query:
        'mutation Q6($a: Int!, $t: String!, $b: String!) { insert_article_one: createArticle(input: {article: {authorId: $a, title: $t, body: $b, rating: 3, publishedAt: "now()"}}) { article { id } } }',
    },
    // The explain API explains queries only (as the reference does), so the INSERT is written here.
    manualSql: {
      pgbench:
        "INSERT INTO article (author_id, title, body, rating, published_at) VALUES ({{a}}, 'bench title ' || {{n}}, 'bench body ' || {{n}}, 3, now()) RETURNING json_build_object('id', id)::text AS root",
      floor:
        "INSERT INTO article (author_id, title, body, rating, published_at) VALUES ({{a}}::int4, {{t}}::text, {{b}}::text, 3, now()) RETURNING json_build_object('id', id)::text AS root",
    },
  },
  {
    id: 'Q7',
    title: 'pk lookup as role `user` (permission filter on a session variable)',
    graphql: 'query Q7($id: Int!) { author_by_pk(id: $id) { id name email } }',
    vars: [int('id', 1, 10_000)],
    userIdVar: 'id',
    samples: [{ id: 1 }, { id: 4242 }, { id: 10_000 }],
    reference: (v) =>
      `SELECT json_build_object('author_by_pk', (SELECT json_build_object('id', id, 'name', name, 'email', email) FROM author WHERE id = ${v['id']}))`,
    postgraphile: { why: 'needs row-level security and JWT roles in PostgreSQL; not set up' },
  },
  {
    id: 'Q8',
    title: 'mutation `update_author_by_pk` as role `user` (filter and check on the row)',
    graphql: 'mutation Q8($id: Int!, $n: String!) { update_author_by_pk(pk_columns: {id: $id}, _set: {name: $n}) { id name } }',
    vars: [int('id', 1, 10_000), { name: 'n', kind: 'text', prefix: 'bench name ' }],
    userIdVar: 'id',
    mutation: true,
    samples: [{ id: 42, n: 'gate name' }],
    reference: null,
    postgraphile: { why: 'needs row-level security and JWT roles in PostgreSQL; not set up' },
    // The floor and pgbench run the bare UPDATE (no session, no check), as Q6's run the bare INSERT.
    manualSql: {
      pgbench: "UPDATE author SET name = 'bench name ' || {{n}} WHERE id = {{id}} RETURNING json_build_object('id', id, 'name', name)::text AS root",
      floor: "UPDATE author SET name = {{n}}::text WHERE id = {{id}}::int4 RETURNING json_build_object('id', id, 'name', name)::text AS root",
    },
  },
];

/** The root field each query answers (the only key of `data`). */
export function rootField(q: BenchQuery): string {
  const m = /\{\s*(\w+)/.exec(q.graphql.slice(q.graphql.indexOf('{')));
  return m ? m[1]! : '';
}
