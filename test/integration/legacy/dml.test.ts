/**
 * The legacy `/v1/query` reads (`select`, `count`) and how data operations travel: admin and a
 * user role (no admin secret, `X-Svc-Role`), errors with the reference's messages and paths,
 * results compared with plain SQL on a real PostgreSQL. Writes are in dml-write.test.ts.
 */
import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { as } from '../permissions/fixture.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { query, startLegacyFixture, user } from './fixture.js';

describe('legacy /v1/query select and count', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  const rows = async (sql: string): Promise<Array<Record<string, unknown>>> => (await f.db.sql(sql)).rows;
  const select = (args: Record<string, unknown>, headers: Record<string, string> = {}) => query(f, { type: 'select', args }, headers);
  const count = (args: Record<string, unknown>, headers: Record<string, string> = {}) => query(f, { type: 'count', args }, headers);
  const ids = (body: Array<{ id: number }>) => body.map((r) => r.id);
  const sqlIds = async (sql: string) => (await rows(sql)).map((r) => r['id']);
  const expectError = (res: { status: number; body: unknown }, error: unknown) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body).to.deep.equal(error);
  };

  before(async () => {
    f = await startLegacyFixture('legacy_read');
  });
  after(async () => {
    await f?.close();
  });

  describe('select as admin', () => {
    it('reads columns with where, order_by, limit and offset as SQL does', async () => {
      const res = await select({ table: 'article', columns: ['id', 'title'], where: { rating: { $gte: 4 } }, order_by: ['-views', '+id'], limit: 3, offset: 1 });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(await rows('SELECT id, title FROM article WHERE rating >= 4 ORDER BY views DESC, id LIMIT 3 OFFSET 1'));
    });

    it('answers the database JSON verbatim: big integers keep every digit', async () => {
      const res = await fetch(`${f.engine.url}/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'select', args: { table: 'article', columns: ['views'], where: { id: 1 } } }),
      });
      expect(res.headers.get('content-type')).to.match(/application\/json/);
      expect(await res.text()).to.equal('[{"views":9007199254740993}]');
    });

    it('"*" is every column in table order; "*.*" adds the relationships', async () => {
      const star = await select({ table: 'author', columns: ['*'], where: { id: 1 } });
      expect(Object.keys(star.body[0])).to.deep.equal(['id', 'name', 'email', 'rating', 'born', 'meta', 'tags']);
      const deep = await select({ table: 'article', columns: ['*.*'], where: { id: 1 } });
      expect(Object.keys(deep.body[0])).to.include.members(['id', 'title', 'author', 'comments']);
      expect(deep.body[0].author).to.include({ id: 1, name: 'Ada Lovelace' });
      expect(deep.body[0].comments.map((c: { id: number }) => c.id).sort()).to.deep.equal([1, 2]);
      // A listed column keeps its place; the wildcard adds the rest.
      const mixed = await select({ table: 'author', columns: ['name', '*'], where: { id: 2 } });
      expect(Object.keys(mixed.body[0])).to.deep.equal(['name', 'id', 'email', 'rating', 'born', 'meta', 'tags']);
    });

    it('nests object and array relationships, with alias, where, order_by and limit', async () => {
      const res = await select({
        table: 'article',
        columns: ['id', { name: 'author', columns: ['name'] }, { name: 'comments', alias: 'notes', columns: ['body'], order_by: '-id', limit: 2 }],
        where: { id: { $in: [1, 3] } },
        order_by: 'id',
      });
      expect(res.status).to.equal(200);
      const expected = await rows(`
        SELECT a.id, json_build_object('name', au.name) AS author,
          (SELECT coalesce(json_agg(json_build_object('body', c.body) ORDER BY c.id DESC), '[]')
             FROM (SELECT * FROM comment WHERE article_id = a.id ORDER BY id DESC LIMIT 2) c) AS notes
        FROM article a JOIN author au ON au.id = a.author_id WHERE a.id IN (1, 3) ORDER BY a.id`);
      expect(res.body).to.deep.equal(expected);
    });

    it('orders by objects with nulls, by defaults, and through object relationships', async () => {
      const nullsLast = await select({ table: 'author', columns: ['id'], order_by: [{ column: 'rating', type: 'desc', nulls: 'last' }, '+id'] });
      expect(ids(nullsLast.body)).to.deep.equal(await sqlIds('SELECT id FROM author ORDER BY rating DESC NULLS LAST, id'));
      const defaults = await select({ table: 'author', columns: ['id'], order_by: ['-rating', 'id'] });
      expect(ids(defaults.body)).to.deep.equal(await sqlIds('SELECT id FROM author ORDER BY rating DESC, id'));
      const related = await select({ table: 'article', columns: ['id'], order_by: ['-author.name', { column: 'id', type: 'asc' }] });
      expect(ids(related.body)).to.deep.equal(
        await sqlIds('SELECT a.id FROM article a JOIN author au ON au.id = a.author_id ORDER BY au.name DESC, a.id'),
      );
    });

    it('reads where expressions: operators, $and/$or/$not, relationships and _exists', async () => {
      const cases: Array<[unknown, string]> = [
        [{ $or: [{ rating: { $eq: 3 } }, { title: { $ilike: '%note%' } }] }, "rating = 3 OR title ILIKE '%note%'"],
        [{ author: { name: { _like: 'A%' } }, $not: { rating: { $in: [4] } } }, "author_id IN (SELECT id FROM author WHERE name LIKE 'A%') AND NOT (rating IN (4))"],
        [{ comments: { body: { _eq: 'visionary' } } }, "id IN (SELECT article_id FROM comment WHERE body = 'visionary')"],
        [{ _exists: { _table: 'comment', _where: { body: { _eq: 'elegant' } } }, rating: { _gt: 4 } }, 'rating > 4'],
        [{ published_at: { _is_null: true } }, 'published_at IS NULL'],
      ];
      for (const [where, sql] of cases) {
        const res = await select({ table: 'article', columns: ['id'], where, order_by: 'id' });
        expect(ids(res.body), JSON.stringify(where)).to.deep.equal(await sqlIds(`SELECT id FROM article WHERE ${sql} ORDER BY id`));
      }
    });
  });

  describe('select errors', () => {
    it('names what is wrong with the reference messages and paths', async () => {
      expectError(await select({ table: 'nope', columns: ['id'] }), { path: '$.args.table', error: 'table "nope" does not exist', code: 'not-exists' });
      expectError(await select({ table: 'author', columns: ['id', 'nope'] }), {
        path: '$.args.columns[1]',
        error: 'no such column exists : "nope"',
        code: 'permission-denied',
      });
      expectError(await select({ table: 'author', columns: [{ name: 'nope', columns: ['id'] }] }), {
        path: '$.args.columns[0].name',
        error: 'relationship "nope" does not exist',
        code: 'not-exists',
      });
      expectError(await select({ table: 'article', columns: [{ name: 'author', columns: ['id'], limit: 1 }] }), {
        path: '$.args.columns[0]',
        error: "when selecting an 'obj_relationship' 'where', 'order_by', 'limit' and 'offset'  can't be used",
        code: 'unexpected-payload',
      });
      expectError(await select({ table: 'article', columns: ['id'], limit: -1 }), { path: '$.args.limit', error: 'unexpected negative value', code: 'not-supported' });
      expectError(await select({ table: 'article', columns: ['id'], limit: '3' }), {
        path: '$.limit',
        error: 'parsing Int failed, expected Number, but encountered String',
        code: 'parse-failed',
      });
      expectError(await select({ table: 'article' }), { path: '$', error: 'key "columns" not found', code: 'parse-failed' });
      expectError(await select({ table: 'article', columns: ['id'], order_by: 'author' }), {
        path: '$.args.order_by[0]',
        error: '"author" is a relationship and should be expanded',
        code: 'unexpected-payload',
      });
      expectError(await select({ table: 'author', columns: ['id'], order_by: 'articles.id' }), {
        path: '$.args.order_by[0]',
        error: `"articles" is an array relationship and can't be used in 'order_by'`,
        code: 'unexpected-payload',
      });
      expectError(await select({ table: 'author', columns: ['id'], where: { nope: 1 } }), { path: '$.args.where.nope', error: '"nope" does not exist', code: 'not-exists' });
      expectError(await select({ table: 'author', columns: ['id'], where: { id: { _foo: 1 } } }), {
        path: '$.args.where.id._foo',
        error: 'Unknown operator: _foo',
        code: 'unexpected-payload',
      });
    });
  });

  describe('select as a role', () => {
    it('reads only the rows and columns the select permission allows', async () => {
      const own = await select({ table: 'author', columns: ['*'] }, user(1));
      expect(own.body).to.deep.equal(await rows('SELECT id, name, email FROM author WHERE id = 1'));
      const articles = await select({ table: 'article', columns: ['id', 'title'], order_by: 'id' }, user(2));
      expect(articles.body).to.deep.equal(await rows('SELECT id, title FROM article WHERE author_id = 2 ORDER BY id'));
    });

    it("applies each relationship target's permission", async () => {
      const res = await select({ table: 'author', columns: ['id', { name: 'articles', columns: ['id', { name: 'comments', columns: ['id'], order_by: 'id' }], order_by: 'id' }] }, user(1));
      const expected = await rows(`
        SELECT au.id, (SELECT json_agg(json_build_object('id', a.id, 'comments',
            (SELECT coalesce(json_agg(json_build_object('id', c.id) ORDER BY c.id), '[]') FROM comment c WHERE c.article_id = a.id)) ORDER BY a.id)
          FROM article a WHERE a.author_id = au.id) AS articles
        FROM author au WHERE au.id = 1`);
      expect(res.body).to.deep.equal(expected);
    });

    it("caps rows at the permission's limit", async () => {
      const res = await select({ table: 'article', columns: ['id'], limit: 10 }, as('reader', 1));
      expect(res.body).to.have.length(2);
    });

    it('refuses columns, tables and relationships outside the permissions', async () => {
      expectError(await select({ table: 'article', columns: ['id', 'body'] }, user(1)), {
        path: '$.args.columns[1]',
        error: 'role "user" does not have permission to select column "body"',
        code: 'permission-denied',
      });
      expectError(await select({ table: 'author', columns: ['id'] }, as('nobody')), {
        path: '$.args',
        error: 'select on "author" for role "nobody" is not allowed. ',
        code: 'permission-denied',
      });
      expectError(await select({ table: 'article', columns: ['id', { name: 'comments', columns: ['id'] }] }, as('reader', 1)), {
        path: '$.args.columns[1]',
        error: 'role "reader" does not have permission to read relationship "comments"; no permission on table "comment"',
        code: 'permission-denied',
      });
      expectError(await select({ table: 'article', columns: ['id'], where: { body: { _eq: 'x' } } }, user(1)), {
        path: '$.args.where',
        error: 'role "user" does not have permission to select column "body"',
        code: 'permission-denied',
      });
      expectError(await select({ table: 'article', columns: ['id'], order_by: '-views' }, user(1)), {
        path: '$.args.order_by[0]',
        error: 'role "user" does not have permission to select column "views"',
        code: 'permission-denied',
      });
    });

    it('needs the session variables the permission reads', async () => {
      expectError(await select({ table: 'author', columns: ['id'] }, as('user')), {
        path: '$.args',
        error: '"x-svc-user-id" header is expected but not found',
        code: 'not-found',
      });
    });
  });

  describe('count', () => {
    it('counts rows, filtered rows and distinct values (NULL is a value) as SQL does', async () => {
      const all = await count({ table: 'article' });
      expect(all.body).to.deep.equal({ count: Number((await rows('SELECT count(*) AS n FROM article'))[0]!['n']) });
      const published = await count({ table: 'article', where: { is_published: true } });
      expect(published.body).to.deep.equal({ count: Number((await rows('SELECT count(*) AS n FROM article WHERE is_published'))[0]!['n']) });
      const distinct = await count({ table: 'author', distinct: ['rating'] });
      expect(distinct.body).to.deep.equal({ count: Number((await rows('SELECT count(*) AS n FROM (SELECT DISTINCT rating FROM author) r'))[0]!['n']) });
    });

    it("counts what the role may select, ignoring the permission's row cap", async () => {
      expect((await count({ table: 'article' }, user(2))).body).to.deep.equal({ count: 3 });
      const published = Number((await rows('SELECT count(*) AS n FROM article WHERE is_published'))[0]!['n']);
      expect((await count({ table: 'article' }, as('reader', 1))).body).to.deep.equal({ count: published });
    });

    it('refuses a role without select permission and unknown distinct columns', async () => {
      expectError(await count({ table: 'article' }, as('nobody')), {
        path: '$.args',
        error: 'select on "article" for role "nobody" is not allowed. ; "count" is only allowed if the role has "select" permissions on the table',
        code: 'permission-denied',
      });
      expectError(await count({ table: 'article', distinct: ['author_name'] }), {
        path: '$.args.distinct[0]',
        error: 'no such column exists : "author_name"',
        code: 'permission-denied',
      });
    });
  });

  describe('transport', () => {
    const version = async () => (await metadata(f.engine, { type: 'export_metadata', version: 2, args: {} })).body.resource_version as number;

    it('never changes the metadata', async () => {
      const before = await version();
      await select({ table: 'author', columns: ['id'] });
      await query(f, { type: 'insert', args: { table: 'comment', objects: [{ article_id: 2, body: 'transport' }] } });
      await query(f, { type: 'delete', args: { table: 'comment', where: { body: 'transport' } } });
      expect(await version()).to.equal(before);
    });

    it('runs bulks of data operations for any role; anything else stays admin-only', async () => {
      const bulk = await query(f, { type: 'bulk', args: [{ type: 'count', args: { table: 'article' } }, { type: 'select', args: { table: 'author', columns: ['id'] } }] }, user(2));
      expect(bulk.status).to.equal(200);
      expect(bulk.body).to.deep.equal([{ count: 3 }, [{ id: 2 }]]);
      const mixed = await query(f, { type: 'bulk', args: [{ type: 'count', args: { table: 'article' } }, { type: 'export_metadata', args: {} }] }, user(2));
      expectError(mixed, { path: '$', error: 'restricted access : admin only', code: 'access-denied' });
    });

    it('answers on /v1/query only', async () => {
      const body = { type: 'select', args: { table: 'author', columns: ['id'] } };
      expectError(await metadata(f.engine, body), { path: '$.type', error: 'unknown operation type "select" on /v1/metadata', code: 'parse-failed' });
      expectError(await metadata(f.engine, body, user(1)), { path: '$', error: 'restricted access : admin only', code: 'access-denied' });
    });

    it('reports errors inside a bulk at the operation', async () => {
      const res = await query(f, { type: 'bulk', args: [{ type: 'select', args: { table: 'author', columns: ['id'] } }, { type: 'select', args: { table: 'nope', columns: ['id'] } }] });
      expectError(res, { path: '$.args[1].args.table', error: 'table "nope" does not exist', code: 'not-exists' });
    });

    it('sees what earlier operations of an admin bulk did', async () => {
      const res = await query(f, {
        type: 'bulk',
        args: [
          { type: 'run_sql', args: { sql: 'CREATE TABLE legacy_note (id serial PRIMARY KEY, note text NOT NULL)' } },
          { type: 'track_table', args: { table: 'legacy_note' } },
          { type: 'insert', args: { table: 'legacy_note', objects: [{ note: 'a' }, { note: 'b' }], returning: ['id'] } },
          { type: 'select', args: { table: 'legacy_note', columns: ['note'], order_by: '-id' } },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body[2]).to.deep.equal({ affected_rows: 2, returning: [{ id: 1 }, { id: 2 }] });
      expect(res.body[3]).to.deep.equal([{ note: 'b' }, { note: 'a' }]);
    });
  });
});
