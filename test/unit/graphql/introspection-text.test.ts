import { expect } from 'chai';
import fc from 'fast-check';
import { buildSchema, execute, getIntrospectionQuery, parse, validate, type GraphQLSchema } from 'graphql';
import { introspectionTexts } from '../../../core/graphql/execute/introspection-text.js';
import { blogSource, roleSchema } from './fixtures.js';

/** Every introspection feature graphql-js answers: deprecations everywhere, defaults of each kind, abstract types, oneOf, specifiedBy, repeatable directives. */
const FEATURES = buildSchema(`
  """The schema's own description"""
  schema { query: Query mutation: Mutation subscription: Subscription }
  """A repeatable directive"""
  directive @tag(name: String! = "x", old: Int @deprecated(reason: "gone")) repeatable on FIELD_DEFINITION | OBJECT | ARGUMENT_DEFINITION
  directive @plain on FIELD
  scalar Url @specifiedBy(url: "https://tools.ietf.org/html/rfc3986")
  scalar Json
  enum Color { RED GREEN @deprecated(reason: "use RED") "Blue, described" BLUE @deprecated }
  input Point { x: Int = 1 y: Int! z: [Float] = [1.5, 2] color: Color = GREEN old: String @deprecated(reason: "\\"quoted\\" reason") }
  input Pick @oneOf { id: ID name: String }
  input Nested { point: Point = { y: 2, z: null } points: [Point!] = [{ y: 1 }] text: String = "a \\"b\\" \\u00e9" }
  """Something with a name"""
  interface Named { name: String }
  interface Entity implements Named { id: ID! name: String }
  type User implements Entity & Named @tag { id: ID! name: String old: Int @deprecated(reason: "no") friends(first: Int = 10, after: String @deprecated, color: Color = RED): [User!]! }
  type Bot implements Named { name: String version: Url }
  union Actor = User | Bot
  type Query {
    me: User
    actors(where: Nested, pick: Pick, json: Json): [Actor]
    node(id: ID!): Entity @tag(name: "n")
    legacy: String @deprecated(reason: "old")
  }
  type Mutation { rename(name: String!): User }
  type Subscription { tick: Int }
`);

const DOCUMENTS: Array<[string, string, Record<string, unknown>?]> = [
  ['the standard query', getIntrospectionQuery()],
  [
    'the standard query with every option',
    getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }),
  ],
  ['the standard query without descriptions', getIntrospectionQuery({ descriptions: false })],
  [
    'aliases, repeated keys merged, __typename at every level',
    `{ __typename s: __schema { __typename q: queryType { name __typename } queryType { kind fields { name } } queryType { fields { type { name } } } }
       __schema { types { name } } }`,
  ],
  [
    'inline fragments with and without type conditions, named fragments used twice',
    `query Q { __schema { ...S ... on __Schema { types { ...T ...T } } ... { directives { name locations args { ...V } } } } }
     fragment S on __Schema { mutationType { name } subscriptionType { ...T } }
     fragment T on __Type { kind name ofType { name } ... on __Type { possibleTypes { name } interfaces { name } } }
     fragment V on __InputValue { name defaultValue type { kind ofType { kind name ofType { name } } } }`,
  ],
  [
    '@skip and @include from variables and literals',
    `query Q($yes: Boolean!, $no: Boolean = false) { __schema { types @include(if: $yes) { name description @skip(if: $yes) kind @include(if: $no) }
       queryType @skip(if: true) { name } directives @include(if: false) { name } } }`,
    { yes: true },
  ],
  [
    '__type by name, from a variable, missing, with deprecated members asked for',
    `query Q($n: String!, $all: Boolean) { user: __type(name: "User") { name fields(includeDeprecated: $all) { name isDeprecated deprecationReason args(includeDeprecated: true) { name defaultValue isDeprecated deprecationReason } } }
       color: __type(name: "Color") { enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } plain: enumValues { name } }
       point: __type(name: $n) { inputFields(includeDeprecated: true) { name defaultValue isDeprecated } isOneOf }
       pick: __type(name: "Pick") { isOneOf inputFields { name } }
       url: __type(name: "Url") { specifiedByURL kind fields { name } }
       nested: __type(name: "Nested") { inputFields { name defaultValue } }
       nothing: __type(name: "Nope") { name } }`,
    { n: 'Point', all: true },
  ],
];

/** What each introspection type selects: its fields, the type each object field returns, and whether it takes includeDeprecated. */
const SELECTABLE: Record<string, ReadonlyArray<[field: string, returns?: string, deprecatedArg?: true]>> = {
  __Schema: [['description'], ['types', '__Type'], ['queryType', '__Type'], ['mutationType', '__Type'], ['subscriptionType', '__Type'], ['directives', '__Directive']],
  __Type: [
    ['kind'], ['name'], ['description'], ['specifiedByURL'], ['isOneOf'], ['fields', '__Field', true], ['interfaces', '__Type'],
    ['possibleTypes', '__Type'], ['enumValues', '__EnumValue', true], ['inputFields', '__InputValue', true], ['ofType', '__Type'],
  ],
  __Field: [['name'], ['description'], ['args', '__InputValue', true], ['type', '__Type'], ['isDeprecated'], ['deprecationReason']],
  __InputValue: [['name'], ['description'], ['type', '__Type'], ['defaultValue'], ['isDeprecated'], ['deprecationReason']],
  __EnumValue: [['name'], ['description'], ['isDeprecated'], ['deprecationReason']],
  __Directive: [['name'], ['description'], ['isRepeatable'], ['locations'], ['args', '__InputValue', true]],
};

/** A random introspection document over `typeNames` (one seed, one document). */
function randomDocument(seed: number, typeNames: readonly string[]): { text: string; variables: Record<string, unknown> } {
  let state = seed >>> 0 || 1;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const directive = () => (next() < 0.85 ? '' : pick([' @skip(if: true)', ' @skip(if: false)', ' @include(if: $on)', ' @skip(if: $on)']));
  const selection = (type: string, depth: number): string => {
    const items: string[] = [];
    const count = 1 + Math.floor(next() * 4);
    for (let i = 0; i < count; i++) {
      const roll = next();
      if (roll < 0.1) items.push(`__typename${directive()}`);
      else if (roll < 0.2 && depth < 5) items.push(`...${next() < 0.5 ? ` on ${type}` : ''}${directive()} { ${selection(type, depth + 1)} }`);
      else {
        const candidates = depth >= 4 ? SELECTABLE[type]!.filter(([, returns]) => !returns) : SELECTABLE[type]!;
        const [field, returns, deprecatedArg] = pick(candidates);
        // Aliases that repeat a field name make graphql-js merge the selections; two fields under one alias are refused by validation (and skipped).
        const alias = next() < 0.2 ? `${pick(['x', 'y', field])}: ` : '';
        const args = deprecatedArg && next() < 0.5 ? `(includeDeprecated: ${pick(['true', 'false', '$all'])})` : '';
        items.push(`${alias}${field}${args}${directive()}${returns ? ` { ${selection(returns, depth + 1)} }` : ''}`);
      }
    }
    return items.join(' ');
  };
  const roots: string[] = [];
  for (let i = 0, n = 1 + Math.floor(next() * 2); i < n; i++) {
    roots.push(next() < 0.5 ? `s${i}: __schema { ${selection('__Schema', 0)} }` : `t${i}: __type(name: ${JSON.stringify(pick([...typeNames, 'Missing']))}) { ${selection('__Type', 0)} }`);
  }
  const body = roots.join(' ');
  // Only variables the document uses are declared (an unused one fails validation).
  const defs = [body.includes('$on') ? '$on: Boolean!' : '', body.includes('$all') ? '$all: Boolean' : ''].filter(Boolean);
  return { text: `query Q${defs.length > 0 ? `(${defs.join(', ')})` : ''} { ${body} }`, variables: { on: next() < 0.5, all: next() < 0.5 } };
}

function expectSameAnswer(schema: GraphQLSchema, text: string, variables?: Record<string, unknown>): void {
  const document = parse(text);
  const expected = execute({ schema, document, variableValues: variables }) as { data?: Record<string, unknown>; errors?: unknown };
  expect(expected.errors, 'graphql-js answers without errors').to.equal(undefined);
  const texts = introspectionTexts(schema, document, variables);
  expect(texts).to.not.equal(null);
  expect(Object.keys(texts!)).to.deep.equal(Object.keys(expected.data!));
  for (const [key, value] of Object.entries(expected.data!)) expect(texts![key], key).to.equal(JSON.stringify(value));
}

describe('introspection written as text (introspection-text.ts)', () => {
  const engine = roleSchema([blogSource()]).schema;
  for (const [schemaName, schema] of [
    ['a schema with every introspection feature', FEATURES],
    ['an engine-generated role schema', engine],
  ] as const) {
    for (const [name, text, variables] of DOCUMENTS) {
      it(`answers ${name} as graphql-js does, on ${schemaName}`, () => expectSameAnswer(schema, text, variables));
    }
  }

  it('answers random introspection documents as graphql-js does (INTROSPECTION_FUZZ_RUNS, default 300)', () => {
    const runs = Number(process.env['INTROSPECTION_FUZZ_RUNS'] ?? 300);
    let compared = 0;
    for (const schema of [FEATURES, engine]) {
      const names = Object.keys(schema.getTypeMap());
      fc.assert(
        fc.property(fc.integer(), (seed) => {
          const { text, variables } = randomDocument(seed, names);
          const document = parse(text);
          if (validate(schema, document).length > 0) return;
          compared++;
          expectSameAnswer(schema, text, variables);
        }),
        { numRuns: runs },
      );
    }
    // Most generated documents are valid: the comparison is not vacuous.
    expect(compared).to.be.greaterThan(runs);
  });

  it('gives null where graphql-js answers with errors: a variable that does not coerce', () => {
    const document = parse('query Q($n: String!) { __type(name: $n) { name } }');
    expect((execute({ schema: FEATURES, document, variableValues: {} }) as { errors?: unknown[] }).errors).to.have.length(1);
    expect(introspectionTexts(FEATURES, document, {})).to.equal(null);
  });

  it('gives null where graphql-js answers with errors: a resolver that throws', () => {
    const broken = buildSchema('type Query { a: Int }');
    const document = parse('{ __type(name: "Query") { fields { type { kind } } } }');
    // Validated (graphql-js keeps the verdict), then a field's type made something no GraphQL type
    // is: __Type.kind throws, which graphql-js reports as a field error.
    expect((execute({ schema: broken, document }) as { errors?: unknown }).errors).to.equal(undefined);
    (broken.getQueryType()!.getFields()['a'] as { type: unknown }).type = { toString: () => 'Weird' };
    expect((execute({ schema: broken, document }) as { errors?: unknown[] }).errors).to.have.length.greaterThan(0);
    expect(introspectionTexts(broken, document, {})).to.equal(null);
  });
});
