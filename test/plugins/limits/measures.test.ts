/**
 * The pure parts of the limits and REST plugins: the allow-list's canonical form, the depth and
 * node measures, the REST variable coercion, and the gate that skips `onRequestLimit`.
 */
import { expect } from 'chai';
import { getOperationAST, parse, type FragmentDefinitionNode } from 'graphql';
import { canonicalQuery } from '../../../plugins/metadata/allowlist/normalise.js';
import { measuresOf } from '../../../plugins/metadata/api-limits/measure.js';
import { restVariables } from '../../../plugins/api/rest/variables.js';
import { LimitGate } from '../../../core/graphql/execute/limit-pass.js';
import { createHooks } from '../../../core/hooks.js';
import type { SchemaCache } from '../../../core/schema-cache/cache.js';

const operation = (text: string) => {
  const document = parse(text);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === 'FragmentDefinition') fragments[d.name.value] = d;
  return { document, definition: getOperationAST(document)!, fragments, kind: 'query' as const };
};

describe('allow-list canonical form', () => {
  it('ignores whitespace, comments, argument and input-field order and __typename in fields', () => {
    const a = canonicalQuery(parse('query Q { author(limit: 1, where: {id: {_eq: 1}, name: {_eq: "x"}}) { id } }'));
    const b = canonicalQuery(parse(`# c
      query Q { __typename author(where: {name: {_eq: "x"}, id: {_eq: 1}}, limit: 1) { __typename id } }`));
    expect(a).to.equal(b);
  });
  it('keeps field order, aliases, names and __typename inside inline fragments', () => {
    const base = canonicalQuery(parse('query Q { author { id name } }'));
    for (const other of ['query Q { author { name id } }', 'query R { author { id name } }', 'query Q { a: author { id name } }', 'query Q { author { id name ... on author { __typename } } }']) {
      expect(canonicalQuery(parse(other)), other).to.not.equal(base);
    }
  });
});

describe('depth and node measures', () => {
  it('count fields with selection sets; fragments add no level; introspection is exempt', () => {
    expect(measuresOf(operation('{ a { b { c } d { e } } }'))).to.deep.equal({ depth: 2, nodes: 3 });
    expect(measuresOf(operation('{ viewer { ... on User { name } } }'))).to.deep.equal({ depth: 1, nodes: 1 });
    expect(measuresOf(operation('{ a { ...F } } fragment F on T { b { c } }'))).to.deep.equal({ depth: 2, nodes: 2 });
    expect(measuresOf(operation('{ __schema { types { fields { name } } } a { b } }'))).to.deep.equal({ depth: 1, nodes: 1 });
  });
  it('measure fragment bombs in linear time', () => {
    const levels = 40;
    let text = '{ a { ...F0 } }';
    for (let i = 0; i < levels; i++) text += ` fragment F${i} on T { x${i}: b { ...F${i + 1} } y${i}: b { ...F${i + 1} } }`;
    text += ` fragment F${levels} on T { c }`;
    const m = measuresOf(operation(text));
    expect(m.depth).to.equal(levels + 1);
    expect(m.nodes).to.be.above(2 ** 40);
  });
});

describe('REST variables', () => {
  const op = getOperationAST(parse('query ($i: Int!, $n: Int, $b: Boolean, $s: String, $l: [Int]) { x }'))!;
  it('coerces URL text by declared type; body values stay JSON; path wins', () => {
    expect(restVariables(op, new Map([['i', '5'], ['n', ''], ['b', ''], ['s', '7']]), { i: 1 }, { i: '9' })).to.deep.equal({ i: 9, n: null, b: true, s: '7' });
    expect(restVariables(op, new Map(), { l: [1, 2] }, {})).to.deep.equal({ l: [1, 2] });
  });
  it('refuses undeclared names and list values in the URL', () => {
    expect(() => restVariables(op, new Map([['x', '1']]), {}, {})).to.throw('Unexpected variable x');
    expect(() => restVariables(op, new Map([['l', '1']]), {}, {})).to.throw('List variables are not currently supported in URL or Query parameters. (Variable l, with value 1)');
  });
});

describe('the limit gate', () => {
  const cache = (version: number) => ({ version }) as unknown as SchemaCache;
  it('skips the hook when every tap declares it has nothing to do; undeclared taps always run', () => {
    const hooks = createHooks();
    const predicates = new Map([['limits/x', (c: SchemaCache) => c.version === 2]]);
    const gate = new LimitGate(hooks, predicates);
    hooks.onRequestLimit.tap('limits/x', () => {});
    expect(gate.isActive(cache(1))).to.equal(false);
    expect(gate.isActive(cache(2))).to.equal(true);
    hooks.onRequestLimit.tap('third/party', () => {});
    expect(gate.isActive(cache(3))).to.equal(true);
  });
});
