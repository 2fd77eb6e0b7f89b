import { expect } from 'chai';
import type { AggregateSelectIR, BoolExpIR, RootFieldIR, SelectIR } from '../../../core/graphql/ir.js';
import { EngineError } from '../../../core/errors.js';
import { blogSource, planQuery, roleSchema } from './fixtures.js';

const admin = roleSchema([blogSource()], 'admin');
const user = roleSchema([blogSource()], 'user');

function selectOf(ir: RootFieldIR | undefined): SelectIR {
  if (!ir || ir.kind !== 'select') throw new Error('expected a select');
  return ir.select;
}
function aggregateOf(ir: RootFieldIR | undefined): AggregateSelectIR {
  if (!ir || ir.kind !== 'aggregate') throw new Error('expected an aggregate');
  return ir.aggregate;
}
const col = (name: string, type: string) => ({ kind: 'column', name, type }) as const;
const cmp = (name: string, type: string, op: string, value: unknown, dbType = type, extra: Record<string, unknown> = {}): BoolExpIR =>
  ({ kind: 'compare', lhs: col(name, type), op, rhs: { value, dbType, ...extra } }) as BoolExpIR;

function planError(rs = admin, query: string, variables: Record<string, unknown> = {}): EngineError {
  try {
    planQuery(rs, query, variables);
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected an EngineError');
}

describe('graphql plan: where', () => {
  it('keeps scalar variables as variable references and reads nothing', () => {
    const { fields, reads } = planQuery(admin, 'query($id: Int!, $t: String) { article(where: {id: {_eq: $id}, headline: {_ilike: $t}}) { id } }');
    expect(selectOf(fields.get('article')).where).to.deep.equal({
      kind: 'and',
      items: [
        cmp('id', 'int4', '_eq', { kind: 'variable', name: 'id', path: [] }),
        cmp('title', 'text', '_ilike', { kind: 'variable', name: 't', path: [] }),
      ],
    });
    expect(reads).to.deep.equal([]);
  });

  it('reads a whole where given as a variable and interprets it with the same rules', () => {
    const { fields, reads } = planQuery(admin, 'query($w: article_bool_exp) { article(where: $w) { id } }', {
      w: { headline: { _eq: 'x' }, _and: [], id: { _in: [1, 2] } },
    });
    expect(reads).to.deep.equal(['w']);
    expect(selectOf(fields.get('article')).where).to.deep.equal({
      kind: 'and',
      items: [
        cmp('title', 'text', '_eq', { kind: 'const', value: 'x' }),
        cmp('id', 'int4', '_in', { kind: 'const', value: [1, 2] }, 'int4', { array: true }),
      ],
    });
  });

  it('reads variables inside list literals and list-of-object positions', () => {
    const { fields, reads } = planQuery(
      admin,
      'query($a: Int!, $ors: [article_bool_exp!]) { article(where: {id: {_in: [$a, 3]}, _or: $ors}) { id } }',
      { a: 1, ors: [{ id: { _gt: 5 } }] },
    );
    expect(reads).to.deep.equal(['a', 'ors']);
    expect(selectOf(fields.get('article')).where).to.deep.equal({
      kind: 'and',
      items: [
        cmp('id', 'int4', '_in', { kind: 'const', value: [1, 3] }, 'int4', { array: true }),
        cmp('id', 'int4', '_gt', { kind: 'const', value: 5 }),
      ],
    });
  });

  it('marks list operators as arrays of the column type', () => {
    const { fields } = planQuery(admin, 'query($ids: [Int!]) { article(where: {id: {_nin: $ids}}) { id } }');
    expect(selectOf(fields.get('article')).where).to.deep.equal(
      cmp('id', 'int4', '_nin', { kind: 'variable', name: 'ids', path: [] }, 'int4', { array: true }),
    );
  });

  it('follows the reference null semantics', () => {
    const t = (where: string) => selectOf(planQuery(admin, `{ article(where: ${where}) { id } }`).fields.get('article')).where;
    expect(t('{}')).to.deep.equal({ kind: 'true' });
    expect(t('{_and: []}')).to.deep.equal({ kind: 'true' });
    expect(t('{_or: []}')).to.deep.equal({ kind: 'false' });
    expect(t('null')).to.equal(null);
    expect(t('{_not: {}}')).to.deep.equal({ kind: 'false' });
    const e = planError(admin, '{ article(where: {id: {_eq: null}}) { id } }');
    expect(e.code).to.equal('validation-failed');
    expect(e.message).to.equal("unexpected null value for type 'Int'");
    expect(e.path).to.equal('$.selectionSet.article.args.where.id._eq');
  });

  it('traverses relationships with the target permission folded in, and aggregate predicates', () => {
    const { fields } = planQuery(
      user,
      '{ author(where: {articles: {published: {_eq: true}}, articles_aggregate: {count: {predicate: {_gte: 2}, distinct: true, arguments: [headline]}}}) { id } }',
    );
    const perm = cmp('author_id', 'int4', '_eq', { kind: 'session', name: 'x-svc-user-id' });
    const where = selectOf(fields.get('author')).where as Extract<BoolExpIR, { kind: 'and' }>;
    expect(where.items[0]).to.deep.equal({
      kind: 'relationship',
      target: { schema: 'public', name: 'article' },
      mapping: [['id', 'author_id']],
      where: { kind: 'and', items: [perm, cmp('published', 'bool', '_eq', { kind: 'const', value: true })] },
    });
    expect(where.items[1]).to.deep.equal({
      kind: 'aggregatePredicate',
      target: { schema: 'public', name: 'article' },
      mapping: [['id', 'author_id']],
      fn: 'count',
      args: ['title'],
      distinct: true,
      filter: perm,
      predicate: { op: '_gte', rhs: { value: { kind: 'const', value: 2 }, dbType: 'int4' } },
    });
  });

  it('maps enum-table values, jsonb operators and _cast', () => {
    const { fields } = planQuery(
      admin,
      '{ article(where: {status: {_eq: published}, metadata: {_has_keys_any: ["a"], _cast: {String: {_like: "%x%"}}}}) { id } }',
    );
    expect(selectOf(fields.get('article')).where).to.deep.equal({
      kind: 'and',
      items: [
        cmp('status', 'text', '_eq', { kind: 'const', value: 'published' }),
        { kind: 'compare', lhs: col('metadata', 'jsonb'), op: '_has_keys_any', rhs: { value: { kind: 'const', value: ['a'] }, dbType: 'text', array: true } },
        {
          kind: 'compare',
          lhs: { kind: 'cast', expr: col('metadata', 'jsonb'), toType: 'text' },
          op: '_like',
          rhs: { value: { kind: 'const', value: '%x%' }, dbType: 'text' },
        },
      ],
    });
  });

  it('maps graphql-default enum names back to stored values', () => {
    const rs = roleSchema([blogSource({ naming_convention: 'graphql-default' })]);
    const { fields, reads } = planQuery(rs, 'query($s: ArticleStatusEnum) { article(where: {status: {_eq: $s}, id: {_isNull: false}}) { id } }', {
      s: 'DRAFT',
    });
    expect(reads).to.deep.equal(['s']);
    expect(selectOf(fields.get('article')).where).to.deep.equal({
      kind: 'and',
      items: [
        cmp('status', 'text', '_eq', { kind: 'const', value: 'draft' }),
        cmp('id', 'int4', '_is_null', { kind: 'const', value: false }, 'bool'),
      ],
    });
  });

  it('keeps big numeric literals as text', () => {
    const { fields } = planQuery(admin, '{ comment_by_pk(id: 12345678901234567890) { id } }');
    expect(selectOf(fields.get('comment_by_pk')).where).to.deep.equal(
      cmp('id', 'int8', '_eq', { kind: 'const', value: '12345678901234567890' }),
    );
  });
});

describe('graphql plan: selections', () => {
  it('handles aliases, __typename, named and inline fragments and merges repeated fields', () => {
    const { fields } = planQuery(
      admin,
      `{ a: article_by_pk(id: 1) { ...F ... on article { t: headline author { id } } __typename author { name } } }
       fragment F on article { id author { id } }`,
    );
    const s = selectOf(fields.get('a'));
    expect(s.fields.map((f) => f.alias)).to.deep.equal(['id', 'author', 't', '__typename']);
    expect(s.fields[2]).to.deep.equal({ kind: 'column', alias: 't', name: 'title', type: 'text' });
    expect(s.fields[3]).to.deep.equal({ kind: 'typename', alias: '__typename', typeName: 'article' });
    const author = s.fields[1]!;
    if (author.kind !== 'objectRelationship') throw new Error('expected object relationship');
    expect(author.select.fields.map((f) => f.alias)).to.deep.equal(['id', 'name']);
  });

  it('reads @include/@skip variables', () => {
    const { fields, reads } = planQuery(admin, 'query($x: Boolean!) { author { id name @include(if: $x) body: name @skip(if: true) } }', { x: false });
    expect(reads).to.deep.equal(['x']);
    expect(selectOf(fields.get('author')).fields.map((f) => f.alias)).to.deep.equal(['id']);
  });

  it('builds nested relationships with their own arguments and permissions', () => {
    const { fields } = planQuery(user, '{ author { articles(where: {id: {_gt: 1}}, limit: 3, order_by: {id: desc}) { id } } }');
    const articles = selectOf(fields.get('author')).fields[0]!;
    if (articles.kind !== 'arrayRelationship') throw new Error('expected array relationship');
    expect(articles.mapping).to.deep.equal([['id', 'author_id']]);
    expect(articles.select.where).to.deep.equal(cmp('id', 'int4', '_gt', { kind: 'const', value: 1 }));
    expect(articles.select.permissionFilter).to.deep.equal(cmp('author_id', 'int4', '_eq', { kind: 'session', name: 'x-svc-user-id' }));
    expect(articles.select.permissionLimit).to.equal(10);
    expect(articles.select.limit).to.deep.equal({ value: { kind: 'const', value: 3 }, dbType: 'int4' });
    expect(articles.select.orderBy).to.deep.equal([{ expr: col('id', 'int4'), direction: 'desc', nulls: 'first' }]);
  });

  it('builds aggregates: count, functions, nodes and __typename at every level', () => {
    const { fields } = planQuery(
      admin,
      '{ article_aggregate(limit: 5) { __typename aggregate { __typename count(columns: [headline], distinct: true) total: count max { id __typename } avg { rating } } nodes { id } } }',
    );
    const agg = aggregateOf(fields.get('article_aggregate'));
    expect(agg.limit).to.deep.equal({ value: { kind: 'const', value: 5 }, dbType: 'int4' });
    expect(agg.fields).to.deep.equal([
      { kind: 'typename', alias: '__typename', typeName: 'article_aggregate' },
      {
        kind: 'aggregate',
        alias: 'aggregate',
        ops: [
          { kind: 'typename', alias: '__typename', typeName: 'article_aggregate_fields' },
          { kind: 'count', alias: 'count', columns: ['title'], distinct: true },
          { kind: 'count', alias: 'total', columns: [], distinct: false },
          {
            kind: 'fn',
            alias: 'max',
            fn: 'max',
            fields: [
              { kind: 'column', alias: 'id', name: 'id', type: 'int4' },
              { kind: 'typename', alias: '__typename', typeName: 'article_max_fields' },
            ],
          },
          { kind: 'fn', alias: 'avg', fn: 'avg', fields: [{ kind: 'column', alias: 'rating', name: 'rating', type: 'numeric' }] },
        ],
      },
      { kind: 'nodes', alias: 'nodes', fields: [{ kind: 'column', alias: 'id', name: 'id', type: 'int4' }] },
    ]);
  });

  it('builds <rel>_aggregate fields', () => {
    const { fields } = planQuery(admin, '{ author { articles_aggregate(where: {published: {_eq: true}}) { aggregate { count } } } }');
    const f = selectOf(fields.get('author')).fields[0]!;
    if (f.kind !== 'arrayAggregate') throw new Error('expected arrayAggregate');
    expect(f.mapping).to.deep.equal([['id', 'author_id']]);
    expect(f.aggregate.where).to.deep.equal(cmp('published', 'bool', '_eq', { kind: 'const', value: true }));
  });
});

describe('graphql plan: order_by, distinct_on, limit, offset', () => {
  it('keeps key order, goes through object relationships and array aggregates', () => {
    const { fields } = planQuery(
      admin,
      '{ article(order_by: [{author: {name: asc_nulls_first}, id: desc_nulls_last}]) { id } author(order_by: {articles_aggregate: {count: desc, max: {id: asc}}}) { id } }',
    );
    const authorRef = { schema: 'public', name: 'author' };
    expect(selectOf(fields.get('article')).orderBy).to.deep.equal([
      {
        expr: { kind: 'objectRelationship', target: authorRef, mapping: [['author_id', 'id']], filter: null, expr: col('name', 'text') },
        direction: 'asc',
        nulls: 'first',
      },
      { expr: col('id', 'int4'), direction: 'desc', nulls: 'last' },
    ]);
    const base = { kind: 'arrayAggregate', target: { schema: 'public', name: 'article' }, mapping: [['id', 'author_id']], filter: null };
    expect(selectOf(fields.get('author')).orderBy).to.deep.equal([
      { expr: { ...base, fn: 'count' }, direction: 'desc', nulls: 'first' },
      { expr: { ...base, fn: 'max', column: { name: 'id', type: 'int4' } }, direction: 'asc', nulls: 'last' },
    ]);
  });

  it('reads order_by and distinct_on variables (they shape the statement)', () => {
    const { fields, reads } = planQuery(
      admin,
      'query($o: [article_order_by!], $d: [article_select_column!]) { article(order_by: $o, distinct_on: $d) { id } }',
      { o: [{ headline: 'asc' }], d: ['headline'] },
    );
    expect(reads).to.deep.equal(['o', 'd']);
    const s = selectOf(fields.get('article'));
    expect(s.distinctOn).to.deep.equal(['title']);
    expect(s.orderBy).to.deep.equal([{ expr: col('title', 'text'), direction: 'asc', nulls: 'last' }]);
  });

  it('requires distinct_on columns to lead order_by', () => {
    const e = planError(admin, '{ article(distinct_on: [headline], order_by: {id: asc}) { id } }');
    expect(e.code).to.equal('validation-failed');
    expect(e.message).to.equal('"distinct_on" columns must match initial "order_by" columns');
  });

  it('takes limit/offset from literals or variables and rejects negative literals', () => {
    const { fields, reads } = planQuery(admin, 'query($l: Int, $o: Int) { article(limit: $l, offset: $o) { id } }');
    const s = selectOf(fields.get('article'));
    expect(s.limit).to.deep.equal({ value: { kind: 'variable', name: 'l', path: [] }, dbType: 'int4' });
    expect(s.offset).to.deep.equal({ value: { kind: 'variable', name: 'o', path: [] }, dbType: 'int8' });
    expect(reads).to.deep.equal([]);
    const e = planError(admin, '{ article(limit: -1) { id } }');
    expect(e.code).to.equal('not-supported');
    expect(e.message).to.equal('unexpected negative value');
  });
});

describe('graphql plan: root fields', () => {
  it('plans _by_pk as a single select with the pk as where and no row cap', () => {
    const { fields } = planQuery(user, 'query($id: Int!) { article_by_pk(id: $id) { id } }');
    const ir = fields.get('article_by_pk')!;
    expect(ir.kind === 'select' && ir.single).to.equal(true);
    const s = selectOf(ir);
    expect(s.where).to.deep.equal(cmp('id', 'int4', '_eq', { kind: 'variable', name: 'id', path: [] }));
    expect(s.permissionLimit).to.equal(null);
    expect(s.permissionFilter).to.deep.equal(cmp('author_id', 'int4', '_eq', { kind: 'session', name: 'x-svc-user-id' }));
  });

  it('applies the root permission filter and cap to list selects', () => {
    const s = selectOf(planQuery(user, '{ article { id } }').fields.get('article'));
    expect(s.permissionLimit).to.equal(10);
    expect(s.from).to.deep.equal({ schema: 'public', name: 'article' });
  });

  it('plans root fields under a namespace', () => {
    const rs = roleSchema([blogSource({ root_fields: { namespace: 'blog' } })]);
    const { fields } = planQuery(rs, '{ blog { author { id } } }');
    expect(selectOf(fields.get('author')).fields).to.deep.equal([{ kind: 'column', alias: 'id', name: 'id', type: 'int4' }]);
  });
});
