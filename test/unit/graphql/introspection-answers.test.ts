/**
 * The introspection answers kept per schema (core/graphql/execute/introspection-answers.ts): kept
 * per schema and key, bounded by total size with the least recently used going first, an answer
 * larger than half the budget never kept, large answers kept deflated, and what they are kept under (the document, plus the
 * variables only when the document reads any).
 */
import { expect } from 'chai';
import { buildSchema, parse } from 'graphql';
import { IntrospectionAnswers, introspectionKey } from '../../../core/graphql/execute/introspection-answers.js';

const schemaA = buildSchema('type Query { a: Int }');
const schemaB = buildSchema('type Query { b: Int }');
const text = (n: number) => 'x'.repeat(n);

describe('introspection answers kept per schema', () => {
  it('keeps an answer per schema and key', () => {
    const answers = new IntrospectionAnswers(1000);
    answers.set(schemaA, 'k', { __schema: text(10) });
    expect(answers.get(schemaA, 'k')).to.deep.equal({ __schema: text(10) });
    expect(answers.get(schemaB, 'k')).to.equal(undefined);
    expect(answers.get(schemaA, 'other')).to.equal(undefined);
    expect([answers.hits, answers.misses]).to.deep.equal([1, 2]);
  });

  it('stays within its budget, dropping the least recently used first', () => {
    const answers = new IntrospectionAnswers(1000);
    answers.set(schemaA, 'a', { __schema: text(399) });
    answers.set(schemaB, 'b', { __schema: text(399) });
    // `a` is used again: `b` is now the oldest.
    expect(answers.get(schemaA, 'a')).to.not.equal(undefined);
    answers.set(schemaA, 'c', { __schema: text(399) });
    expect(answers.keptSize).to.equal(800);
    expect(answers.get(schemaB, 'b')).to.equal(undefined);
    expect(answers.get(schemaA, 'a')).to.not.equal(undefined);
    expect(answers.get(schemaA, 'c')).to.not.equal(undefined);
  });

  it('never keeps an answer larger than half the budget, and replaces one asked again', () => {
    const answers = new IntrospectionAnswers(1000);
    answers.set(schemaA, 'big', { __schema: text(600) });
    expect(answers.get(schemaA, 'big')).to.equal(undefined);
    expect(answers.keptSize).to.equal(0);
    answers.set(schemaA, 'k', { __schema: text(99) });
    answers.set(schemaA, 'k', { __schema: text(199) });
    expect(answers.keptSize).to.equal(200);
    expect((answers.get(schemaA, 'k') as Record<string, string>).__schema).to.have.length(199);
  });

  it('keeps a large answer deflated, counts its deflated size, and answers it inflated', async () => {
    const answers = new IntrospectionAnswers(10_000, 100);
    const large = { __schema: JSON.stringify({ types: Array.from({ length: 2000 }, (_, i) => ({ name: `t${i % 7}`, kind: 'OBJECT' })) }) };
    expect(large.__schema.length).to.be.above(50_000);
    await answers.set(schemaA, 'big', large);
    expect(answers.keptSize).to.be.above(0).and.below(5_000);
    const kept = answers.get(schemaA, 'big');
    expect(kept).to.be.an.instanceOf(Promise);
    expect(await kept).to.deep.equal(large);
    // Small answers stay text, answered at once, beside it.
    await answers.set(schemaA, 'small', { __schema: text(50) });
    expect(answers.get(schemaA, 'small')).to.deep.equal({ __schema: text(50) });
    // Still bounded: an answer that does not compress below half the budget is not kept.
    let seed = 1;
    const noise = { __schema: Array.from({ length: 12_000 }, () => ((seed = (seed * 48271) % 2147483647) % 16).toString(16)).join('') };
    await answers.set(schemaB, 'noise', noise);
    expect(answers.get(schemaB, 'noise')).to.equal(undefined);
  });

  it('keys on the document, and on the variables only when the document reads any', () => {
    const plain = parse('{ __schema { types { name } } }');
    expect(introspectionKey(plain, { unrelated: 1 })).to.equal(introspectionKey(plain, {}));
    const byName = parse('query T($n: String!) { __type(name: $n) { name } }');
    expect(introspectionKey(byName, { n: 'a' })).to.not.equal(introspectionKey(byName, { n: 'b' }));
    expect(introspectionKey(byName, { n: 'a' })).to.equal(introspectionKey(byName, { n: 'a' }));
    // Two documents of the same text are the same key.
    expect(introspectionKey(parse('{ __schema { types { name } } }'), null)).to.equal(introspectionKey(plain, null));
  });
});
