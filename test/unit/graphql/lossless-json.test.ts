import { expect } from 'chai';
import { isLosslessInteger, parseLossless, stringifyLossless, unmarkLossless } from '../../../core/lossless-json.js';

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
});
