import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from '../read-api/fixture.js';
import { ADMIN, Received, startSubsFixture, transportClient, type SubsFixture } from '../subscriptions/fixture.js';

/**
 * A session variable holding an array in PostgreSQL's literal form (`{1,2}`), as the reference
 * engine documents `X-Svc-Allowed-Ids`: usable in select filters, insert/update checks, update and
 * delete filters and presets. A malformed literal is the database's `data-exception`, as the
 * reference's DML error handler answers, never an `unexpected` error.
 */
describe('permissions: session variables holding arrays (integration)', function () {
  let f: ReadApiFixture;
  const allowed = { author_id: { _in: 'X-Svc-Allowed-Ids' } };
  const session = (ids: string, extra: Record<string, string> = {}) => ({ 'x-svc-role': 'svc', 'x-svc-allowed-ids': ids, ...extra });

  before(async () => {
    f = await startReadApiFixture('compat_sess_arrays');
    const perm = (type: string, table: string, permission: Record<string, unknown>) => ({
      type: `pg_create_${type}_permission`,
      args: { table, role: 'svc', permission },
    });
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        perm('select', 'article', { columns: ['id', 'author_id', 'title'], filter: allowed }),
        perm('insert', 'article', { columns: ['author_id', 'title'], check: allowed }),
        perm('update', 'article', { columns: ['title', 'author_id'], filter: allowed, check: allowed }),
        perm('delete', 'comment', { filter: { author_id: { _nin: 'X-Svc-Denied-Ids' } } }),
        perm('select', 'comment', { columns: ['id', 'body', 'author_id'], filter: {} }),
        perm('select', 'author', { columns: ['id', 'tags'], filter: { tags: { _contains: 'X-Svc-Tags' } } }),
        perm('insert', 'author', { columns: ['name'], check: { tags: { _eq: 'X-Svc-Tags' } }, set: { tags: 'X-Svc-Tags' } }),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => f?.close());

  const gql = async (query: string, headers: Record<string, string>) => {
    const res = await graphql(f.engine, query, undefined, headers);
    expect(res.status).to.equal(200);
    return res.body as { data?: any; errors?: Array<{ message: string; extensions: { code: string; path: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const rows = async (sql: string) => (await f.db.sql(sql)).rows;

  it('filters a select with `_in` over the array, and `{}` matches nothing', async () => {
    const body = await gql('{ article(order_by: {id: asc}) { id author_id } }', session('{1,2}'));
    expect(body.errors).to.equal(undefined);
    expect(body.data.article).to.deep.equal(await rows('SELECT id, author_id FROM article WHERE author_id IN (1, 2) ORDER BY id'));
    expect((await gql('{ article { id } }', session('{}'))).data).to.deep.equal({ article: [] });
  });

  it('checks an insert against the array, refusing a row outside it', async () => {
    const inserted = await gql('mutation { insert_article(objects: [{author_id: 2, title: "arr ok"}]) { affected_rows returning { author_id title } } }', session('{1,2}'));
    expect(inserted.errors).to.equal(undefined);
    expect(inserted.data.insert_article).to.deep.equal({ affected_rows: 1, returning: [{ author_id: 2, title: 'arr ok' }] });

    const refused = await gql('mutation { insert_article(objects: [{author_id: 3, title: "arr no"}]) { affected_rows } }', session('{1,2}'));
    expect(refused.errors?.[0]?.extensions.code).to.equal('permission-error');
    expect(refused.errors?.[0]?.message).to.equal('check constraint of an insert/update permission has failed');
    expect(await rows(`SELECT id FROM article WHERE title = 'arr no'`)).to.deep.equal([]);
  });

  it('filters and checks an update with the array', async () => {
    const res = await gql('mutation { update_article(where: {title: {_eq: "arr ok"}}, _set: {title: "arr upd"}) { affected_rows } }', session('{2}'));
    expect(res.data).to.deep.equal({ update_article: { affected_rows: 1 } });
    const outside = await gql('mutation { update_article(where: {title: {_eq: "arr upd"}}, _set: {title: "x"}) { affected_rows } }', session('{1}'));
    expect(outside.data).to.deep.equal({ update_article: { affected_rows: 0 } });
    const moved = await gql('mutation { update_article(where: {title: {_eq: "arr upd"}}, _set: {author_id: 3}) { affected_rows } }', session('{2}'));
    expect(moved.errors?.[0]?.extensions.code).to.equal('permission-error');
  });

  it('filters a delete with `_nin` over the array', async () => {
    await f.db.sql(`INSERT INTO comment (article_id, author_id, body) VALUES (2, 3, 'arr del 3'), (2, 5, 'arr del 5')`);
    const res = await gql(
      'mutation { delete_comment(where: {body: {_like: "arr del%"}}) { affected_rows returning { id } } }',
      session('{}', { 'x-svc-denied-ids': '{3,4}' }),
    );
    expect(res.errors, JSON.stringify(res.errors)).to.equal(undefined);
    expect(res.data.delete_comment.affected_rows).to.equal(1);
    expect(await rows(`SELECT author_id FROM comment WHERE body LIKE 'arr del%'`)).to.deep.equal([{ author_id: 3 }]);
  });

  it('compares array columns with an array session variable and presets one from it', async () => {
    const sel = await gql('{ author(order_by: {id: asc}) { id tags } }', session('{}', { 'x-svc-tags': '{math}' }));
    expect(sel.data.author).to.deep.equal(await rows(`SELECT id, tags FROM author WHERE tags @> '{math}' ORDER BY id`));
    const ins = await gql('mutation { insert_author_one(object: {name: "Arr Tagged"}) { tags } }', session('{}', { 'x-svc-tags': '{"a b",c}' }));
    expect(ins.errors).to.equal(undefined);
    expect(await rows(`SELECT tags FROM author WHERE name = 'Arr Tagged'`)).to.deep.equal([{ tags: ['a b', 'c'] }]);
  });

  for (const [what, query] of [
    ['select', '{ article { id } }'],
    ['insert', 'mutation { insert_article(objects: [{author_id: 1, title: "malformed"}]) { affected_rows } }'],
    // Rows must reach the filter: the array is only cast when a row is compared with it.
    ['delete', 'mutation { delete_comment(where: {body: {_eq: "visionary"}}) { affected_rows } }'],
  ] as const) {
    it(`answers a malformed array literal in a ${what} with data-exception`, async () => {
      const headers = session('{1,2', { 'x-svc-denied-ids': '{1,2' });
      const res = await gql(query, headers);
      expect(res.data).to.equal(undefined);
      expect(res.errors?.[0]?.extensions.code).to.equal('data-exception');
      expect(res.errors?.[0]?.message).to.equal('malformed array literal: "{1,2"');
      expect(await rows(`SELECT count(*)::int AS n FROM comment WHERE body = 'visionary'`)).to.deep.equal([{ n: 1 }]);
    });
  }

  it('answers an element of the wrong type with data-exception', async () => {
    const res = await gql('{ article { id } }', session('{a,b}'));
    expect(res.errors?.[0]).to.deep.include({ message: 'invalid input syntax for type integer: "a"' });
    expect(res.errors?.[0]?.extensions.code).to.equal('data-exception');
  });
});

describe('permissions: session variables holding arrays in live queries (integration)', function () {
  let f: SubsFixture;
  before(async () => {
    f = await startSubsFixture('compat_sess_arrays_live', { liveQueriesMultiplexedRefetchInterval: 100 });
    const res = await metadata(
      f.engine,
      {
        type: 'pg_create_select_permission',
        args: { table: 'article', role: 'svc', permission: { columns: ['id', 'author_id'], filter: { author_id: { _in: 'X-Svc-Allowed-Ids' } } } },
      },
      ADMIN,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => f?.close());

  it('filters a multiplexed live query per subscriber by the array each one holds', async () => {
    const sessions = ['{1}', '{2,3}'];
    const clients = sessions.map((ids) => transportClient(f.wsUrl, { ...ADMIN, 'x-svc-role': 'svc', 'x-svc-allowed-ids': ids }));
    try {
      const received = sessions.map(() => new Received<{ data: { article: Array<{ id: number; author_id: number }> } }>());
      clients.forEach((c, i) => c.subscribe({ query: 'subscription { article(order_by: {id: asc}) { id author_id } }' }, received[i]!.sink));
      const [first, second] = await Promise.all(received.map((r) => r.nth(0)));
      const rows = async (ids: number[]) => (await f.db.sql('SELECT id, author_id FROM article WHERE author_id = ANY($1) ORDER BY id', [ids])).rows;
      expect(first!.data.article).to.deep.equal(await rows([1]));
      expect(second!.data.article).to.deep.equal(await rows([2, 3]));
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });
});
