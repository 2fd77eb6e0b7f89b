import { expect } from 'chai';
import type { Engine } from '../../../core/engine.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata, startTestEngine } from '../../helpers/engine.js';

/**
 * Computed fields beyond selection, on the reference engine's own test schema
 * (tests-py `graphql_query/computed_fields`): a function taking a row tracked both as a root
 * function and as a computed field; table computed fields in `where`; computed fields with a
 * session argument; `<field>_aggregate` in `order_by`; and computed fields (scalar, returning
 * rows, with a session argument) in select, insert, update and delete permissions.
 */
const SQL = `
CREATE TABLE author (id serial PRIMARY KEY, first_name text NOT NULL, last_name text);
INSERT INTO author (first_name, last_name) VALUES ('Roger', 'Chris'), ('Daniel', NULL), ('Ann', 'Lee');
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, content text, author_id int NOT NULL REFERENCES author(id), rating int);
INSERT INTO article (title, content, author_id, rating) VALUES
  ('Article 1', 'Content for Article 1', 1, 3),
  ('Article 2', 'Content for Article 2', 2, 5),
  ('Article 3', 'Content for Article 3', 2, 1);
CREATE FUNCTION fetch_articles(search text, author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE (title ILIKE '%' || search || '%' OR content ILIKE '%' || search || '%') AND author_id = author_row.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION fetch_articles_plain(author_row author) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION full_name(author) RETURNS text AS $$
  SELECT $1.first_name || coalesce(' ' || $1.last_name, '')
$$ LANGUAGE sql STABLE;
CREATE FUNCTION is_me(author_row author, svc json) RETURNS boolean AS $$
  SELECT author_row.id::text = svc->>'x-svc-user-id'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION my_articles(author_row author, svc json) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id AND author_id::text = svc->>'x-svc-user-id'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION name_offset(author_row author, svc json) RETURNS int AS $$
  SELECT length(author_row.first_name) + (svc->>'x-svc-offset-int')::int
$$ LANGUAGE sql STABLE;
`;

const cf = (table: string, name: string, fn: string, extra: Record<string, unknown> = {}) => ({
  type: 'pg_add_computed_field',
  args: { table, name, definition: { function: fn, ...extra } },
});
const perm = (type: string, table: string, role: string, permission: Record<string, unknown>) => ({
  type: `pg_create_${type}_permission`,
  args: { table, role, permission },
});

type Body = { data?: any; errors?: Array<{ message: string; extensions: { code: string; path: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('computed fields in filters, ordering and permissions (integration)', function () {
  let db: TestDatabase;
  let engine: Engine;
  const gql = async (query: string, headers: Record<string, string> = {}): Promise<Body> => {
    const res = await graphql(engine, query, undefined, headers);
    expect(res.status).to.equal(200);
    return res.body as Body;
  };
  const data = async (query: string, headers: Record<string, string> = {}) => {
    const body = await gql(query, headers);
    expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
    return body.data;
  };
  const ok = async (body: unknown) => {
    const res = await metadata(engine, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  before(async () => {
    db = await createTestDatabase('compat_cf_filters', SQL);
    engine = await startTestEngine({ databaseUrl: db.url });
    await ok({
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { table: 'author' } },
        { type: 'pg_track_table', args: { table: 'article' } },
        { type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
        cf('author', 'get_articles', 'fetch_articles', { table_argument: 'author_row' }),
        cf('author', 'get_articles_plain', 'fetch_articles_plain', { table_argument: 'author_row' }),
        cf('author', 'full_name', 'full_name'),
        cf('author', 'is_me', 'is_me', { table_argument: 'author_row', session_argument: 'svc' }),
        cf('author', 'my_articles', 'my_articles', { table_argument: 'author_row', session_argument: 'svc' }),
        cf('author', 'name_offset', 'name_offset', { table_argument: 'author_row', session_argument: 'svc' }),
        { type: 'pg_track_function', args: { function: 'fetch_articles' } },
      ],
    });
  });
  after(async () => {
    await engine?.close();
    await db?.drop();
  });

  it('serves a function taking a table row both as a root function and as a computed field', async () => {
    // The row argument's scalar is `author_scalar`: a scalar named `author` would clash with the table's type.
    const res = await data(`{
      author(order_by: {id: asc}, limit: 2) { last_name get_articles(args: {search: "Article"}) { id title } }
      fetch_articles(args: {search: "Art", author_row: "(1,Roger,Chris)"}) { title content }
    }`);
    expect(res).to.deep.equal({
      author: [
        { last_name: 'Chris', get_articles: [{ id: 1, title: 'Article 1' }] },
        { last_name: null, get_articles: [{ id: 2, title: 'Article 2' }, { id: 3, title: 'Article 3' }] },
      ],
      fetch_articles: [{ title: 'Article 1', content: 'Content for Article 1' }],
    });
    const type = await data('{ __type(name: "fetch_articles_args") { inputFields { name type { name } } } }');
    expect(type.__type.inputFields).to.deep.include({ name: 'author_row', type: { name: 'author_scalar' } });
  });

  it('filters by a table computed field, and refuses one with input arguments as the reference does', async () => {
    expect(await data('{ author(where: {get_articles_plain: {title: {_ilike: "%1%"}}}) { id first_name last_name full_name } }')).to.deep.equal({
      author: [{ id: 1, first_name: 'Roger', last_name: 'Chris', full_name: 'Roger Chris' }],
    });
    const refused = await gql('{ author(where: {get_articles: {title: {_ilike: "%random%"}}}) { id } }');
    expect(refused.errors).to.deep.equal([
      {
        extensions: { path: '$.selectionSet.author.args.where.get_articles', code: 'validation-failed' },
        message: "field 'get_articles' not found in type: 'author_bool_exp'",
      },
    ]);
  });

  it('filters by computed fields taking the session', async () => {
    const session = { 'x-svc-role': 'admin', 'x-svc-user-id': '2', 'x-svc-offset-int': '1' };
    expect(await data('{ author(where: {name_offset: {_gt: 5}}, order_by: {id: asc}) { id } }', session)).to.deep.equal({
      author: [{ id: 1 }, { id: 2 }],
    });
    expect(await data('{ author(where: {is_me: {_eq: true}}) { id } }', session)).to.deep.equal({ author: [{ id: 2 }] });
    expect(await data('{ author(where: {my_articles: {rating: {_gte: 1}}}) { id } }', session)).to.deep.equal({ author: [{ id: 2 }] });
  });

  it('orders by aggregates of a table computed field', async () => {
    const byCount = await data('{ author(order_by: [{get_articles_plain_aggregate: {count: desc}}, {id: asc}]) { id } }');
    expect(byCount.author.map((a: { id: number }) => a.id)).to.deep.equal([2, 1, 3]);
    const byMax = await data('{ author(order_by: {get_articles_plain_aggregate: {max: {rating: asc_nulls_last}}}) { id } }');
    expect(byMax.author.map((a: { id: number }) => a.id)).to.deep.equal([1, 2, 3]);
    // As for the `where` argument, only computed fields without input arguments are there.
    const refused = await gql('{ author(order_by: {get_articles_aggregate: {count: asc}}) { id } }');
    expect(refused.errors?.[0]?.message).to.equal("field 'get_articles_aggregate' not found in type: 'author_order_by'");
  });

  describe('in permissions', () => {
    before(async () => {
      await ok({
        type: 'bulk',
        args: [
          perm('select', 'author', 'user', {
            columns: ['id', 'first_name'],
            computed_fields: ['full_name', 'is_me'],
            filter: { _or: [{ is_me: { _eq: true } }, { full_name: { _like: 'Ann%' } }, { get_articles_plain: { rating: { _eq: 3 } } }] },
          }),
          perm('select', 'article', 'user', { columns: ['id', 'title', 'author_id'], filter: { author: { my_articles: { id: { _is_null: false } } } } }),
          perm('insert', 'article', 'user', { columns: ['title', 'author_id'], check: { author: { is_me: true } } }),
          perm('update', 'author', 'user', { columns: ['last_name'], filter: { is_me: { _eq: true } }, check: { full_name: { _nlike: '%bad%' } } }),
          perm('delete', 'article', 'user', { filter: { author: { get_articles_plain: { rating: { _gt: 4 } } } } }),
        ],
      });
    });
    const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

    it('filters selects with scalar, session and table computed fields', async () => {
      // Author 2 is the user; author 3 matches by name; author 1 has an article rated 3.
      expect(await data('{ author(order_by: {id: asc}) { id full_name is_me } }', user(2))).to.deep.equal({
        author: [
          { id: 1, full_name: 'Roger Chris', is_me: false },
          { id: 2, full_name: 'Daniel', is_me: true },
          { id: 3, full_name: 'Ann Lee', is_me: false },
        ],
      });
      expect(await data('{ article(order_by: {id: asc}) { id author_id } }', user(2))).to.deep.equal({
        article: [{ id: 2, author_id: 2 }, { id: 3, author_id: 2 }],
      });
    });

    it('checks inserts and updates with computed fields', async () => {
      expect(await data('mutation { insert_article_one(object: {title: "mine", author_id: 2}) { title } }', user(2))).to.deep.equal({
        insert_article_one: { title: 'mine' },
      });
      const refused = await gql('mutation { insert_article_one(object: {title: "theirs", author_id: 1}) { title } }', user(2));
      expect(refused.errors?.[0]).to.deep.include({ message: 'check constraint of an insert/update permission has failed' });
      expect(refused.errors?.[0]?.extensions.code).to.equal('permission-error');
      expect((await db.sql(`SELECT count(*)::int AS n FROM article WHERE title = 'theirs'`)).rows).to.deep.equal([{ n: 0 }]);

      const bad = await gql('mutation { update_author(where: {}, _set: {last_name: "bad"}) { affected_rows } }', user(2));
      expect(bad.errors?.[0]?.extensions.code).to.equal('permission-error');
      expect(await data('mutation { update_author(where: {}, _set: {last_name: "Good"}) { affected_rows } }', user(2))).to.deep.equal({
        update_author: { affected_rows: 1 },
      });
      expect((await db.sql('SELECT id FROM author WHERE last_name = $1', ['Good'])).rows).to.deep.equal([{ id: 2 }]);
    });

    it('filters deletes through a table computed field', async () => {
      // Only author 2 has an article rated above 4, so only its articles may be deleted.
      expect(await data('mutation { delete_article(where: {title: {_eq: "mine"}}) { affected_rows } }', user(2))).to.deep.equal({
        delete_article: { affected_rows: 1 },
      });
      await db.sql(`INSERT INTO article (title, author_id, rating) VALUES ('keep', 1, 2)`);
      expect(await data('mutation { delete_article(where: {title: {_eq: "keep"}}) { affected_rows } }', user(1))).to.deep.equal({
        delete_article: { affected_rows: 0 },
      });
    });

    it('refuses a computed field with input arguments in a permission, with the reference message', async () => {
      const res = await metadata(engine, perm('select', 'author', 'other', { columns: ['id'], filter: { get_articles: { id: { _eq: 1 } } } }));
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ code: 'invalid-configuration' });
      expect(res.body.error).to.contain('Computed columns with input arguments can not be part of the where clause');
    });

    it('refuses to drop a computed field permission expressions use, naming them', async () => {
      const res = await metadata(engine, { type: 'pg_drop_computed_field', args: { table: 'author', name: 'my_articles' } });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({
        code: 'dependency-error',
        error: 'cannot drop due to the following dependent objects: permission article.user.select in source "default"',
      });
    });

    it('refuses an operator that does not suit the computed field type', async () => {
      const res = await metadata(engine, perm('select', 'author', 'other', { columns: ['id'], filter: { is_me: { _like: 'x' } } }));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.contain('is of type "boolean"; this operator works only on columns of type');
    });
  });
});
