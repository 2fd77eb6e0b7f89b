/**
 * The `args` object → call arguments, the reference engine's way: positional while every
 * argument has a value, named after the first gap, the implicit row/session arguments always
 * present, and its two refusals.
 */
import { expect } from 'chai';
import { parseValue, GraphQLSchema } from 'graphql';
import { buildCall } from '../../../core/graphql/plan/function.js';
import { astInput } from '../../../core/graphql/plan/input.js';
import type { FunctionArgView } from '../../../core/graphql/plan/view.js';
import type { PlanContext } from '../../../core/graphql/schema-draft.js';
import type { ResolvedFunctionArg } from '../../../core/schema-cache/model.js';
import { PG_SCALARS } from './fixtures.js';
import { EngineError } from '../../../core/errors.js';

const arg = (name: string | null, field: string, role: ResolvedFunctionArg['role'] = 'input', hasDefault = false): ResolvedFunctionArg => ({
  name,
  field,
  type: role === 'session' ? 'json' : 'int4',
  hasDefault,
  role,
});
const views = (args: ResolvedFunctionArg[]): FunctionArgView[] =>
  args.filter((a) => a.role === 'input').map((a) => ({ arg: a, dbType: a.type, info: PG_SCALARS.info(a.type), graphqlType: 'Int' }));

const ctx: PlanContext = {
  schema: new GraphQLSchema({}),
  fragments: {},
  role: 'admin',
  readVariable: () => undefined,
  hasVariable: () => false,
  variableType: () => undefined,
};

const fn = { schema: 'public', name: 'f' };
const callWith = (args: ResolvedFunctionArg[], literal?: string) =>
  buildCall(fn, args, views(args), literal === undefined ? undefined : astInput(parseValue(literal)), 'f_args', ctx, '$.args');
const shape = (c: ReturnType<typeof callWith>) => c.args.map((a) => `${a.name ?? '_'}:${a.value.kind}`);

describe('plan: function call arguments', () => {
  it('passes given arguments by position while there is no gap', () => {
    const args = [arg('a', 'a'), arg('b', 'b', 'input', true)];
    expect(shape(callWith(args, '{a: 1, b: 2}'))).to.deep.equal(['_:value', '_:value']);
    expect(shape(callWith(args, '{a: 1}'))).to.deep.equal(['_:value']);
  });

  it('names the arguments after a gap and skips defaulted ones', () => {
    const args = [arg('a', 'a', 'input', true), arg('b', 'b', 'input', true), arg('c', 'c', 'input', true)];
    expect(shape(callWith(args, '{c: 3}'))).to.deep.equal(['c:value']);
    expect(shape(callWith(args, '{a: 1, c: 3}'))).to.deep.equal(['_:value', 'c:value']);
    expect(shape(callWith(args))).to.deep.equal([]);
  });

  it('always supplies the row and session arguments, named after a gap', () => {
    const args = [arg('r', 'r', 'row'), arg('n', 'n', 'input', true), arg('s', 's', 'session')];
    expect(shape(callWith(args))).to.deep.equal(['_:row', 's:session']);
    expect(shape(callWith(args, '{n: null}'))).to.deep.equal(['_:row', '_:value', '_:session']);
  });

  it('refuses a missing argument without default and an unnamed one after a gap', () => {
    expect(() => callWith([arg('a', 'a'), arg('b', 'b')], '{b: 1}')).to.throw(EngineError, 'Non default arguments cannot be omitted');
    expect(() => callWith([arg('a', 'a', 'input', true), arg(null, 'arg_1', 'input', true)], '{arg_1: 1}')).to.throw(
      EngineError,
      'Only last set of positional arguments can be omitted',
    );
  });

  it('refuses a field the args type does not have', () => {
    expect(() => callWith([arg('a', 'a')], '{z: 1}')).to.throw(EngineError, "field 'z' not found in type: 'f_args'");
  });
});
