/**
 * order_by (directions, nulls, through object relationships, by array aggregates), distinct_on,
 * limit/offset and the role's row cap; the expected order comes from plain SQL.
 */
import { expect } from 'chai';
import type { OrderByIR, OrderExprIR, SelectIR } from '../../../../../core/graphql/ir.js';
import { EngineError } from '../../../../../core/errors.js';
import { compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { T, byColumn, cmp, constant, execute, field, listField, orderBy, run, select, variable } from './ir-helpers.js';

const authorOf: (expr: OrderExprIR) => OrderExprIR = (expr) => ({
  kind: 'objectRelationship',
  target: T('author'),
  mapping: [['author_id', 'id']],
  filter: null,
  expr,
});

interface Case {
  name: string;
  table: string;
  sel: Partial<SelectIR>;
  sql: string;
  variables?: Record<string, unknown>;
}

const CASES: Case[] = [
  { name: 'asc (nulls last)', table: 'article', sel: { orderBy: [byColumn('rating'), byColumn('id')] }, sql: 'SELECT id FROM article ORDER BY rating ASC NULLS LAST, id' },
  { name: 'desc (nulls first)', table: 'article', sel: { orderBy: [byColumn('rating', 'desc'), byColumn('id')] }, sql: 'SELECT id FROM article ORDER BY rating DESC NULLS FIRST, id' },
  { name: 'asc nulls first', table: 'article', sel: { orderBy: [byColumn('rating', 'asc', 'first'), byColumn('id', 'desc')] }, sql: 'SELECT id FROM article ORDER BY rating ASC NULLS FIRST, id DESC' },
  { name: 'desc nulls last', table: 'article', sel: { orderBy: [byColumn('published_at', 'desc', 'last'), byColumn('id')] }, sql: 'SELECT id FROM article ORDER BY published_at DESC NULLS LAST, id' },
  {
    name: 'through an object relationship',
    table: 'article',
    sel: { orderBy: [orderBy(authorOf({ kind: 'column', name: 'name', type: 'text' }), 'desc'), byColumn('id')] },
    sql: 'SELECT ar.id FROM article ar JOIN author au ON au.id = ar.author_id ORDER BY au.name DESC, ar.id',
  },
  {
    name: 'through an object relationship with its permission filter',
    table: 'article',
    sel: {
      orderBy: [
        orderBy({ kind: 'objectRelationship', target: T('author'), mapping: [['author_id', 'id']], filter: cmp('is_active', 'boolean', '_eq', constant(true, 'boolean')), expr: { kind: 'column', name: 'age', type: 'int4' } }, 'asc'),
        byColumn('id'),
      ],
    },
    sql: 'SELECT ar.id FROM article ar LEFT JOIN author au ON au.id = ar.author_id AND au.is_active ORDER BY au.age ASC NULLS LAST, ar.id',
  },
  {
    name: 'through two object relationships',
    table: 'comment',
    sel: {
      orderBy: [
        orderBy({ kind: 'objectRelationship', target: T('article'), mapping: [['article_id', 'id']], filter: null, expr: authorOf({ kind: 'column', name: 'name', type: 'text' }) }),
        byColumn('id', 'desc'),
      ],
    },
    sql: 'SELECT c.id FROM comment c JOIN article ar ON ar.id = c.article_id JOIN author au ON au.id = ar.author_id ORDER BY au.name, c.id DESC',
  },
  {
    name: 'by an array aggregate count',
    table: 'author',
    sel: { orderBy: [orderBy({ kind: 'arrayAggregate', target: T('article'), mapping: [['id', 'author_id']], filter: null, fn: 'count' }, 'desc'), byColumn('id')] },
    sql: 'SELECT au.id FROM author au ORDER BY (SELECT count(*) FROM article ar WHERE ar.author_id = au.id) DESC, au.id',
  },
  {
    name: 'by an array aggregate max, filtered',
    table: 'author',
    sel: {
      orderBy: [
        orderBy({ kind: 'arrayAggregate', target: T('article'), mapping: [['id', 'author_id']], filter: cmp('status', 'text', '_eq', constant('published', 'text')), fn: 'max', column: { name: 'rating', type: 'int4' } }, 'asc', 'first'),
        byColumn('id', 'desc'),
      ],
    },
    sql: `SELECT au.id FROM author au ORDER BY (SELECT max(rating) FROM article ar WHERE ar.author_id = au.id AND ar.status = 'published') ASC NULLS FIRST, au.id DESC`,
  },
  {
    name: 'object relationship key with limit and offset',
    table: 'article',
    sel: { orderBy: [orderBy(authorOf({ kind: 'column', name: 'name', type: 'text' })), byColumn('id', 'desc')], limit: constant(4, 'int4'), offset: constant(3, 'int4') },
    sql: 'SELECT ar.id FROM article ar JOIN author au ON au.id = ar.author_id ORDER BY au.name, ar.id DESC LIMIT 4 OFFSET 3',
  },
  {
    name: 'distinct_on with order_by',
    table: 'article',
    sel: { distinctOn: ['author_id'], orderBy: [byColumn('author_id'), byColumn('published_at', 'desc', 'last'), byColumn('id')] },
    sql: 'SELECT DISTINCT ON (author_id) id FROM article ORDER BY author_id, published_at DESC NULLS LAST, id',
  },
  {
    name: 'distinct_on in the order_by direction',
    table: 'article',
    sel: { distinctOn: ['author_id'], orderBy: [byColumn('author_id', 'desc'), byColumn('id')] },
    sql: 'SELECT DISTINCT ON (author_id) id FROM article ORDER BY author_id DESC, id',
  },
  {
    name: 'distinct_on with limit',
    table: 'article',
    sel: { distinctOn: ['status'], orderBy: [byColumn('status'), byColumn('rating', 'desc', 'last'), byColumn('id')], limit: constant(2, 'int4') },
    sql: 'SELECT DISTINCT ON (status) id FROM article ORDER BY status ASC NULLS LAST, rating DESC NULLS LAST, id LIMIT 2',
  },
  { name: 'limit and offset', table: 'article', sel: { orderBy: [byColumn('id')], limit: constant(3, 'int4'), offset: constant(2, 'int4') }, sql: 'SELECT id FROM article ORDER BY id LIMIT 3 OFFSET 2' },
  {
    name: 'limit and offset from variables',
    table: 'article',
    sel: { orderBy: [byColumn('id', 'desc')], limit: variable('l', 'int4'), offset: variable('o', 'int4') },
    sql: 'SELECT id FROM article ORDER BY id DESC LIMIT 4 OFFSET 1',
    variables: { l: 4, o: 1 },
  },
  { name: 'permission limit below the limit', table: 'article', sel: { orderBy: [byColumn('id')], limit: constant(5, 'int4'), permissionLimit: 2 }, sql: 'SELECT id FROM article ORDER BY id LIMIT 2' },
  { name: 'permission limit above the limit', table: 'article', sel: { orderBy: [byColumn('id')], limit: constant(3, 'int4'), permissionLimit: 7 }, sql: 'SELECT id FROM article ORDER BY id LIMIT 3' },
  { name: 'permission limit alone', table: 'article', sel: { orderBy: [byColumn('id', 'desc')], permissionLimit: 3 }, sql: 'SELECT id FROM article ORDER BY id DESC LIMIT 3' },
  {
    name: 'permission limit with a variable limit',
    table: 'article',
    sel: { orderBy: [byColumn('id')], limit: variable('l', 'int4'), permissionLimit: 3 },
    sql: 'SELECT id FROM article ORDER BY id LIMIT 3',
    variables: { l: 6 },
  },
  {
    name: 'permission limit with a null variable limit',
    table: 'article',
    sel: { orderBy: [byColumn('id')], limit: variable('l', 'int4'), permissionLimit: 4 },
    sql: 'SELECT id FROM article ORDER BY id LIMIT 4',
    variables: { l: null },
  },
  {
    name: 'limit with a filter',
    table: 'article',
    sel: { where: cmp('rating', 'int4', '_gte', constant(3, 'int4')), orderBy: [byColumn('published_at', 'desc'), byColumn('id')], limit: constant(3, 'int4') },
    sql: 'SELECT id FROM article WHERE rating >= 3 ORDER BY published_at DESC NULLS FIRST, id LIMIT 3',
  },
];

describe('postgres sql compiler: ordering and paging', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
  });
  after(async () => {
    await db?.drop();
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const expected = (await db.rows<{ id: number }>(c.sql)).map((r) => r.id);
      expect(expected).to.not.be.empty;
      const rows = (await run(db, listField(select(c.table, [field('id', 'int4')], c.sel)), c.variables ? { variables: c.variables } : {})) as Array<{ id: number }>;
      expect(rows.map((r) => r.id)).to.deep.equal(expected);
    });
  }

  it('offset without order_by skips rows', async () => {
    const all = (await run(db, listField(select('comment', [field('id', 'int4')])))) as unknown[];
    const rest = (await run(db, listField(select('comment', [field('id', 'int4')], { offset: constant(4, 'int4') })))) as unknown[];
    expect(rest).to.have.length(all.length - 4);
  });

  it('keeps the order in the JSON array when the sort key is not selected', async () => {
    const sel = select('article', [field('title', 'text')], { orderBy: [byColumn('rating', 'desc', 'last'), byColumn('id', 'desc')] });
    const got = ((await run(db, listField(sel))) as Array<{ title: string }>).map((r) => r.title);
    const expected = (await db.rows<{ title: string }>('SELECT title FROM article ORDER BY rating DESC NULLS LAST, id DESC')).map((r) => r.title);
    expect(got).to.deep.equal(expected);
  });

  describe('limit and offset values', () => {
    const st = compileRootField(listField(select('article', [field('id', 'int4')], { orderBy: [byColumn('id')], limit: variable('l', 'int4'), offset: variable('o', 'int4') })), { stringifyNumericTypes: false });
    const fails = async (variables: Record<string, unknown>): Promise<EngineError> => {
      try {
        await execute(db, st, { variables });
      } catch (e) {
        if (e instanceof EngineError) return e;
        throw e;
      }
      throw new Error('expected an error');
    };

    it('rejects a negative limit as the reference does', async () => {
      const e = await fails({ l: -1, o: 0 });
      expect([e.code, e.message]).to.deep.equal(['not-supported', 'unexpected negative value']);
    });

    it('rejects a negative offset', async () => {
      const e = await fails({ l: 1, o: -3 });
      expect(e.code).to.equal('not-supported');
    });

    it('rejects a non-integer limit', async () => {
      const e = await fails({ l: 1.5, o: 0 });
      expect([e.code, e.message]).to.deep.equal(['validation-failed', 'expecting Integer value for "limit"']);
    });

    it('a null limit means no limit', async () => {
      const rows = JSON.parse(await execute(db, st, { variables: { l: null, o: 8 } })) as unknown[];
      expect(rows).to.have.length(2);
    });
  });

  it('orders sort keys ahead of DISTINCT ON when the user did not (distinct columns first)', async () => {
    const by: OrderByIR[] = [byColumn('id', 'desc')];
    const rows = (await run(db, listField(select('article', [field('id', 'int4')], { distinctOn: ['author_id'], orderBy: by })))) as Array<{ id: number }>;
    const expected = (await db.rows<{ id: number }>('SELECT DISTINCT ON (author_id) id FROM article ORDER BY author_id, id DESC')).map((r) => r.id);
    expect(rows.map((r) => r.id)).to.deep.equal(expected);
  });
});
