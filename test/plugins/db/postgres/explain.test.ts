import { expect } from 'chai';
import { renderWithLiterals, sqlLiteral } from '../../../../plugins/db/postgres/explain.js';

describe('postgres explain: parameters written as literals', () => {
  it('replaces placeholders outside quotes, longest number first', () => {
    const params = ['{"x-svc-role":"admin"}', ...Array.from({ length: 11 }, (_, i) => i + 2)];
    const sql = renderWithLiterals(`SELECT $1::json, $2::int4, $12::int4 FROM "t$2" WHERE x = '$3' AND y = E'\\'$4'`, params);
    expect(sql).to.equal(`SELECT '{"x-svc-role":"admin"}'::json, '2'::int4, '12'::int4 FROM "t$2" WHERE x = '$3' AND y = E'\\'$4'`);
  });

  it('quotes strings, arrays, nulls and objects as the driver would send them', () => {
    expect(sqlLiteral(null)).to.equal('NULL');
    expect(sqlLiteral("it's")).to.equal("'it''s'");
    expect(sqlLiteral('a\\b')).to.equal("E'a\\\\b'");
    expect(sqlLiteral(['a"b', null, 3])).to.equal(`E'{"a\\\\"b",NULL,"3"}'`);
    expect(sqlLiteral({ a: 1 })).to.equal(`'{"a":1}'`);
    expect(sqlLiteral(true)).to.equal("'true'");
  });

  it('refuses a placeholder without a value', () => {
    expect(() => renderWithLiterals('SELECT $2', ['{}'])).to.throw(/\$2/);
  });
});
