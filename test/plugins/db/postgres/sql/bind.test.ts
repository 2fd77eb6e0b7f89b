/**
 * bindValues: JS values → node-postgres parameters (no database needed).
 */
import { expect } from 'chai';
import type { TypedValueIR } from '../../../../../core/graphql/ir.js';
import { EngineError } from '../../../../../core/errors.js';
import { type SqlParam, bindValues, compileRootField } from '../../../../../plugins/db/postgres/sql/index.js';
import { constant, field, listField, select, variable } from './ir-helpers.js';

const p = (dbType: string, array?: boolean): TypedValueIR => variable('v', dbType, array);

describe('postgres sql compiler: bindValues', () => {
  it('sends json and jsonb as JSON text, strings included', () => {
    const params = [p('jsonb'), p('json'), p('jsonb'), p('jsonb'), p('jsonb')];
    expect(bindValues(params, [{ a: [1, 'x'] }, [1, 2], 'str', 3, true])).to.deep.equal(['{"a":[1,"x"]}', '[1,2]', '"str"', '3', 'true']);
  });

  it('sends arrays of json as arrays of JSON texts', () => {
    expect(bindValues([p('jsonb', true), p('_json')], [[{ a: 1 }, 'b', null], [[1]]])).to.deep.equal([['{"a":1}', '"b"', null], ['[1]']]);
  });

  it('passes scalars and arrays of other types through', () => {
    const d = new Date(0);
    expect(bindValues([p('int4'), p('text'), p('boolean'), p('int4', true), p('timestamptz')], [1, "it's", false, [1, 2], d])).to.deep.equal([1, "it's", false, [1, 2], d]);
  });

  it('turns null and undefined into NULL', () => {
    expect(bindValues([p('int4'), p('jsonb'), p('text')], [null, undefined, undefined])).to.deep.equal([null, null, null]);
  });

  it('validates the limit and offset the compiler marked', () => {
    const st = compileRootField(listField(select('t', [field('id', 'int4')], { limit: variable('l', 'int4'), offset: variable('o', 'int4') })), { stringifyNumericTypes: false });
    const checks = (st.params as SqlParam[]).map((x) => x.check);
    expect(checks).to.have.members(['limit', 'offset']);
    const limitAt = checks.indexOf('limit');
    const values = (l: unknown, o: unknown) => (limitAt === 0 ? [l, o] : [o, l]);
    expect(bindValues(st.params, values(10, 0))).to.have.members([10, 0]);
    expect(bindValues(st.params, values(null, undefined))).to.deep.equal([null, null]);
    const err = (l: unknown, o: unknown): EngineError => {
      try {
        bindValues(st.params, values(l, o));
      } catch (e) {
        if (e instanceof EngineError) return e;
      }
      throw new Error('expected an EngineError');
    };
    expect([err(-1, 0).code, err(-1, 0).message]).to.deep.equal(['not-supported', 'unexpected negative value']);
    expect(err(1, -2).code).to.equal('not-supported');
    expect([err(2.5, 0).code, err(2.5, 0).message]).to.deep.equal(['validation-failed', 'expecting Integer value for "limit"']);
    expect(err(1, 'x').message).to.equal('expecting Integer value for "offset"');
  });

  it('folds a constant limit with the permission limit into an integer literal', () => {
    const st = compileRootField(listField(select('t', [field('id', 'int4')], { limit: constant(50, 'int4'), permissionLimit: 20 })), { stringifyNumericTypes: false });
    expect(st.params).to.deep.equal([]);
    expect(st.text).to.match(/LIMIT 20\b/);
  });

  it('keeps a non-integer constant limit a checked parameter, and a variable limit a parameter capped by the role', () => {
    const odd = compileRootField(listField(select('t', [field('id', 'int4')], { limit: constant(2.5, 'int4') })), { stringifyNumericTypes: false });
    expect(odd.text).to.match(/LIMIT \$2::int4/);
    const variable = { value: { kind: 'variable' as const, name: 'n', path: [] }, dbType: 'int4' };
    const capped = compileRootField(listField(select('t', [field('id', 'int4')], { limit: variable, permissionLimit: 20 })), { stringifyNumericTypes: false });
    expect(capped.text).to.match(/LIMIT LEAST\(\$2::int4, 20\)/);
  });

  it('names statements by their text', () => {
    const ir = listField(select('t', [field('id', 'int4')]));
    const a = compileRootField(ir, { stringifyNumericTypes: false });
    const b = compileRootField(ir, { stringifyNumericTypes: false });
    const c = compileRootField(ir, { stringifyNumericTypes: true });
    expect(a.name).to.match(/^svc_[0-9a-f]{16}$/);
    expect(a.name).to.equal(b.name);
    expect(a.text).to.equal(c.text); // an int4 column does not change under stringification
  });
});
