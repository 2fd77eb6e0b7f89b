/**
 * The GraphQL requests of the conformance suite (suite.ts), in its order, with a few beyond it,
 * and the metadata they run against: the cases of the SQL snapshot tests, which pin the
 * statements a kind generates for each (test/plugins/db/mssql/conformance-sql.test.ts,
 * test/plugins/db/mariadb/conformance-sql.test.ts). Shared so that both kinds are asked the same.
 */
export const SECRET = 'conformance';
export const ADMIN = { 'x-svc-admin-secret': SECRET };

export interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const user = (id: string) => ({ ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': id });

/** Every GraphQL request of the conformance suite, in its order. */
export const READS: Case[] = [
  { name: 'relationships: object, manual', query: '{ article(order_by: {id: asc}, limit: 2) { id title published author { name } writer { id } } }' },
  { name: 'relationships: array', query: '{ author(order_by: {id: asc}) { name articles(order_by: {id: desc}) { id } } }' },
  ...Object.entries({
    _eq: '{views: {_eq: 10}}',
    _neq: '{views: {_neq: 10}}',
    _gt: '{views: {_gt: 5}}',
    _lt: '{views: {_lt: 20}}',
    _gte: '{views: {_gte: 10}}',
    _lte: '{views: {_lte: 10}}',
    _in: '{id: {_in: [1, 3, 9]}}',
    _nin: '{id: {_nin: [1, 3]}}',
    _is_null: '{views: {_is_null: true}}',
    _like: '{title: {_like: "%a"}}',
    _nlike: '{title: {_nlike: "%a"}}',
    _ilike: '{title: {_ilike: "%A"}}',
    _nilike: '{title: {_nilike: "a%"}}',
    'like escaped percent': '{title: {_like: "%\\\\%"}}',
    'bit _eq': '{published: {_eq: false}}',
    'text _eq exact': '{title: {_eq: "alpha"}}',
    'text _eq trailing space': '{title: {_eq: "Alpha "}}',
    'text _neq': '{title: {_neq: "alpha"}}',
    'text _in': '{title: {_in: ["ALPHA", "beta"]}}',
    'text _nin': '{title: {_nin: ["ALPHA", "beta"]}}',
    _and: '{_and: [{views: {_gt: 1}}, {published: {_eq: true}}]}',
    _or: '{_or: [{id: {_eq: 1}}, {views: {_is_null: true}}]}',
    '_not through object relationship': '{_not: {author: {name: {_eq: "Ann"}}}}',
    'object relationship filter': '{author: {rating: {_gte: 3}}}',
  }).map(([name, where]): Case => ({ name: `where ${name}`, query: `{ article(where: ${where}, order_by: {id: asc}) { id } }` })),
  { name: 'array relationship filter', query: '{ author(where: {articles: {views: {_gt: 15}}}) { id } }' },
  ...['{rating: asc}', '{rating: asc_nulls_first}', '{rating: desc}', '{rating: desc_nulls_last}'].map((o): Case => ({ name: `order ${o}`, query: `{ author(order_by: ${o}) { id } }` })),
  { name: 'order through object relationship', query: '{ article(order_by: [{author: {name: desc}}, {id: desc}]) { id } }' },
  { name: 'order through object relationship, paged', query: '{ article(order_by: [{author: {rating: desc_nulls_last}}, {id: asc}], limit: 3) { id } }' },
  { name: 'nested order', query: '{ author(where: {id: {_eq: 1}}) { articles(order_by: {views: desc}) { id } } }' },
  ...[
    '{articles_aggregate: {count: {predicate: {_gt: 1}}}}',
    '{articles_aggregate: {count: {arguments: [views], predicate: {_eq: 0}}}}',
    '{articles_aggregate: {count: {arguments: [author_id], distinct: true, filter: {published: {_eq: true}}, predicate: {_eq: 1}}}}',
    '{articles_aggregate: {bool_and: {arguments: published, predicate: {_eq: true}}}}',
    '{articles_aggregate: {bool_or: {arguments: published, filter: {views: {_lt: 15}}, predicate: {_eq: true}}}}',
  ].map((where, i): Case => ({ name: `aggregate predicate ${i + 1}`, query: `{ author(where: ${where}, order_by: {id: asc}) { id } }` })),
  { name: 'root limit and offset', query: '{ article(order_by: {id: asc}, limit: 2, offset: 1) { id } }' },
  { name: 'root paging from variables', query: 'query ($l: Int, $o: Int) { article(order_by: {id: asc}, limit: $l, offset: $o) { id } }', variables: { l: 1, o: 2 } },
  { name: 'nested limit and offset', query: '{ author(where: {id: {_eq: 1}}) { articles(order_by: {id: asc}, limit: 1, offset: 1) { id } } }' },
  ...[{ l: 1, o: 1 }, { l: 0 }, { o: 1 }, {}].map((variables): Case => ({
    name: `nested paging from variables ${JSON.stringify(variables)}`,
    query: 'query ($l: Int, $o: Int) { author(where: {id: {_eq: 1}}) { articles(order_by: {id: desc}, limit: $l, offset: $o) { id } } }',
    variables,
  })),
  { name: 'nested aggregate nodes paged by a variable', query: 'query ($l: Int) { author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: asc}, limit: $l) { nodes { id } } } }', variables: { l: 1 } },
  { name: 'root aggregate', query: '{ article_aggregate(where: {published: {_eq: true}}) { aggregate { count sum { views } max { views } min { title } avg { views } } nodes { id } } }' },
  { name: 'counts', query: '{ article_aggregate { aggregate { count(columns: views) cd: count(columns: author_id, distinct: true) } } }' },
  { name: 'nested aggregate', query: '{ author(order_by: {id: asc}) { articles_aggregate { aggregate { count } } } }' },
  { name: 'nested aggregate over a paged set', query: '{ author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: desc}, limit: 1) { aggregate { count sum { views } } nodes { id } } } }' },
  {
    name: 'nested aggregate over a set paged by a variable',
    query: 'query ($l: Int) { author(where: {id: {_eq: 1}}) { articles_aggregate(order_by: {id: desc}, limit: $l) { aggregate { count sum { views } } nodes { id } } } }',
    variables: { l: 1 },
  },
  { name: 'by primary key', query: '{ article_by_pk(id: 3) { title views author { name } } }' },
  { name: 'typename', query: '{ article(limit: 1) { __typename id } }' },
];

/** Beyond the suite: the rest of what the compiler handles, for the syntax check and the snapshot. */
export const EXTRA: Case[] = [
  { name: 'extra: _is_null from a variable', query: 'query ($n: Boolean) { article(where: {views: {_is_null: $n}}) { id } }', variables: { n: false } },
  { name: 'extra: aggregate predicate', query: '{ author(where: {articles_aggregate: {count: {predicate: {_gt: 1}, filter: {published: {_eq: true}}}}}) { id } }' },
  { name: 'extra: order by an array aggregate', query: '{ author(order_by: {articles_aggregate: {count: desc}}) { id } }' },
  { name: 'extra: order by an aggregate of a column, paged', query: '{ author(order_by: [{articles_aggregate: {max: {views: asc_nulls_first}}}, {id: asc}], limit: 2) { id } }' },
  { name: 'extra: deep nesting', query: '{ author(limit: 1) { articles(limit: 2, order_by: {id: asc}) { title author { name articles_aggregate { aggregate { count } } } } } }' },
  { name: 'extra: all aggregate functions', query: '{ article_aggregate { aggregate { count(columns: [views, author_id]) stddev { views } stddev_pop { views } var_pop { views } variance { views } sum { views author_id } __typename } __typename } }' },
  { name: 'extra: offset only', query: '{ article(order_by: {id: asc}, offset: 2) { id } }' },
  { name: 'extra: limit 0', query: '{ article(limit: 0) { id } }' },
  { name: 'extra: _nin with a variable list', query: 'query ($ids: [Int!]) { article(where: {id: {_nin: $ids}}) { id } }', variables: { ids: [1, 2] } },
  { name: 'extra: delete by primary key', query: 'mutation { delete_article_by_pk(id: 1) { id title } }' },
  { name: 'extra: update with _set null and _inc', query: 'mutation { update_article(where: {id: {_gt: 3}}, _set: {views: null}, _inc: {author_id: 0}) { affected_rows } }' },
  { name: 'extra: upsert with a where', query: 'mutation { insert_article(objects: [{title: "Alpha", published: true, views: 5}], on_conflict: {constraint: article_title_key, update_columns: [views, published], where: {views: {_lt: 100}}}) { affected_rows } }' },
];

export const PERMISSIONED: Case[] = [
  { name: 'role filter with a session variable', query: '{ article(order_by: {id: asc}) { id title } }', headers: user('1') },
  { name: 'role aggregate', query: '{ article_aggregate { aggregate { count } } }', headers: user('1') },
  { name: 'role row limit', query: '{ article(order_by: {id: asc}, limit: 3) { id } }', headers: { ...ADMIN, 'x-svc-role': 'capped' } },
  { name: 'session variable on a bit column', query: '{ article(order_by: {id: asc}) { id } }', headers: { ...ADMIN, 'x-svc-role': 'drafts', 'x-svc-published': 'false' } },
  { name: 'session variable as data', query: '{ article { id } }', headers: user("1' OR '1'='1") },
  { name: 'extra: role filter with _exists and column comparisons', query: '{ article { id } }', headers: { ...ADMIN, 'x-svc-role': 'extra' } },
];

export const MUTATIONS: Case[] = [
  { name: 'insert with returning through a relationship', query: 'mutation { insert_article(objects: [{title: "Eps", author_id: 2, published: false, views: 1}]) { affected_rows returning { title author { name } } } }' },
  { name: 'insert one', query: 'mutation { insert_article_one(object: {title: "Zeta", published: true}) { title views } }' },
  { name: 'update with _inc and _set', query: 'mutation { update_article(where: {title: {_in: ["Eps", "Zeta"]}}, _inc: {views: 2}, _set: {published: true}) { affected_rows returning { title views published } } }' },
  { name: 'update by primary key', query: 'mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {views: 11}) { id views } }' },
  {
    name: 'update many',
    query: 'mutation { update_article_many(updates: [{where: {id: {_eq: 1}}, _inc: {views: 1}}, {where: {id: {_in: [1, 4]}}, _inc: {views: 1}}]) { affected_rows returning { id views } } }',
  },
  { name: 'delete by primary key and update in one request', query: 'mutation { delete_article_by_pk(id: 99) { id } update_article(where: {id: {_eq: 99}}, _set: {views: 1}) { affected_rows returning { id } } }' },
  { name: 'delete with returning', query: 'mutation { delete_article(where: {title: {_in: ["Eps", "Zeta"]}}) { affected_rows returning { title } } }' },
  {
    name: 'nested inserts',
    query: `mutation {
      insert_author_one(object: {id: 10, name: "Dee", articles: {data: [{title: "N1", published: true}, {title: "N2", published: false}]}}) { name articles(order_by: {title: asc}) { title author_id } }
      insert_article_one(object: {title: "N3", published: true, author: {data: {id: 11, name: "Eve"}}}) { title author { id name } } }`,
  },
  { name: 'upsert', query: 'mutation { insert_article(objects: [{title: "Alpha", published: true, views: 77}], on_conflict: {constraint: article_title_key, update_columns: [views]}) { affected_rows returning { id views } } }' },
  { name: 'upsert doing nothing', query: 'mutation { insert_article(objects: [{title: "Alpha", published: true}], on_conflict: {constraint: article_title_key, update_columns: []}) { affected_rows } }' },
  { name: 'role insert with check', query: 'mutation { insert_article(objects: [{title: "Mine", author_id: 3, published: true}]) { affected_rows returning { title } } }', headers: user('3') },
  { name: 'role update with filter and check', query: 'mutation { update_article(where: {}, _set: {title: "Mine2"}) { affected_rows } }', headers: user('2') },
  { name: 'role delete with filter', query: 'mutation { delete_article(where: {title: {_eq: "Mine"}}) { affected_rows } }', headers: user('3') },
];

/** A table of the conformance fixture, in the kind's schema. */
export type FixtureTable = (name: string) => { schema: string; name: string };

/**
 * The suite's relationships and the permissions the cases' roles use, through the kind's
 * `<prefix>_` operations; `meta` sends one metadata request and fails the test unless it succeeds.
 */
export async function conformanceMetadata(meta: (body: unknown) => Promise<void>, prefix: string, source: string, table: FixtureTable): Promise<void> {
  await meta({ type: `${prefix}_create_object_relationship`, args: { source, table: table('article'), name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
  await meta({ type: `${prefix}_create_array_relationship`, args: { source, table: table('author'), name: 'articles', using: { foreign_key_constraint_on: { table: table('article'), column: 'author_id' } } } });
  await meta({ type: `${prefix}_create_object_relationship`, args: { source, table: table('article'), name: 'writer', using: { manual_configuration: { remote_table: table('author'), column_mapping: { author_id: 'id' } } } } });
  const perm = (type: string, role: string, permission: unknown) => meta({ type: `${prefix}_create_${type}_permission`, args: { source, table: table('article'), role, permission } });
  await perm('select', 'user', { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true });
  await perm('select', 'capped', { columns: ['id'], filter: {}, limit: 2 });
  await perm('select', 'drafts', { columns: ['id'], filter: { published: { _eq: 'X-Svc-Published' } } });
  await perm('select', 'extra', {
    columns: ['id'],
    filter: { _and: [{ _exists: { _table: table('author'), _where: { rating: { _gt: 4 } } } }, { id: { _cneq: 'author_id' } }, { author: { id: { _ceq: ['$', 'author_id'] } } }] },
  });
  await perm('insert', 'user', { check: { author_id: { _eq: 'X-Svc-User-Id' } }, columns: ['title', 'author_id', 'published'] });
  await perm('update', 'user', { columns: ['title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } }, check: { title: { _nlike: 'bad%' } } });
  await perm('delete', 'user', { filter: { author_id: { _eq: 'X-Svc-User-Id' } } });
}
