import { expect } from 'chai';
import { buildSchema, execute, getIntrospectionQuery, parse, type GraphQLSchema } from 'graphql';
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
