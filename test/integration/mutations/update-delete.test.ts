import { expect } from 'chai';
import { failure, ok, startMutationFixture, type MutationFixture } from './fixture.js';

describe('mutations: updates and deletes (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('mut_update');
  });
  after(async () => f?.close());

  const meta = async (id: number): Promise<unknown> => (await f.rows('SELECT meta FROM author WHERE id = $1', [id]))[0]!['meta'];

  it('updates with _set and _inc under a where, answering the new values', async () => {
    const data = ok(
      await f.gql(`mutation {
        update_article(where: {author_id: {_eq: 2}, is_published: {_eq: true}}, _set: {body: "rewritten"}, _inc: {views: 10, rating: 1}) {
          affected_rows returning { id body views rating }
        } }`),
    );
    const rows = await f.rows(
      `SELECT id, body, views::text AS views, rating FROM article WHERE author_id = 2 AND is_published ORDER BY id`,
    );
    expect(data.update_article.affected_rows).to.equal(2);
    expect(data.update_article.returning.map((r: { id: number }) => r.id).sort()).to.deep.equal(rows.map((r) => r['id']));
    expect(rows.map((r) => [r['body'], r['views'], r['rating']])).to.deep.equal([
      ['rewritten', '5010', 6],
      ['rewritten', '7010', 5],
    ]);
  });

  it('applies every jsonb operator', async () => {
    // Ada: {"lang": "en", "langs": ["en", "fr"], "level": 3}
    ok(await f.gql(`mutation ($v: jsonb) { update_author(where: {id: {_eq: 1}}, _append: {meta: $v}) { affected_rows } }`, { v: { extra: true } }));
    expect(await meta(1)).to.deep.equal({ lang: 'en', langs: ['en', 'fr'], level: 3, extra: true });
    ok(await f.gql(`mutation { update_author(where: {id: {_eq: 1}}, _delete_key: {meta: "extra"}) { affected_rows } }`));
    expect(await meta(1)).to.deep.equal({ lang: 'en', langs: ['en', 'fr'], level: 3 });
    ok(await f.gql(`mutation { update_author(where: {id: {_eq: 1}}, _delete_at_path: {meta: ["langs", "0"]}) { affected_rows } }`));
    expect(await meta(1)).to.deep.equal({ lang: 'en', langs: ['fr'], level: 3 });

    ok(await f.gql(`mutation ($v: jsonb) { update_author(where: {id: {_eq: 4}}, _set: {meta: $v}) { affected_rows } }`, { v: [1, 2, 3] }));
    ok(await f.gql(`mutation ($v: jsonb) { update_author(where: {id: {_eq: 4}}, _prepend: {meta: $v}) { affected_rows } }`, { v: [0] }));
    expect(await meta(4)).to.deep.equal([0, 1, 2, 3]);
    ok(await f.gql(`mutation { update_author(where: {id: {_eq: 4}}, _delete_elem: {meta: -1}) { affected_rows } }`));
    expect(await meta(4)).to.deep.equal([0, 1, 2]);
    const data = ok(await f.gql(`mutation { update_author_by_pk(pk_columns: {id: 4}, _delete_elem: {meta: 0}) { meta } }`));
    expect(data.update_author_by_pk.meta).to.deep.equal([1, 2]);
  });

  it('refuses one column in two operators', async () => {
    const err = failure(await f.gql(`mutation { update_author(where: {id: {_eq: 1}}, _set: {rating: 1}, _inc: {rating: 1}) { affected_rows } }`));
    expect(err.code).to.equal('validation-failed');
    expect(err.message).to.equal('Column found in multiple operators: "rating".');
  });

  it('answers an update with nothing to change without running it', async () => {
    const data = ok(await f.gql(`mutation { update_author(where: {}) { affected_rows returning { id } } }`));
    expect(data.update_author).to.deep.equal({ affected_rows: 0, returning: [] });
  });

  it('runs update_<t>_many entries in order, answering each', async () => {
    const data = ok(
      await f.gql(`mutation {
        update_author_many(updates: [
          {where: {id: {_eq: 5}}, _set: {rating: 1}},
          {where: {rating: {_eq: 1}}, _inc: {rating: 10}},
          {where: {id: {_eq: 5}}, _set: {name: "Liskov"}}
        ]) { affected_rows returning { id rating name } }
      }`),
    );
    // The second entry sees the first one's change.
    expect(data.update_author_many).to.deep.equal([
      { affected_rows: 1, returning: [{ id: 5, rating: 1, name: 'Barbara Liskov' }] },
      { affected_rows: 1, returning: [{ id: 5, rating: 11, name: 'Barbara Liskov' }] },
      { affected_rows: 1, returning: [{ id: 5, rating: 11, name: 'Liskov' }] },
    ]);
  });

  it('updates by primary key, answering null when no row matches', async () => {
    const data = ok(
      await f.gql(`mutation {
        hit: update_article_by_pk(pk_columns: {id: 9}, _set: {title: "EWD 1036 (rev)"}) { id title author { name } }
        miss: update_article_by_pk(pk_columns: {id: 9999}, _set: {title: "none"}) { id }
      }`),
    );
    expect(data.hit).to.deep.equal({ id: 9, title: 'EWD 1036 (rev)', author: { name: 'Edsger Dijkstra' } });
    expect(data.miss).to.equal(null);
  });

  it('answers returning relationships with the state after the write', async () => {
    const data = ok(
      await f.gql(`mutation {
        update_article(where: {id: {_eq: 8}}, _set: {author_id: 3}) {
          returning { id author { name articles_aggregate { aggregate { count } } } }
        } }`),
    );
    const [n] = await f.rows('SELECT count(*)::int AS n FROM article WHERE author_id = 3');
    expect(data.update_article.returning).to.deep.equal([
      { id: 8, author: { name: 'Grace Hopper', articles_aggregate: { aggregate: { count: n!['n'] } } } },
    ]);
  });

  it('deletes by where and by primary key', async () => {
    const data = ok(
      await f.gql(`mutation {
        delete_comment(where: {body: {_in: ["visionary", "agreed"]}}) { affected_rows returning { body article { id } } }
        delete_comment_by_pk(id: 6) { id body }
        gone: delete_comment_by_pk(id: 6) { id }
      }`),
    );
    expect(data.delete_comment.affected_rows).to.equal(2);
    expect(data.delete_comment.returning).to.have.deep.members([
      { body: 'visionary', article: { id: 1 } },
      { body: 'agreed', article: { id: 1 } },
    ]);
    expect(data.delete_comment_by_pk).to.deep.equal({ id: 6, body: 'controversial' });
    expect(data.gone).to.equal(null);
    expect(await f.rows(`SELECT id FROM comment WHERE id IN (1, 2, 6)`)).to.deep.equal([]);
  });
});
