/**
 * The legacy `/v1/query` writes (`insert`, `update`, `delete`) on a real PostgreSQL: as admin and
 * as the `user` role of ./fixture.ts (insert check, update columns/filter/check/preset, delete
 * filter, comment preset), errors with the reference's messages and paths, effects read back
 * with plain SQL.
 */
import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { as } from '../permissions/fixture.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { query, startLegacyFixture, user } from './fixture.js';

describe('legacy /v1/query insert, update and delete', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  const rows = async (sql: string, values?: unknown[]): Promise<Array<Record<string, unknown>>> => (await f.db.sql(sql, values)).rows;
  const op = (type: string, args: Record<string, unknown>, headers: Record<string, string> = {}) => query(f, { type, args }, headers);
  const expectError = (res: { status: number; body: unknown }, error: unknown) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body).to.deep.equal(error);
  };
  const articleCount = async () => Number((await rows('SELECT count(*) AS n FROM article'))[0]!['n']);

  before(async () => {
    f = await startLegacyFixture('legacy_write');
  });
  after(async () => {
    await f?.close();
  });

  describe('insert as admin', () => {
    it('inserts objects and answers affected_rows and returning', async () => {
      const res = await op('insert', { table: 'author', objects: [{ name: 'Ins One', rating: 1 }, { name: 'Ins Two', email: 'two@example.org' }], returning: ['id', 'name', 'rating'] });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ affected_rows: 2, returning: await rows("SELECT id, name, rating FROM author WHERE name LIKE 'Ins %' ORDER BY id") });
      const bare = await op('insert', { table: 'author', objects: [{ name: 'Ins Three' }] });
      expect(bare.body).to.deep.equal({ affected_rows: 1 });
    });

    it('upserts on a constraint or its columns, or ignores any conflict', async () => {
      const upsert = await op('insert', {
        table: 'author',
        objects: [{ name: 'Ada L.', email: 'ada@example.com' }],
        on_conflict: { constraint: 'author_email_key', action: 'update' },
        returning: ['id', 'name'],
      });
      expect(upsert.body).to.deep.equal({ affected_rows: 1, returning: [{ id: 1, name: 'Ada L.' }] });
      expect(await rows('SELECT name FROM author WHERE id = 1')).to.deep.equal([{ name: 'Ada L.' }]);
      await f.db.sql("UPDATE author SET name = 'Ada Lovelace' WHERE id = 1");

      const byColumns = await op('insert', { table: 'author', objects: [{ name: 'x', email: 'alan@example.com' }], on_conflict: { constraint_on: 'email', action: 'ignore' } });
      expect(byColumns.body).to.deep.equal({ affected_rows: 0 });
      const anyConflict = await op('insert', { table: 'author', objects: [{ id: 2, name: 'x' }], on_conflict: { action: 'ignore' } });
      expect(anyConflict.body).to.deep.equal({ affected_rows: 0 });
      expect(await rows('SELECT name FROM author WHERE id = 2')).to.deep.equal([{ name: 'Alan Turing' }]);
    });

    it('names what is wrong with the reference messages and paths', async () => {
      const insert = (args: Record<string, unknown>) => op('insert', { table: 'author', ...args });
      expectError(await insert({}), { path: '$', error: 'key "objects" not found', code: 'parse-failed' });
      expectError(await insert({ objects: [] }), { path: '$.args.objects', error: 'objects should not be empty', code: 'unexpected-payload' });
      expectError(await insert({ objects: [{ name: 'x', age: 23 }] }), { path: '$.args.objects[0]', error: 'column "age" does not exist', code: 'not-exists' });
      expectError(await insert({ objects: [{ name: 'x', articles: [] }] }), {
        path: '$.args.objects[0]',
        error: `expecting a postgres column; but, "articles" is a relationship; relationships can't be inserted`,
        code: 'unexpected-payload',
      });
      expectError(await insert({ objects: [{ name: 'x', rating: 'five' }] }), {
        path: '$.args.objects[0].rating',
        error: 'expected Number, but encountered String',
        code: 'parse-failed',
      });
      expectError(await insert({ objects: [{ name: 'x' }], returning: ['name', 'nope'] }), {
        path: '$.args.returning',
        error: 'no such column exists : "nope"',
        code: 'permission-denied',
      });
      expectError(await insert({ objects: [{ name: 'x' }], on_conflict: { constraint: 'nope', action: 'update' } }), {
        path: '$.args.on_conflict.constraint',
        error: 'constraint "nope" for table "author" does not exist',
        code: 'unexpected',
      });
      expectError(await insert({ objects: [{ name: 'x' }], on_conflict: { constraint: 'author_pkey', constraint_on: ['id'], action: 'update' } }), {
        path: '$.args.on_conflict',
        error: "'constraint' and 'constraint_on' cannot be set at a time",
        code: 'unexpected-payload',
      });
      expectError(await insert({ objects: [{ name: 'x' }], on_conflict: { action: 'update' } }), {
        path: '$.args.on_conflict',
        error: "Expecting 'constraint' or 'constraint_on' when the 'action' is 'update'",
        code: 'unexpected-payload',
      });
      expectError(await insert({ objects: [{ name: 'x' }], on_conflict: { constraint_on: ['nope'], action: 'update' } }), {
        path: '$.args.on_conflict.constraint_on[0]',
        error: 'column "nope" does not exist',
        code: 'not-exists',
      });
      const dup = await insert({ objects: [{ name: 'x', email: 'ada@example.com' }] });
      expect(dup.status).to.equal(400);
      expect(dup.body).to.include({ path: '$.args', code: 'constraint-violation' });
      expect(dup.body.error).to.match(/^Uniqueness violation\. duplicate key value violates unique constraint "author_email_key"/);
    });
  });

  describe('insert as a role', () => {
    it("inserts rows passing the permission's check", async () => {
      const res = await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'Legacy by Alan' }], returning: ['id', 'title', 'is_published'] }, user(2));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ affected_rows: 1, returning: await rows("SELECT id, title, is_published FROM article WHERE title = 'Legacy by Alan'") });
    });

    it('rolls back rows failing the check', async () => {
      const before = await articleCount();
      const res = await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'ok' }, { author_id: 1, title: 'not mine' }] }, user(2));
      expectError(res, { path: '$.args', error: 'check constraint of an insert/update permission has failed', code: 'permission-error' });
      expect(await articleCount()).to.equal(before);
    });

    it('applies presets and refuses columns outside the permissions', async () => {
      const ok = await op('insert', { table: 'comment', objects: [{ article_id: 3, body: 'preset by legacy' }] }, user(2));
      expect(ok.body).to.deep.equal({ affected_rows: 1 });
      expect(await rows("SELECT author_id FROM comment WHERE body = 'preset by legacy'")).to.deep.equal([{ author_id: 2 }]);
      expectError(await op('insert', { table: 'comment', objects: [{ article_id: 3, body: 'x', author_id: 1 }] }, user(2)), {
        path: '$.args.objects[0]',
        error: 'column "author_id" is not insertable for role "user"',
        code: 'not-supported',
      });
      expectError(await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'x', views: 5 }] }, user(2)), {
        path: '$.args.objects[0]',
        error: 'role "user" does not have permission to insert column "views"',
        code: 'permission-denied',
      });
      expectError(await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'x' }], returning: ['body'] }, user(2)), {
        path: '$.args.returning',
        error: 'role "user" does not have permission to select column "body"',
        code: 'permission-denied',
      });
      expectError(await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'x' }] }, as('reader', 2)), {
        path: '$.args',
        error: 'insert on "article" for role "reader" is not allowed. ',
        code: 'permission-denied',
      });
    });

    it('upserts only under an update permission, on its columns', async () => {
      expectError(await op('insert', { table: 'comment', objects: [{ article_id: 3, body: 'x' }], on_conflict: { constraint: 'comment_pkey', action: 'ignore' } }, user(2)), {
        path: '$.args.on_conflict',
        error: 'upsert is not allowed for role "user" since update permissions are not defined',
        code: 'permission-denied',
      });
      expectError(await op('insert', { table: 'article', objects: [{ author_id: 2, title: 'x' }], on_conflict: { constraint: 'article_pkey', action: 'update' } }, user(2)), {
        path: '$.args.on_conflict',
        error: 'column "author_id" is not updatable',
        code: 'validation-failed',
      });
    });
  });

  describe('update', () => {
    it('applies $set, $inc, $mul and $default (and `values`) as admin', async () => {
      await f.db.sql("INSERT INTO article (author_id, title, rating, views, is_published) VALUES (3, 'Legacy update', 2, 10, true)");
      const res = await op('update', {
        table: 'article',
        where: { title: { $eq: 'Legacy update' } },
        $set: { body: 'changed' },
        $inc: { rating: 2 },
        $mul: { views: 3 },
        $default: ['is_published'],
        returning: ['body', 'rating', 'views', 'is_published'],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ affected_rows: 1, returning: [{ body: 'changed', rating: 4, views: 30, is_published: false }] });
      expect(await rows("SELECT body, rating, views::int, is_published FROM article WHERE title = 'Legacy update'")).to.deep.equal(res.body.returning);
      const values = await op('update', { table: 'article', where: { title: 'Legacy update' }, values: { body: 'again' } });
      expect(values.body).to.deep.equal({ affected_rows: 1 });
      expect(await rows("SELECT body FROM article WHERE title = 'Legacy update'")).to.deep.equal([{ body: 'again' }]);
    });

    it('names what is wrong with the reference messages and paths', async () => {
      expectError(await op('update', { table: 'article', $set: { title: 'x' } }), { path: '$', error: 'key "where" not found', code: 'parse-failed' });
      expectError(await op('update', { table: 'article', where: { id: 1 } }), {
        path: '$.args',
        error: 'atleast one of $set, $inc, $mul has to be present',
        code: 'unexpected-payload',
      });
      expectError(await op('update', { table: 'article', where: { id: 1 }, $set: { nope: 1 } }), {
        path: "$.args['$set']",
        error: 'no such column exists : "nope"',
        code: 'permission-denied',
      });
      expectError(await op('update', { table: 'nope', where: {}, $set: { a: 1 } }), { path: '$.args.table', error: 'table "nope" does not exist', code: 'not-exists' });
    });

    it("updates a role's own rows, with its presets, columns and check", async () => {
      await f.db.sql('UPDATE article SET is_published = true WHERE id = 3');
      const own = await op('update', { table: 'article', where: { id: { _in: [3, 1] } }, $set: { title: 'On Computable Numbers!' }, returning: ['id', 'is_published'] }, user(2));
      expect(own.body).to.deep.equal({ affected_rows: 1, returning: [{ id: 3, is_published: false }] });
      expect(await rows('SELECT title FROM article WHERE id = 1')).to.deep.equal([{ title: 'Notes on the Analytical Engine' }]);
      expectError(await op('update', { table: 'article', where: { id: 3 }, $inc: { views: 1 } }, user(2)), {
        path: "$.args['$inc']",
        error: 'role "user" does not have permission to update column "views"',
        code: 'permission-denied',
      });
      expectError(await op('update', { table: 'article', where: { id: 3 }, $set: { is_published: true } }, user(2)), {
        path: "$.args['$set']",
        error: 'column "is_published" is not updatable for role "user"; its value is predefined in permission',
        code: 'not-supported',
      });
      expectError(await op('update', { table: 'article', where: { id: 3 }, $set: { rating: 9 } }, user(2)), {
        path: '$.args',
        error: 'check constraint of an insert/update permission has failed',
        code: 'permission-error',
      });
      expect(await rows('SELECT rating FROM article WHERE id = 3')).to.deep.equal([{ rating: 5 }]);
      expectError(await op('update', { table: 'article', where: {}, $set: { title: 'x' } }, as('reader', 2)), {
        path: '$.args',
        error: 'update on "article" for role "reader" is not allowed. ',
        code: 'permission-denied',
      });
    });
  });

  describe('delete', () => {
    it('deletes matching rows as admin and answers them', async () => {
      await f.db.sql("INSERT INTO comment (article_id, body) VALUES (9, 'to delete 1'), (9, 'to delete 2')");
      const expected = await rows("SELECT id, body FROM comment WHERE body LIKE 'to delete%' ORDER BY id");
      const res = await op('delete', { table: 'comment', where: { body: { $like: 'to delete%' } }, returning: ['id', 'body'] });
      expect(res.body).to.deep.equal({ affected_rows: 2, returning: expected });
      expect(await rows("SELECT id FROM comment WHERE body LIKE 'to delete%'")).to.deep.equal([]);
      expectError(await op('delete', { table: 'comment' }), { path: '$', error: 'key "where" not found', code: 'parse-failed' });
    });

    it("deletes only the rows the role's filter allows", async () => {
      await f.db.sql("INSERT INTO article (author_id, title, is_published) VALUES (1, 'Ada draft', false)");
      const before = await articleCount();
      const res = await op('delete', { table: 'article', where: {}, returning: ['title'] }, user(1));
      expect(res.body).to.deep.equal({ affected_rows: 1, returning: [{ title: 'Ada draft' }] });
      expect(await articleCount()).to.equal(before - 1);
      expectError(await op('delete', { table: 'author', where: {} }, user(1)), {
        path: '$.args',
        error: 'delete on "author" for role "user" is not allowed. ',
        code: 'permission-denied',
      });
    });

    it('needs a select permission to read `where`', async () => {
      const res = await metadata(f.engine, { type: 'pg_create_delete_permission', args: { table: 'comment', role: 'janitor', permission: { filter: {} } } });
      expect(res.status).to.equal(200);
      expectError(await op('delete', { table: 'comment', where: {} }, as('janitor')), {
        path: '$.args',
        error:
          'select on "comment" for role "janitor" is not allowed. ; "delete" is only allowed if the role has "select" permission as "where" can\'t be used without "select" permission on the table',
        code: 'permission-denied',
      });
    });
  });
});
