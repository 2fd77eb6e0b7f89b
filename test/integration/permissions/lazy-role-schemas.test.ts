/**
 * A role's schema is built as requests reach it (core/graphql/schema/lazy-schema.ts): through the
 * whole engine, queries with variables, fragments, relationships, aggregates and mutations answer
 * without building the complete schema, errors are the complete schema's, and introspection
 * builds it and answers every type.
 */
import { expect } from 'chai';
import type { SchemaCacheRef } from '../../../core/schema-cache/ref.js';
import { isLazyRoleSchema, type LazyRoleSchema } from '../../../core/graphql/schema/lazy-schema.js';
import { metadata } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { as, queryAs, startPermissionsFixture } from './fixture.js';

describe('role schemas built as requests reach them (integration)', function () {
  this.timeout(60_000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startPermissionsFixture('perm_lazy');
    const res = await metadata(f.engine, {
      type: 'pg_create_insert_permission',
      args: { source: 'default', table: 'article', role: 'user', permission: { columns: ['title', 'author_id'], check: { author_id: { _eq: 'X-Svc-User-Id' } } } },
    });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  });
  after(async () => f?.close());

  const schemaOf = async (role: string): Promise<LazyRoleSchema> => {
    const ref = f.engine.kernel.container.resolve<SchemaCacheRef>('schemaCacheRef');
    const schema = (await ref.current.schemaFor(role)).schema;
    // By its brand: this file and the engine may hold different copies of the module.
    expect(isLazyRoleSchema(schema)).to.equal(true);
    return schema as LazyRoleSchema;
  };

  it('answers queries with variables, fragments, relationships and aggregates without building the complete schema', async () => {
    const body = await queryAs(
      f,
      as('user', 1),
      `query Q($id: Int!, $where: article_bool_exp, $order: [article_order_by!]) {
        author_by_pk(id: $id) { ...A }
        article(where: $where, order_by: $order) { id title comments { ... on comment { body } } }
        article_aggregate { aggregate { count } }
      }
      fragment A on author { id name }`,
      { id: 1, where: { rating: { _gte: 4 } }, order: [{ id: 'desc' }] },
    );
    expect(body.errors).to.equal(undefined);
    expect(body.data.author_by_pk).to.deep.equal({ id: 1, name: 'Ada Lovelace' });
    expect(body.data.article.map((a: { id: number }) => a.id)).to.deep.equal([2, 1]);
    expect(body.data.article[1].comments.map((c: { body: string }) => c.body)).to.have.members(['visionary', 'agreed']);
    expect(body.data.article_aggregate.aggregate.count).to.equal(2);
    const mutation = await queryAs(f, as('user', 1), 'mutation($t: String!) { insert_article_one(object: {title: $t, author_id: 1}) { id title } }', { t: 'lazy' });
    expect(mutation.errors).to.equal(undefined);
    expect(mutation.data.insert_article_one.title).to.equal('lazy');
    expect((await schemaOf('user')).completed).to.equal(false);
  });

  it('refuses an unknown type with the complete schema\'s message, and then serves from the complete schema', async () => {
    const body = await queryAs(f, as('reader', 1), 'query($w: article_bool_ex) { article(where: $w) { id } }', {});
    expect(body.errors?.[0]?.message).to.match(/^Unknown type "article_bool_ex"\. Did you mean "article_bool_exp"/);
    expect(body.errors?.[0]?.extensions.code).to.equal('validation-failed');
    expect((await schemaOf('reader')).completed).to.equal(true);
    const ok = await queryAs(f, as('reader', 1), 'query($w: article_bool_exp) { article(where: $w) { id } }', { w: { rating: { _eq: 5 } } });
    expect(ok.errors).to.equal(undefined);
    expect(ok.data.article).to.have.length.greaterThan(0);
  });

  it('builds the complete schema for introspection, with the role\'s types only', async () => {
    expect((await schemaOf('nopk')).completed).to.equal(false);
    const body = await queryAs(f, as('nopk'), '{ __schema { queryType { name } types { name } } }');
    expect(body.errors).to.equal(undefined);
    const names = body.data.__schema.types.map((t: { name: string }) => t.name);
    expect(names).to.include.members(['author', 'author_bool_exp', 'query_root', 'String']);
    expect(names).to.not.include('article');
    expect(names).to.not.include('author_by_pk');
    expect((await schemaOf('nopk')).completed).to.equal(true);
  });
});
