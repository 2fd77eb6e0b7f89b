import { expect } from 'chai';
import { call } from '../../helpers/engine.js';
import { as, dataOf, errorOf, ok, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** VOLATILE functions under the mutation root, run in the request's mutation transaction. */
describe('tracked functions: VOLATILE functions as mutations (integration)', function () {
  let f: FunctionsFixture;
  before(async () => {
    f = await startFunctionsFixture('fn_mutation');
    await ok(
      f.meta({
        type: 'bulk',
        args: [
          { type: 'pg_track_function', args: { function: 'publish_article' } },
          { type: 'pg_track_function', args: { function: 'touch_own_articles' } },
          {
            type: 'pg_create_select_permission',
            args: { table: 'article', role: 'user', permission: { columns: ['id', 'views'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } },
          },
        ],
      }),
    );
  });
  after(async () => f?.close());

  const published = async (id: number): Promise<boolean> =>
    (await f.db.sql('SELECT is_published FROM article WHERE id = $1', [id])).rows[0].is_published;

  it('puts a VOLATILE function under the mutation root only', async () => {
    const schema = dataOf(await f.gql('{ q: __type(name: "query_root") { fields { name } } m: __type(name: "mutation_root") { fields { name description } } }'));
    expect(schema.q.fields.map((x: { name: string }) => x.name)).to.not.include('publish_article');
    const m = schema.m.fields.find((x: { name: string }) => x.name === 'publish_article');
    expect(m.description).to.equal('execute VOLATILE function "publish_article" which returns "article"');
  });

  it('runs it and answers with its rows', async () => {
    const data = dataOf(await f.gql('mutation { publish_article(args: {aid: 5}) { id is_published } }'));
    expect(data).to.deep.equal({ publish_article: [{ id: 5, is_published: true }] });
    expect(await published(5)).to.equal(true);
    await f.db.sql('UPDATE article SET is_published = false WHERE id = 5');
  });

  it('runs in the mutation transaction: a later failing field rolls its effect back', async () => {
    const res = await f.gql(`mutation {
      publish_article(args: {aid: 5}) { id }
      insert_author_one(object: {id: 1, name: "duplicate"}) { id }
    }`);
    expect(errorOf(res).code).to.equal('constraint-violation');
    expect(await published(5)).to.equal(false);
  });

  it('sets the session as svc.user before it runs', async () => {
    await ok(f.meta({ type: 'pg_create_function_permission', args: { function: 'touch_own_articles', role: 'user' } }));
    const before = (await f.db.sql('SELECT id, views FROM article WHERE author_id = 3 ORDER BY id')).rows;
    const data = dataOf(await f.gql('mutation { touch_own_articles { id views } }', as('user', 3)));
    expect(data.touch_own_articles).to.deep.equal(before.map((r: { id: number; views: string }) => ({ id: r.id, views: Number(r.views) + 1 })));
  });

  it('is hidden from a role without a function permission, even with inferred permissions', async () => {
    const res = await f.gql('mutation { publish_article(args: {aid: 5}) { id } }', as('user', 2));
    expect(errorOf(res).code).to.equal('validation-failed');
    expect(await published(5)).to.equal(false);
  });

  it('can be exposed as a query instead', async () => {
    await ok(f.meta({ type: 'pg_untrack_function', args: { function: 'publish_article' } }));
    await ok(f.meta({ type: 'pg_track_function', args: { function: 'publish_article', configuration: { exposed_as: 'query' } } }));
    const data = dataOf(await f.gql('{ publish_article(args: {aid: 9}) { id } }'));
    expect(data).to.deep.equal({ publish_article: [{ id: 9 }] });
    const m = dataOf(await f.gql('{ __type(name: "mutation_root") { fields { name } } }'));
    expect(m.__type.fields.map((x: { name: string }) => x.name)).to.not.include('publish_article');
  });
});

describe('tracked functions: --infer-function-permissions (integration)', function () {
  for (const infer of [true, false]) {
    describe(`inferFunctionPermissions: ${infer}`, () => {
      let f: FunctionsFixture;
      before(async () => {
        f = await startFunctionsFixture(`fn_infer_${infer}`, { inferFunctionPermissions: infer });
        await ok(
          f.meta({
            type: 'bulk',
            args: [
              { type: 'pg_track_function', args: { function: 'search_articles' } },
              { type: 'pg_track_function', args: { function: 'publish_article', configuration: { exposed_as: 'query' } } },
              { type: 'pg_create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id'], filter: {} } } },
            ],
          }),
        );
      });
      after(async () => f?.close());

      const fields = async (role: string): Promise<string[]> => {
        const data = dataOf(await f.gql('{ __type(name: "query_root") { fields { name } } }', as(role)));
        return data.__type.fields.map((x: { name: string }) => x.name);
      };

      it(infer ? 'shows a STABLE function to every role that may select its table' : 'shows no function without an explicit permission', async () => {
        const visible = await fields('user');
        expect(visible.includes('search_articles')).to.equal(infer);
        // A VOLATILE function is never inferred, whatever root it is exposed under.
        expect(visible).to.not.include('publish_article');
        expect(await fields('admin')).to.include.members(['search_articles', 'publish_article']);
      });

      it('shows a function to a role with an explicit function permission', async () => {
        await ok(f.meta({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } }));
        await ok(f.meta({ type: 'pg_create_function_permission', args: { function: 'publish_article', role: 'user' } }));
        expect(await fields('user')).to.include.members(['search_articles', 'publish_article']);
        const data = dataOf(await f.gql('{ search_articles(args: {search: "harmful"}) { id } }', as('user')));
        expect(data).to.deep.equal({ search_articles: [{ id: 7 }] });
        await ok(f.meta({ type: 'pg_drop_function_permission', args: { function: 'search_articles', role: 'user' } }));
        expect((await fields('user')).includes('search_articles')).to.equal(infer);
      });

      it('reports the setting in the config API', async () => {
        const res = await call<{ is_function_permissions_inferred: boolean }>(f.engine, '/v1alpha1/config');
        expect(res.body.is_function_permissions_inferred).to.equal(infer);
      });
    });
  }
});
