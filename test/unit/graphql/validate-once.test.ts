import { expect } from 'chai';
import {
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  assertValidSchema,
  parse,
  validate,
  type GraphQLInputFieldConfigMap,
  type GraphQLNamedType,
} from 'graphql';
import { assertValidSchemaOver } from '../../../core/graphql/schema/validate-once.js';

const root = (name: string, fields: Record<string, unknown>) => new GraphQLObjectType({ name, fields: fields as never });
const typesOf = (schema: GraphQLSchema): GraphQLNamedType[] => Object.values(schema.getTypeMap());

describe('a role schema validated over its fresh types (validate-once.ts)', () => {
  const author = new GraphQLObjectType({ name: 'author', fields: { id: { type: GraphQLInt }, name: { type: GraphQLString } } });
  const filter: GraphQLInputObjectType = new GraphQLInputObjectType({ name: 'author_bool_exp', fields: (): GraphQLInputFieldConfigMap => ({ id: { type: GraphQLInt }, _not: { type: filter } }) });
  const args = { where: { type: filter } };
  const first = new GraphQLSchema({ query: root('query_root', { author: { type: author, args } }) });
  const known = new Set(typesOf(first));
  const freshIn = (schema: GraphQLSchema) => typesOf(schema).filter((t) => !known.has(t));

  it('with every type fresh, refuses an invalid schema with the message assertValidSchema gives', () => {
    const bad = new GraphQLObjectType({ name: 'bad', fields: { __secret: { type: GraphQLInt } } });
    const schema = () => new GraphQLSchema({ query: root('query_root', { author: { type: author }, bad: { type: bad } }) });
    expect(() => assertValidSchema(schema())).to.throw(/"__secret" must not begin with "__"/);
    const s = schema();
    expect(() => assertValidSchemaOver(s, typesOf(s))).to.throw(/"__secret" must not begin with "__"/);
    assertValidSchemaOver(first, typesOf(first));
  });

  it('validates the fresh types and marks the schema valid for graphql-js', () => {
    const response = new GraphQLObjectType({ name: 'author_mutation_response', fields: { affected_rows: { type: new GraphQLNonNull(GraphQLInt) } } });
    const second = new GraphQLSchema({ query: root('query_root', { author: { type: author, args } }), mutation: root('mutation_root', { delete_author: { type: response } }) });
    expect(freshIn(second).map((t) => t.name).sort()).to.deep.equal(['author_mutation_response', 'mutation_root', 'query_root']);
    assertValidSchemaOver(second, freshIn(second));
    expect(second.__validationErrors).to.deep.equal([]);
    expect(validate(second, parse('mutation { delete_author { affected_rows } }'))).to.deep.equal([]);
  });

  it('catches an invalid fresh type beside the known ones', () => {
    const cycle: GraphQLInputObjectType = new GraphQLInputObjectType({ name: 'cycle', fields: (): GraphQLInputFieldConfigMap => ({ self: { type: new GraphQLNonNull(cycle) } }) });
    const third = new GraphQLSchema({ query: root('query_root', { author: { type: author, args: { ...args, x: { type: cycle } } } }) });
    expect(() => assertValidSchemaOver(third, freshIn(third))).to.throw(/Cannot reference Input Object "cycle" within itself/);
  });

  it('checks the known types no further', () => {
    const wrong = new GraphQLObjectType({ name: 'wrong', fields: { __hidden: { type: GraphQLInt } } });
    const schema = new GraphQLSchema({ query: root('query_root', { author: { type: author }, wrong: { type: wrong } }) });
    // Said to be known (validated in an earlier schema), the invalid type is not looked at again.
    const fresh = typesOf(schema).filter((t) => t !== wrong && !known.has(t));
    expect(() => assertValidSchemaOver(schema, fresh)).to.not.throw();
  });
});
