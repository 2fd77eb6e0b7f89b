/**
 * Aggregate selections (root and relationship), every aggregate function, counts, nodes,
 * `__typename`, aliases, and stringified numeric types. Expected values come from plain SQL.
 */
import { expect } from 'chai';
import type { AggregateFn, AggregateOpIR, AggregateSelectIR, FieldIR } from '../../../../../core/graphql/ir.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { aggregateField, aggregateSelect, byColumn, cmp, constant, field, listField, run, select } from './ir-helpers.js';

const FNS: AggregateFn[] = ['sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp'];

const fnOp = (fn: AggregateFn, cols: Array<[string, string]>, alias: string = fn): AggregateOpIR => ({
  kind: 'fn',
  alias,
  fn,
  fields: cols.map(([name, type]) => ({ kind: 'column' as const, alias: name, name, type })),
});

const num = (v: unknown): number | null => (v === null ? null : Number(v));

describe('postgres sql compiler: aggregates', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
  });
  after(async () => {
    await db?.drop();
  });

  it('computes every aggregate function per column', async () => {
    const cols: Array<[string, string]> = [['rating', 'int4'], ['id', 'int4']];
    const agg = aggregateSelect('article', [{ kind: 'aggregate', alias: 'aggregate', ops: FNS.map((fn) => fnOp(fn, cols)) }]);
    const got = (await run(db, aggregateField(agg))) as { aggregate: Record<string, Record<string, number | null>> };
    const select = FNS.flatMap((fn) => cols.map(([c]) => `${fn}(${c}) AS "${fn}.${c}"`)).join(', ');
    const [row] = await db.rows<Record<string, unknown>>(`SELECT ${select} FROM article`);
    const expected = Object.fromEntries(FNS.map((fn) => [fn, Object.fromEntries(cols.map(([c]) => [c, num(row![`${fn}.${c}`])]))]));
    expect(got).to.deep.equal({ aggregate: expected });
  });

  it('counts rows, non-null columns and distinct values', async () => {
    const ops: AggregateOpIR[] = [
      { kind: 'count', alias: 'count', columns: [], distinct: false },
      { kind: 'count', alias: 'bodies', columns: ['body'], distinct: false },
      { kind: 'count', alias: 'statuses', columns: ['status'], distinct: true },
      { kind: 'count', alias: 'distinct_all', columns: [], distinct: true },
      { kind: 'count', alias: 'pairs', columns: ['status', 'rating'], distinct: true },
    ];
    const got = await run(db, aggregateField(aggregateSelect('article', [{ kind: 'aggregate', alias: 'aggregate', ops }])));
    const [r] = await db.rows<Record<string, string>>(
      'SELECT count(*) AS a, count(body) AS b, count(DISTINCT status) AS c, count(DISTINCT (status, rating)) AS d FROM article',
    );
    expect(got).to.deep.equal({ aggregate: { count: +r!.a!, bodies: +r!.b!, statuses: +r!.c!, distinct_all: +r!.a!, pairs: +r!.d! } });
  });

  it('aggregates the filtered, ordered and limited rows, with nodes, aliases and __typename', async () => {
    const author: FieldIR = { kind: 'objectRelationship', alias: 'author', mapping: [['author_id', 'id']], select: select('author', [field('name', 'text')]) };
    const agg: AggregateSelectIR = aggregateSelect(
      'article',
      [
        { kind: 'typename', alias: '__typename', typeName: 'article_aggregate' },
        {
          kind: 'aggregate',
          alias: 'stats',
          ops: [
            { kind: 'count', alias: 'total', columns: [], distinct: false },
            { kind: 'typename', alias: '__typename', typeName: 'article_aggregate_fields' },
            { kind: 'fn', alias: 'top', fn: 'max', fields: [{ kind: 'column', alias: 'best', name: 'rating', type: 'int4' }, { kind: 'typename', alias: '__typename', typeName: 'article_max_fields' }] },
            fnOp('sum', [['rating', 'int4']]),
          ],
        },
        { kind: 'nodes', alias: 'nodes', fields: [field('id', 'int4'), author] },
        { kind: 'nodes', alias: 'titles', fields: [field('title', 'text')] },
      ],
      {
        where: cmp('status', 'text', '_eq', constant('published', 'text')),
        orderBy: [byColumn('rating', 'desc', 'last'), byColumn('id')],
        limit: constant(3, 'int4'),
      },
    );
    const got = await run(db, aggregateField(agg));
    const rows = await db.rows<{ id: number; title: string; rating: number | null; name: string }>(
      `SELECT ar.id, ar.title, ar.rating, au.name FROM article ar JOIN author au ON au.id = ar.author_id
       WHERE ar.status = 'published' ORDER BY ar.rating DESC NULLS LAST, ar.id LIMIT 3`,
    );
    const ratings = rows.map((r) => r.rating).filter((r): r is number => r !== null);
    expect(JSON.stringify(got)).to.equal(
      JSON.stringify({
        __typename: 'article_aggregate',
        stats: {
          total: rows.length,
          __typename: 'article_aggregate_fields',
          top: { best: Math.max(...ratings), __typename: 'article_max_fields' },
          sum: { rating: ratings.reduce((a, b) => a + b, 0) },
        },
        nodes: rows.map((r) => ({ id: r.id, author: { name: r.name } })),
        titles: rows.map((r) => ({ title: r.title })),
      }),
    );
  });

  it('aggregates over no rows: count 0, functions null, nodes []', async () => {
    const agg = aggregateSelect('article', [
      { kind: 'aggregate', alias: 'aggregate', ops: [{ kind: 'count', alias: 'count', columns: [], distinct: false }, fnOp('avg', [['rating', 'int4']])] },
      { kind: 'nodes', alias: 'nodes', fields: [field('id', 'int4')] },
    ], { where: { kind: 'false' } });
    expect(await run(db, aggregateField(agg))).to.deep.equal({ aggregate: { count: 0, avg: { rating: null } }, nodes: [] });
  });

  it('applies the permission limit to the aggregated rows', async () => {
    const agg = aggregateSelect('comment', [{ kind: 'aggregate', alias: 'aggregate', ops: [{ kind: 'count', alias: 'count', columns: [], distinct: false }] }], { permissionLimit: 4 });
    expect(await run(db, aggregateField(agg))).to.deep.equal({ aggregate: { count: 4 } });
  });

  it('aggregates after DISTINCT ON, even when no column is read', async () => {
    const agg = aggregateSelect('article', [{ kind: 'aggregate', alias: 'aggregate', ops: [{ kind: 'count', alias: 'count', columns: [], distinct: false }] }], {
      distinctOn: ['status'],
    });
    const [r] = await db.rows<{ n: string }>('SELECT count(*) AS n FROM (SELECT DISTINCT ON (status) id FROM article ORDER BY status) x');
    expect(await run(db, aggregateField(agg))).to.deep.equal({ aggregate: { count: Number(r!.n) } });
  });

  it('aggregates through an array relationship, per parent row', async () => {
    const rel: FieldIR = {
      kind: 'arrayAggregate',
      alias: 'good_articles',
      mapping: [['id', 'author_id']],
      aggregate: aggregateSelect(
        'article',
        [
          { kind: 'aggregate', alias: 'aggregate', ops: [{ kind: 'count', alias: 'count', columns: [], distinct: false }, fnOp('max', [['rating', 'int4']])] },
          { kind: 'nodes', alias: 'nodes', fields: [field('title', 'text')] },
        ],
        { where: cmp('rating', 'int4', '_gte', constant(4, 'int4')), orderBy: [byColumn('id', 'desc')] },
      ),
    };
    const got = (await run(db, listField(select('author', [field('id', 'int4'), rel], { orderBy: [byColumn('id')] })))) as unknown[];
    const authors = await db.rows<{ id: number }>('SELECT id FROM author ORDER BY id');
    const expected = [];
    for (const a of authors) {
      const arts = await db.rows<{ title: string; rating: number }>('SELECT title, rating FROM article WHERE author_id = $1 AND rating >= 4 ORDER BY id DESC', [a.id]);
      expected.push({
        id: a.id,
        good_articles: {
          aggregate: { count: arts.length, max: { rating: arts.length === 0 ? null : Math.max(...arts.map((x) => x.rating)) } },
          nodes: arts.map((x) => ({ title: x.title })),
        },
      });
    }
    expect(got).to.deep.equal(expected);
  });

  describe('stringifyNumericTypes', () => {
    it('returns bigint, numeric and double precision columns as strings', async () => {
      const fields = [field('id', 'int4'), field('age', 'int4'), field('balance', 'int8'), field('rating', 'numeric'), field('score', 'float8')];
      const got = (await run(db, listField(select('author', fields, { orderBy: [byColumn('id')] })), { stringifyNumericTypes: true })) as unknown[];
      const rows = await db.rows<{ id: number; age: number | null; balance: string | null; rating: string | null; score: number | null }>(
        'SELECT id, age, balance::text AS balance, rating::text AS rating, score::text AS score FROM author ORDER BY id',
      );
      expect(got).to.deep.equal(rows);
      // Beyond 2^53: only the string keeps the exact value.
      expect((got[0] as { balance: string }).balance).to.equal('9007199254740993');
    });

    it('leaves them as numbers when off', async () => {
      const got = (await run(db, listField(select('author', [field('balance', 'int8'), field('rating', 'numeric')], { orderBy: [byColumn('id')], limit: constant(1, 'int4') })))) as unknown[];
      expect(got).to.deep.equal([{ balance: 9007199254740992, rating: 4.5 }]);
    });

    it('stringifies aggregates of big-number columns and leaves count and int columns numeric', async () => {
      const agg = aggregateSelect('author', [
        {
          kind: 'aggregate',
          alias: 'aggregate',
          ops: [
            { kind: 'count', alias: 'count', columns: [], distinct: false },
            fnOp('sum', [['balance', 'int8'], ['age', 'int4']]),
            fnOp('max', [['score', 'float8'], ['rating', 'numeric']]),
            fnOp('avg', [['age', 'int4']]),
          ],
        },
      ]);
      const got = await run(db, aggregateField(agg), { stringifyNumericTypes: true });
      const [r] = await db.rows<Record<string, string>>(
        'SELECT count(*) AS c, sum(balance)::text AS sb, sum(age) AS sa, max(score)::text AS ms, max(rating)::text AS mr, avg(age) AS aa FROM author',
      );
      expect(got).to.deep.equal({
        aggregate: { count: +r!.c!, sum: { balance: r!.sb, age: +r!.sa! }, max: { score: r!.ms, rating: r!.mr }, avg: { age: +r!.aa! } },
      });
    });
  });
});
