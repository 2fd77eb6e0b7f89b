import { expect } from 'chai';
import { isLosslessInteger, isLosslessNumber, parseLossless, stringifyLossless, unmarkLossless } from '../../../core/lossless-json.js';

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 exact through a parse and a serialise', () => {
    const text = '{"a":9007199254740993,"b":[-12345678901234567890,1.5e+300,42],"c":"9007199254740993 in a string"}';
    const v = parseLossless(text) as { a: unknown; b: unknown[]; c: string };
    expect(isLosslessInteger(v.a)).to.equal(true);
    expect(unmarkLossless(v.a)).to.equal('9007199254740993');
    expect(v.b[2]).to.equal(42);
    expect(v.c).to.equal('9007199254740993 in a string');
    expect(stringifyLossless(v)).to.equal(text);
  });

  it('leaves strings with quotes, escapes and digits alone', () => {
    const text = '["\\"12345678901234567890\\"",12345678901234567890,"\\\\",9007199254740991]';
    expect(stringifyLossless(parseLossless(text))).to.equal(text);
    expect((parseLossless(text) as unknown[])[3]).to.equal(9007199254740991);
  });

  it('keeps decimals with more digits than a double holds, and leaves short ones to JSON.parse', () => {
    const text = '{"n":12345678901234567.89,"m":-0.12345678901234567,"e":1.2345678901234567e+30,"s":2.5,"f":1.234567890123}';
    const v = parseLossless(text) as Record<string, unknown>;
    expect(isLosslessNumber(v['n'])).to.equal(true);
    expect(isLosslessInteger(v['n'])).to.equal(false);
    expect(unmarkLossless(v['m'])).to.equal('-0.12345678901234567');
    expect(isLosslessNumber(v['e'])).to.equal(true);
    expect(v['s']).to.equal(2.5);
    expect(v['f']).to.equal(1.234567890123);
    expect(stringifyLossless(v)).to.equal(text);
  });
});
