/**
 * Every comparison operator and boolean connective, compiled and run against PostgreSQL; the
 * expected rows come from hand-written plain SQL.
 */
import { expect } from 'chai';
import type { BoolExpIR, ComparisonOp } from '../../../../../core/graphql/ir.js';
import { compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import { type FixtureDb, createFixtureDb } from './fixture-db.js';
import { T, cmp, constant, execute, field, idsSql, idsWhere, listField, select, session, variable } from './ir-helpers.js';

interface Case {
  name: string;
  table: string;
  where: BoolExpIR;
  sql: string;
  variables?: Record<string, unknown>;
  /** The expected result is empty on purpose; every other case must select something. */
  empty?: true;
}

const ratingIs = (op: ComparisonOp, v: unknown): BoolExpIR => cmp('rating', 'int4', op, constant(v, 'int4'));
const titleIs = (op: ComparisonOp, v: string): BoolExpIR => cmp('title', 'text', op, constant(v, 'text'));
const meta = (op: ComparisonOp, v: unknown, dbType = 'jsonb', array?: boolean): BoolExpIR =>
  cmp('metadata', 'jsonb', op, constant(v, dbType, array));

const CASES: Case[] = [
  { name: '_eq', table: 'article', where: ratingIs('_eq', 5), sql: 'rating = 5' },
  { name: '_neq', table: 'article', where: ratingIs('_neq', 5), sql: 'rating <> 5' },
  { name: '_gt', table: 'article', where: ratingIs('_gt', 3), sql: 'rating > 3' },
  { name: '_lt', table: 'article', where: ratingIs('_lt', 3), sql: 'rating < 3' },
  { name: '_gte', table: 'article', where: ratingIs('_gte', 3), sql: 'rating >= 3' },
  { name: '_lte', table: 'article', where: ratingIs('_lte', 3), sql: 'rating <= 3' },
  { name: '_in', table: 'article', where: cmp('rating', 'int4', '_in', constant([1, 3], 'int4', true)), sql: 'rating IN (1, 3)' },
  { name: '_nin', table: 'article', where: cmp('rating', 'int4', '_nin', constant([1, 3], 'int4', true)), sql: 'rating NOT IN (1, 3)' },
  {
    name: '_in with a variable list',
    table: 'article',
    where: cmp('title', 'text', '_in', variable('titles', 'text', true)),
    sql: `title IN ('Beta', 'Zeta_%')`,
    variables: { titles: ['Beta', 'Zeta_%', 'nope'] },
  },
  { name: '_is_null true', table: 'article', where: cmp('body', 'text', '_is_null', constant(true, 'boolean')), sql: 'body IS NULL' },
  { name: '_is_null false', table: 'article', where: cmp('body', 'text', '_is_null', constant(false, 'boolean')), sql: 'body IS NOT NULL' },
  { name: '_like', table: 'article', where: titleIs('_like', 'A%'), sql: `title LIKE 'A%'` },
  { name: '_like with escapes', table: 'article', where: titleIs('_like', 'Zeta\\_\\%'), sql: `title LIKE 'Zeta\\_\\%'` },
  { name: '_nlike', table: 'article', where: titleIs('_nlike', '%a'), sql: `title NOT LIKE '%a'` },
  { name: '_ilike', table: 'article', where: titleIs('_ilike', 'alpha%'), sql: `title ILIKE 'alpha%'` },
  { name: '_nilike', table: 'article', where: titleIs('_nilike', '%ETA'), sql: `title NOT ILIKE '%ETA'` },
  { name: '_similar', table: 'article', where: titleIs('_similar', '(Alpha|Beta)'), sql: `title SIMILAR TO '(Alpha|Beta)'` },
  { name: '_nsimilar', table: 'article', where: titleIs('_nsimilar', '%(a|e)'), sql: `title NOT SIMILAR TO '%(a|e)'` },
  { name: '_regex', table: 'article', where: titleIs('_regex', '^[A-D]'), sql: `title ~ '^[A-D]'` },
  { name: '_nregex', table: 'article', where: titleIs('_nregex', 'ta$'), sql: `title !~ 'ta$'` },
  { name: '_iregex', table: 'article', where: titleIs('_iregex', '^a'), sql: `title ~* '^a'` },
  { name: '_niregex', table: 'article', where: titleIs('_niregex', 'E'), sql: `title !~* 'E'` },
  { name: 'jsonb _contains', table: 'article', where: meta('_contains', { tags: ['x'] }), sql: `metadata @> '{"tags":["x"]}'` },
  {
    name: 'jsonb _contained_in',
    table: 'article',
    where: meta('_contained_in', { views: 10, tags: ['x'], other: 1 }),
    sql: `metadata <@ '{"views":10,"tags":["x"],"other":1}'`,
  },
  { name: 'jsonb _has_key', table: 'article', where: meta('_has_key', 'views', 'text'), sql: `metadata ? 'views'` },
  {
    name: 'jsonb _has_keys_any',
    table: 'article',
    where: meta('_has_keys_any', ['tags', 'nope'], 'text', true),
    sql: `metadata ?| array['tags', 'nope']`,
  },
  {
    name: 'jsonb _has_keys_all',
    table: 'article',
    where: meta('_has_keys_all', ['tags', 'views'], 'text', true),
    sql: `metadata ?& array['tags', 'views']`,
  },
  { name: 'jsonb _eq with an object', table: 'author', where: cmp('profile', 'jsonb', '_eq', constant({ city: 'Dublin' }, 'jsonb')), sql: `profile = '{"city":"Dublin"}'` },
  {
    name: 'jsonb _contains with a variable',
    table: 'author',
    where: cmp('profile', 'jsonb', '_contains', variable('p', 'jsonb')),
    sql: `profile @> '{"langs":["en"]}'`,
    variables: { p: { langs: ['en'] } },
  },
  {
    name: 'cast of a jsonb column',
    table: 'author',
    where: { kind: 'compare', lhs: { kind: 'cast', expr: { kind: 'column', name: 'profile', type: 'jsonb' }, toType: 'text' }, op: '_like', rhs: constant('%Paris%', 'text') },
    sql: `profile::text LIKE '%Paris%'`,
  },
  { name: 'array _contains', table: 'author', where: cmp('tags', '_text', '_contains', constant(['a'], 'text', true)), sql: `tags @> '{a}'` },
  { name: 'array _contained_in', table: 'author', where: cmp('tags', '_text', '_contained_in', constant(['a', 'b', 'c'], 'text', true)), sql: `tags <@ '{a,b,c}'` },
  { name: 'array _eq', table: 'author', where: cmp('tags', '_text', '_eq', constant(['b'], 'text', true)), sql: `tags = '{b}'` },
  { name: 'timestamptz _gte', table: 'article', where: cmp('published_at', 'timestamptz', '_gte', constant('2024-04-01T00:00:00Z', 'timestamptz')), sql: `published_at >= '2024-04-01T00:00:00Z'` },
  { name: 'numeric _gt', table: 'author', where: cmp('rating', 'numeric', '_gt', constant('3.5', 'numeric')), sql: `rating > 3.5` },
  { name: 'bigint _gt beyond 2^53', table: 'author', where: cmp('balance', 'int8', '_gt', constant('9007199254740992', 'int8')), sql: `balance > 9007199254740992` },
  {
    name: '_eq on a variable along a path',
    table: 'article',
    where: cmp('author_id', 'int4', '_eq', variable('filter', 'int4', false, ['author', 0])),
    sql: 'author_id = 2',
    variables: { filter: { author: [2] } },
  },
  {
    name: 'column comparison, same table',
    table: 'comment',
    where: { kind: 'compareColumn', lhs: { kind: 'column', name: 'likes', type: 'int4' }, op: '_cgt', rhs: { column: 'article_id', root: false } },
    sql: 'likes > article_id',
  },
  {
    name: 'column comparison against the root table through a relationship',
    table: 'article',
    where: {
      kind: 'relationship',
      target: T('comment'),
      mapping: [['id', 'article_id']],
      where: { kind: 'compareColumn', lhs: { kind: 'column', name: 'author_id', type: 'int4' }, op: '_ceq', rhs: { column: 'author_id', root: true } },
    },
    sql: 'EXISTS (SELECT 1 FROM comment c WHERE c.article_id = article.id AND c.author_id = article.author_id)',
  },
  { name: 'true', table: 'article', where: { kind: 'true' }, sql: 'true' },
  { name: 'false', empty: true, table: 'article', where: { kind: 'false' }, sql: 'false' },
  { name: 'and []', table: 'article', where: { kind: 'and', items: [] }, sql: 'true' },
  { name: 'or []', empty: true, table: 'article', where: { kind: 'or', items: [] }, sql: 'false' },
  {
    name: 'and',
    table: 'article',
    where: { kind: 'and', items: [ratingIs('_gte', 3), titleIs('_like', '%a')] },
    sql: `rating >= 3 AND title LIKE '%a'`,
  },
  {
    name: 'or with not',
    table: 'article',
    where: { kind: 'or', items: [ratingIs('_eq', 1), { kind: 'not', item: cmp('status', 'text', '_eq', constant('published', 'text')) }] },
    sql: `rating = 1 OR NOT (status = 'published')`,
  },
  {
    name: 'or containing true keeps its siblings valid',
    table: 'article',
    where: { kind: 'or', items: [ratingIs('_eq', 1), { kind: 'true' }] },
    sql: 'true',
  },
  {
    name: 'and containing false', empty: true,
    table: 'article',
    where: { kind: 'and', items: [ratingIs('_eq', 5), { kind: 'false' }] },
    sql: 'false',
  },
  {
    name: 'relationship (EXISTS)',
    table: 'author',
    where: { kind: 'relationship', target: T('article'), mapping: [['id', 'author_id']], where: ratingIs('_eq', 5) },
    sql: 'EXISTS (SELECT 1 FROM article a WHERE a.author_id = author.id AND a.rating = 5)',
  },
  {
    name: 'nested relationships',
    table: 'author',
    where: {
      kind: 'relationship',
      target: T('article'),
      mapping: [['id', 'author_id']],
      where: { kind: 'relationship', target: T('comment'), mapping: [['id', 'article_id']], where: cmp('likes', 'int4', '_gte', constant(7, 'int4')) },
    },
    sql: 'EXISTS (SELECT 1 FROM article a JOIN comment c ON c.article_id = a.id WHERE a.author_id = author.id AND c.likes >= 7)',
  },
  {
    name: 'not through a relationship',
    table: 'author',
    where: { kind: 'not', item: { kind: 'relationship', target: T('article'), mapping: [['id', 'author_id']], where: ratingIs('_eq', 5) } },
    sql: 'NOT EXISTS (SELECT 1 FROM article a WHERE a.author_id = author.id AND a.rating = 5)',
  },
  {
    name: '_exists (uncorrelated)',
    table: 'article',
    where: { kind: 'exists', target: T('author'), where: cmp('name', 'text', '_eq', constant('Eve', 'text')) },
    sql: 'true',
  },
  {
    name: '_exists matching nothing', empty: true,
    table: 'article',
    where: { kind: 'exists', target: T('author'), where: cmp('name', 'text', '_eq', constant('Nobody', 'text')) },
    sql: 'false',
  },
  {
    name: '_exists referring to the root table',
    table: 'article',
    where: {
      kind: 'exists',
      target: T('comment'),
      where: { kind: 'compareColumn', lhs: { kind: 'column', name: 'article_id', type: 'int4' }, op: '_ceq', rhs: { column: 'id', root: true } },
    },
    sql: 'id IN (SELECT article_id FROM comment)',
  },
  {
    name: 'aggregate predicate: count > 2',
    table: 'author',
    where: {
      kind: 'aggregatePredicate', target: T('article'), mapping: [['id', 'author_id']], fn: 'count', args: [], distinct: false, filter: null,
      predicate: { op: '_gt', rhs: constant(2, 'int4') },
    },
    sql: '(SELECT count(*) FROM article a WHERE a.author_id = author.id) > 2',
  },
  {
    name: 'aggregate predicate: filtered count',
    table: 'author',
    where: {
      kind: 'aggregatePredicate', target: T('article'), mapping: [['id', 'author_id']], fn: 'count', args: [], distinct: false,
      filter: ratingIs('_gte', 4), predicate: { op: '_gte', rhs: constant(2, 'int4') },
    },
    sql: '(SELECT count(*) FROM article a WHERE a.author_id = author.id AND a.rating >= 4) >= 2',
  },
  {
    name: 'aggregate predicate: count distinct column',
    table: 'author',
    where: {
      kind: 'aggregatePredicate', target: T('article'), mapping: [['id', 'author_id']], fn: 'count', args: ['status'], distinct: true,
      filter: null, predicate: { op: '_eq', rhs: constant(2, 'int4') },
    },
    sql: '(SELECT count(DISTINCT status) FROM article a WHERE a.author_id = author.id) = 2',
  },
  {
    name: 'aggregate predicate: bool_and',
    table: 'author',
    where: {
      kind: 'aggregatePredicate', target: T('article'), mapping: [['id', 'author_id']], fn: 'bool_and', args: ['featured'], distinct: false,
      filter: null, predicate: { op: '_eq', rhs: constant(true, 'boolean') },
    },
    sql: '(SELECT bool_and(featured) FROM article a WHERE a.author_id = author.id) = true',
  },
  {
    name: 'aggregate predicate: bool_or with a variable',
    table: 'author',
    where: {
      kind: 'aggregatePredicate', target: T('article'), mapping: [['id', 'author_id']], fn: 'bool_or', args: ['featured'], distinct: false,
      filter: null, predicate: { op: '_eq', rhs: variable('b', 'boolean') },
    },
    sql: '(SELECT bool_or(featured) FROM article a WHERE a.author_id = author.id) = true',
    variables: { b: true },
  },
];

describe('postgres sql compiler: filters', function () {
  let db: FixtureDb;
  before(async () => {
    db = await createFixtureDb();
  });
  after(async () => {
    await db?.drop();
  });

  for (const c of CASES) {
    it(c.name, async () => {
      const expected = await idsSql(db, `SELECT id FROM ${c.table} WHERE ${c.sql}`);
      expect(expected.length === 0, 'expected rows are empty').to.equal(c.empty === true);
      const got = await idsWhere(db, c.table, c.where, c.variables ? { variables: c.variables } : {});
      expect(got).to.deep.equal(expected);
    });
  }

  it('_is_null with a variable serves both answers from one statement', async () => {
    const sel = select('article', [field('id', 'int4')], { where: cmp('body', 'text', '_is_null', variable('n', 'boolean')) });
    const st = compileRootField(listField(sel), { stringifyNumericTypes: false });
    const ids = async (n: boolean) => ((JSON.parse(await execute(db, st, { variables: { n } })) as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b));
    expect(await ids(true)).to.deep.equal(await idsSql(db, 'SELECT id FROM article WHERE body IS NULL'));
    expect(await ids(false)).to.deep.equal(await idsSql(db, 'SELECT id FROM article WHERE body IS NOT NULL'));
  });

  it('ANDs the permission filter with where; session variables come from $1', async () => {
    const permissionFilter = cmp('author_id', 'int4', '_eq', session('X-Svc-User-Id', 'int4'));
    const where = ratingIs('_gte', 4);
    const st = compileRootField(listField(select('article', [field('id', 'int4')], { where, permissionFilter })), { stringifyNumericTypes: false });
    expect(st.text).to.include(`$1::json->>'x-svc-user-id'`);
    for (const user of ['5', '1', '4']) {
      const got = (JSON.parse(await execute(db, st, { session: { 'x-svc-user-id': user, 'x-svc-role': 'user' } })) as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b);
      expect(got).to.deep.equal(await idsSql(db, 'SELECT id FROM article WHERE author_id = $1 AND rating >= 4', [Number(user)]));
    }
  });

  it('a missing session variable matches nothing rather than erroring', async () => {
    const permissionFilter = cmp('author_id', 'int4', '_eq', session('x-svc-user-id', 'int4'));
    expect(await idsWhere(db, 'article', { kind: 'true' }, { permissionFilter })).to.deep.equal([]);
  });

  it('a value used twice is sent once', () => {
    const w: BoolExpIR = { kind: 'or', items: [ratingIs('_eq', 5), cmp('rating', 'int4', '_eq', constant(5, 'int4'))] };
    const st = compileRootField(listField(select('article', [field('id', 'int4')], { where: w })), { stringifyNumericTypes: false });
    expect(st.params).to.have.length(1);
  });
});
