/**
 * The SDK's SQL building blocks (core/sdk/sql/) on their own, over a toy dialect: what they
 * promise a kind whatever its SQL. db/mariadb and db/mssql are pinned statement for statement by
 * their snapshot tests (test/plugins/db/{mariadb,mssql}/conformance-sql.test.ts).
 */
import { expect } from 'chai';
import {
  type BoolExpDialect,
  BoolExpSql,
  booleanText,
  checkSqlName,
  pagingParam,
  paramSlot,
  renderSlots,
  similarToRegex,
  SqlCompileContext,
  SqlSlotList,
  type TypedValueIR,
} from '../../../core/sdk/index.js';

type Slot = { kind: 'param'; index: number; use: 'value' | 'json'; cap?: number } | { kind: 'session' };

class Ctx extends SqlCompileContext<SqlSlotList<Slot, 'value' | 'json'>> {
  constructor() {
    super(new SqlSlotList<Slot, 'value' | 'json'>((index, use, _v, cap) => paramSlot(index, use, cap, {})), { stringifyNumericTypes: false }, () => false, (n) => `"${checkSqlName(n)}"`);
  }
}

const dialect: BoolExpDialect<Ctx> = {
  trueSql: '1=1',
  falseSql: '1=0',
  quoteIdent: (n) => `"${n}"`,
  quoteTable: (t) => `"${t.schema}"."${t.name}"`,
  notSupported: (what) => {
    throw new Error(`no ${what}`);
  },
  value: (ctx, v) => ctx.slots.value(v),
  comparison: (_ctx, lhs, op) => (op === '_like' ? `(${lhs} LIKE ?)` : null),
  predicateAggregate: (fn, cols) => `${fn.toUpperCase()}(${cols.join(', ') || '*'})`,
  kindOperator: (_ctx, e) => dialect.notSupported(e.op),
};

const v = (value: unknown, dbType = 'integer'): TypedValueIR => ({ value: { kind: 'const', value }, dbType }) as TypedValueIR;

describe('SDK SQL building blocks', () => {
  it('numbers marked values in text order, whatever order they were marked in', () => {
    const slots = new SqlSlotList<Slot, 'value' | 'json'>((index, use, _v, cap) => paramSlot(index, use, cap, {}));
    const a = slots.value(v(1));
    const b = slots.mark({ kind: 'session' });
    const rendered = renderSlots(`SELECT ${b} WHERE x = ${a}`, slots.slots, (n) => `@p${n}`);
    expect(rendered.text).to.equal('SELECT @p0 WHERE x = @p1');
    expect(rendered.order.map((s) => s.kind)).to.deep.equal(['session', 'param']);
    expect(slots.usesSession).to.equal(true);
  });

  it('refuses names holding the marker characters', () => {
    expect(() => checkSqlName('a\u0001b')).to.throw(/control character/);
    expect(checkSqlName('plain')).to.equal('plain');
  });

  it('reads paging and boolean text as PostgreSQL does', () => {
    expect(pagingParam(null, 'offset', undefined, 99)).to.equal(0);
    expect(pagingParam(null, 'limit', undefined, 99)).to.equal(99);
    expect(pagingParam('5', 'limit', 3, 99)).to.equal(3);
    expect(() => pagingParam(-1, 'limit', undefined, 99)).to.throw(/negative/);
    expect(booleanText(' Yes ', 1, 0)).to.equal(1);
    expect(booleanText('off', true, false)).to.equal(false);
    expect(booleanText('maybe', 1, 0)).to.equal('maybe');
    expect(similarToRegex('(A|G)%')).to.equal('^(?:(A|G).*)$');
  });

  it('walks boolean expressions, leaving the dialect its own operators', () => {
    const ctx = new Ctx();
    const sql = new BoolExpSql(dialect);
    const col = (name: string) => ({ kind: 'column' as const, name, type: 'integer' });
    const where = sql.expr(
      ctx,
      {
        kind: 'and',
        items: [
          { kind: 'compare', lhs: col('a'), op: '_gt', rhs: v(1) },
          { kind: 'or', items: [{ kind: 'compare', lhs: col('b'), op: '_like', rhs: v('x%', 'text') }, { kind: 'compare', lhs: col('c'), op: '_is_null', rhs: v(true, 'boolean') }] },
          { kind: 'true' },
        ],
      },
      { cur: '"t"', root: '"t"' },
    );
    expect(renderSlots(where, ctx.slots.slots, () => '$').text).to.equal('(("t"."a" > $)) AND ((("t"."b" LIKE ?)) OR (("t"."c" IS NULL)))');
    expect(ctx.slots.params).to.have.length(1);
    expect(sql.and(['1=1', '1=1'])).to.equal('1=1');
    expect(sql.join([['id', 'author_id']], '"p"', '"c"')).to.equal('("p"."id" = "c"."author_id")');
  });
});
