import { expect } from 'chai';
import { failure, ok, startMutationFixture, tableOf, type MutationFixture } from './fixture.js';

const USER = { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '1' };

describe('mutations: permissions of a role (integration)', function () {
  let f: MutationFixture;
  before(async () => {
    f = await startMutationFixture('mut_perm');
    await f.editMetadata((doc) => {
      Object.assign(tableOf(doc, 'author'), {
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'name', 'email'], filter: {} } }],
        insert_permissions: [{ role: 'user', permission: { columns: ['name', 'email'], check: {} } }],
        update_permissions: [
          { role: 'user', permission: { columns: ['name'], filter: { id: { _eq: 'X-Svc-User-Id' } }, check: { name: { _neq: 'Forbidden' } } } },
        ],
      });
      Object.assign(tableOf(doc, 'article'), {
        select_permissions: [
          { role: 'user', permission: { columns: ['id', 'title', 'author_id', 'is_published'], filter: { is_published: { _eq: true } } } },
        ],
        insert_permissions: [
          {
            role: 'user',
            permission: { columns: ['title', 'body', 'rating', 'author_id', 'is_published'], check: { author_id: { _eq: 'X-Svc-User-Id' } } },
          },
        ],
        update_permissions: [
          {
            role: 'user',
            permission: {
              columns: ['title', 'rating', 'is_published'],
              filter: { author_id: { _eq: 'X-Svc-User-Id' } },
              check: { rating: { _lte: 5 } },
              set: { body: 'x-svc-user-id' },
            },
          },
        ],
      });
      Object.assign(tableOf(doc, 'comment'), {
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'body', 'author_id', 'article_id'], filter: {} } }],
        insert_permissions: [{ role: 'user', permission: { columns: ['article_id', 'body'], set: { author_id: 'X-Svc-User-Id' }, check: {} } }],
        delete_permissions: [{ role: 'user', permission: { filter: { author_id: { _eq: 'X-Svc-User-Id' } } } }],
      });
      Object.assign(tableOf(doc, 'booking'), {
        insert_permissions: [{ role: 'user', permission: { columns: ['room', 'during'], check: {} } }],
      });
    });
  });
  after(async () => f?.close());

  const asUser = (q: string, v?: Record<string, unknown>) => f.gql(q, v, USER);

  it('gives the role exactly the mutation fields its permissions allow', async () => {
    const data = ok(await asUser('{ __schema { mutationType { fields { name } } } }'));
    const names = data.__schema.mutationType.fields.map((x: { name: string }) => x.name);
    expect(names).to.deep.equal([
      'delete_comment', 'delete_comment_by_pk',
      'insert_article', 'insert_article_one',
      'insert_author', 'insert_author_one',
      'insert_booking',
      'insert_comment', 'insert_comment_one',
      'update_article', 'update_article_by_pk', 'update_article_many',
      'update_author', 'update_author_by_pk', 'update_author_many',
    ]);
    const placeholder = ok(await asUser('{ __type(name: "comment_update_column") { enumValues { name description } } }'));
    expect(placeholder.__type.enumValues).to.deep.equal([{ name: '_PLACEHOLDER', description: 'placeholder (do not use)' }]);
  });

  it('refuses an insert outside the check and keeps nothing', async () => {
    const err = failure(await asUser(`mutation { insert_article(objects: [{title: "mine?", author_id: 2}]) { affected_rows } }`));
    expect(err).to.include({ code: 'permission-error', message: 'check constraint of an insert/update permission has failed' });
    expect(err.path).to.equal('$.selectionSet.insert_article.args.objects');

    // The nested article belongs to the new author, not to user 1: the author insert is rolled back too.
    const nested = failure(await asUser(`mutation { insert_author(objects: [{name: "Nested", articles: {data: [{title: "n"}]}}]) { affected_rows } }`));
    expect(nested.code).to.equal('permission-error');
    expect(await f.rows(`SELECT id FROM article WHERE title IN ('mine?', 'n') UNION ALL SELECT id FROM author WHERE name = 'Nested'`)).to.deep.equal([]);
  });

  it('applies insert presets from the session, and does not let the client set them', async () => {
    const data = ok(await asUser(`mutation { insert_comment_one(object: {article_id: 2, body: "by user 1"}) { id author_id } }`));
    expect(data.insert_comment_one.author_id).to.equal(1);
    expect((await f.rows('SELECT author_id FROM comment WHERE id = $1', [data.insert_comment_one.id]))[0]!['author_id']).to.equal(1);

    const err = failure(await asUser(`mutation { insert_comment(objects: [{article_id: 2, body: "x", author_id: 3}]) { affected_rows } }`));
    expect(err.code).to.equal('validation-failed');
    expect(err.message).to.match(/author_id/);
    expect(err.message).to.match(/comment_insert_input/);

    const missing = failure(await f.gql(`mutation { insert_comment(objects: [{article_id: 2, body: "x"}]) { affected_rows } }`, undefined, { 'X-Svc-Role': 'user' }));
    expect(missing).to.include({ code: 'not-found', message: 'missing session variable: "x-svc-user-id"' });
  });

  it('updates only inside the filter, verifies the check on the new row and applies update presets', async () => {
    const outside = ok(await asUser(`mutation { update_article(where: {id: {_eq: 3}}, _set: {title: "hijacked"}) { affected_rows } }`));
    expect(outside.update_article.affected_rows).to.equal(0);

    const err = failure(await asUser(`mutation { update_article(where: {id: {_eq: 1}}, _set: {rating: 9}) { affected_rows } }`));
    expect(err).to.include({ code: 'permission-error', message: 'check constraint of an insert/update permission has failed' });
    expect((await f.rows('SELECT rating, title FROM article WHERE id IN (1, 3) ORDER BY id')).map((r) => [r['rating'], r['title']])).to.deep.equal([
      [5, 'Notes on the Analytical Engine'],
      [5, 'On Computable Numbers'],
    ]);

    const done = ok(await asUser(`mutation { update_article_by_pk(pk_columns: {id: 1}, _set: {rating: 4}) { id title } }`));
    expect(done.update_article_by_pk).to.deep.equal({ id: 1, title: 'Notes on the Analytical Engine' });
    expect((await f.rows('SELECT rating, body FROM article WHERE id = 1'))[0]).to.deep.equal({ rating: 4, body: '1' });

    const preset = failure(await asUser(`mutation { update_article(where: {id: {_eq: 1}}, _set: {body: "mine"}) { affected_rows } }`));
    expect(preset.code).to.equal('validation-failed');
  });

  it('deletes only inside the filter', async () => {
    const outside = ok(await asUser(`mutation { delete_comment(where: {id: {_eq: 1}}) { affected_rows } }`));
    expect(outside.delete_comment.affected_rows).to.equal(0);
    expect(await f.rows('SELECT id FROM comment WHERE id = 1')).to.have.length(1);
    const own = ok(await asUser(`mutation { delete_comment_by_pk(id: 4) { id } }`)); // comment 4 is author 1's
    expect(own.delete_comment_by_pk).to.deep.equal({ id: 4 });
  });

  it('answers only what the select permission shows', async () => {
    // Unpublished: written, counted, but not visible through the select filter.
    const hidden = ok(
      await asUser(`mutation { insert_article(objects: [{title: "draft", author_id: 1}]) { affected_rows returning { id title } } }`),
    );
    expect(hidden.insert_article).to.deep.equal({ affected_rows: 1, returning: [] });
    const one = ok(await asUser(`mutation { insert_article_one(object: {title: "draft 2", author_id: 1}) { id } }`));
    expect(one.insert_article_one).to.equal(null);
    const shown = ok(
      await asUser(`mutation { insert_article(objects: [{title: "public", author_id: 1, is_published: true}]) { returning { title author_id } } }`),
    );
    expect(shown.insert_article.returning).to.deep.equal([{ title: 'public', author_id: 1 }]);

    const column = failure(await asUser(`mutation { insert_article(objects: [{title: "x", author_id: 1}]) { returning { rating } } }`));
    expect(column.code).to.equal('validation-failed');

    // No select permission at all: only affected_rows.
    const blind = ok(await asUser(`mutation { insert_booking(objects: [{room: 7, during: "[20,30)"}]) { affected_rows } }`));
    expect(blind.insert_booking.affected_rows).to.equal(1);
    const noReturning = failure(await asUser(`mutation { insert_booking(objects: [{room: 7, during: "[40,50)"}]) { returning { id } } }`));
    expect(noReturning.code).to.equal('validation-failed');
  });

  it("refuses a forbidden column through a nested insert's returning, writing nothing", async () => {
    const forbidden = failure(
      await asUser(`mutation { insert_author_one(object: {name: "N", articles: {data: [{title: "t", author_id: 1}]}}) { articles { rating } } }`),
    );
    expect(forbidden.code).to.equal('validation-failed');
    const before = (await f.db.sql("SELECT count(*)::int AS n FROM author WHERE name = 'N'")).rows[0].n;
    expect(before).to.equal(0);
  });

  it('upserts only rows the update permission allows, with only its columns', async () => {
    const q = (email: string) =>
      `mutation { insert_author(objects: [{name: "Upsert", email: "${email}"}], on_conflict: {constraint: author_email_key, update_columns: [name]}) { affected_rows returning { id name } } }`;
    const foreign = ok(await asUser(q('alan@example.com')));
    expect(foreign.insert_author).to.deep.equal({ affected_rows: 0, returning: [] });
    const own = ok(await asUser(q('ada@example.com')));
    expect(own.insert_author).to.deep.equal({ affected_rows: 1, returning: [{ id: 1, name: 'Upsert' }] });
    expect((await f.rows('SELECT name FROM author WHERE id IN (1, 2) ORDER BY id')).map((r) => r['name'])).to.deep.equal(['Upsert', 'Alan Turing']);

    const column = failure(
      await asUser(`mutation { insert_author(objects: [{name: "x", email: "ada@example.com"}], on_conflict: {constraint: author_email_key, update_columns: [email]}) { affected_rows } }`),
    );
    expect(column.code).to.equal('validation-failed');
  });

  it('holds upserted rows to the update check when they were updated, to the insert check when inserted', async () => {
    const q = (email: string) =>
      `mutation { insert_author(objects: [{name: "Forbidden", email: "${email}"}], on_conflict: {constraint: author_email_key, update_columns: [name]}) { affected_rows } }`;
    const updated = failure(await asUser(q('ada@example.com')));
    expect(updated).to.include({ code: 'permission-error', message: 'check constraint of an insert/update permission has failed' });
    const inserted = ok(await asUser(q('fresh@example.com')));
    expect(inserted.insert_author.affected_rows).to.equal(1);
    expect((await f.rows(`SELECT name FROM author WHERE email IN ('ada@example.com', 'fresh@example.com') ORDER BY id`)).map((r) => r['name'])).to.deep.equal([
      'Upsert',
      'Forbidden',
    ]);
  });
});
