import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { metadata } from '../../helpers/engine.js';
import { ADMIN, Received, startSubsFixture, transportClient, waitFor, type SubsFixture } from './fixture.js';

describe('subscriptions: every query root field is a live query (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  let c: Client;
  before(async () => {
    f = await startSubsFixture(
      'roots',
      { liveQueriesMultiplexedRefetchInterval: 100 },
      `CREATE FUNCTION search_articles(q text) RETURNS SETOF article STABLE LANGUAGE sql AS $$ SELECT * FROM article WHERE title ILIKE q $$;
       CREATE FUNCTION article_shout(a article) RETURNS text STABLE LANGUAGE sql AS $$ SELECT upper(a.title) $$;`,
    );
    const res = await metadata(
      f.engine,
      {
        type: 'bulk',
        args: [
          { type: 'pg_track_function', args: { function: 'search_articles' } },
          { type: 'pg_add_computed_field', args: { table: 'article', name: 'shout', definition: { function: 'article_shout' } } },
        ],
      },
      ADMIN,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    c = transportClient(f.wsUrl, ADMIN);
  });
  after(async () => {
    await c?.dispose();
    await f?.close();
  });

  const live = async (query: string, variables?: Record<string, unknown>): Promise<Received<{ data: Record<string, unknown> }>> => {
    const r = new Received<{ data: Record<string, unknown> }>();
    c.subscribe({ query, variables }, r.sink);
    await r.nth(0);
    return r;
  };

  it('refuses a subscription with two root fields', async () => {
    const r = new Received();
    c.subscribe({ query: 'subscription { a: article_by_pk(id: 1) { id } b: article_by_pk(id: 2) { id } }' }, r.sink);
    const errors = (await waitFor(() => r.errors[0])) as Array<{ message: string; extensions: { code: string } }>;
    expect(errors[0]!.extensions.code).to.equal('validation-failed');
    expect(errors[0]!.message).to.equal('subscriptions must select one top level field');
  });

  it('serves several root fields with @_multiple_top_level_fields, as one statement, following writes', async () => {
    const r = await live(
      'subscription @_multiple_top_level_fields { a: article_by_pk(id: 1) { title } b: article_by_pk(id: 2) { title } n: article_aggregate { aggregate { count } } }',
    );
    expect(r.values[0]).to.deep.equal({ data: { a: { title: 'a1' }, b: { title: 'a2' }, n: { aggregate: { count: 4 } } } });
    const before = f.manager().stats();
    await f.db.sql(`UPDATE article SET title = 'a2 changed' WHERE id = 2`);
    expect((await r.nth(1)).data['b']).to.deep.equal({ title: 'a2 changed' });
    const after = f.manager().stats();
    expect(after.statements - before.statements).to.equal(after.polls - before.polls);
    await f.db.sql(`UPDATE article SET title = 'a2' WHERE id = 2`);
    await r.nth(2);
    const stream = new Received();
    c.subscribe(
      { query: 'subscription @_multiple_top_level_fields { s: article_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } b: article_by_pk(id: 2) { id } }' },
      stream.sink,
    );
    expect(JSON.stringify(await waitFor(() => stream.errors[0]))).to.contain('a streaming subscription must select one top level field');
    // The directive belongs on a subscription only; elsewhere it is an unknown directive.
    const q = new Received();
    c.subscribe({ query: 'query @_multiple_top_level_fields { article_by_pk(id: 1) { id } }' }, q.sink);
    const errors = (await waitFor(() => q.errors[0])) as Array<{ message: string }>;
    expect(errors[0]!.message).to.equal('Unknown directive "@_multiple_top_level_fields".');
  });

  it('serves _by_pk, _aggregate, functions, computed fields, relationships and __typename, and follows writes', async () => {
    const byPk = await live('subscription ($id: Int!) { article_by_pk(id: $id) { title shout author { name } } }', { id: 1 });
    const agg = await live('subscription { article_aggregate { aggregate { count max { priority } } } }');
    const fn = await live('subscription { search_articles(args: {q: "a%"}, order_by: {id: asc}) { id } }');
    const typename = await live('subscription { article_by_pk(id: 4) { __typename id } }');
    expect(byPk.values[0]!.data).to.deep.equal({ article_by_pk: { title: 'a1', shout: 'A1', author: { name: 'Ada' } } });
    expect(agg.values[0]!.data).to.deep.equal({ article_aggregate: { aggregate: { count: 4, max: { priority: 3 } } } });
    expect(fn.values[0]!.data).to.deep.equal({ search_articles: [{ id: 1 }, { id: 2 }] });
    expect(typename.values[0]!.data).to.deep.equal({ article_by_pk: { __typename: 'article', id: 4 } });

    await f.db.sql(`INSERT INTO article (title, author_id, priority) VALUES ('a3', 1, 9)`);
    await f.db.sql(`UPDATE article SET title = 'a1!' WHERE id = 1`);
    await f.db.sql(`UPDATE author SET name = 'Ada L.' WHERE id = 1`);
    const last = async (r: Received<{ data: Record<string, unknown> }>, want: unknown): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (JSON.stringify(r.values.at(-1)?.data) !== JSON.stringify(want)) {
        if (Date.now() > deadline) throw new Error(`last value ${JSON.stringify(r.values.at(-1))}, wanted ${JSON.stringify(want)}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    await last(byPk, { article_by_pk: { title: 'a1!', shout: 'A1!', author: { name: 'Ada L.' } } });
    await last(agg, { article_aggregate: { aggregate: { count: 5, max: { priority: 9 } } } });
    await last(fn, { search_articles: [{ id: 1 }, { id: 2 }, { id: 5 }] });
  });
});
