import { expect } from 'chai';
import { GraphQLInputObjectType, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, assertValidSchema, parse, validate } from 'graphql';
import { assertValidRoleSchema } from '../../../core/graphql/schema/validate-once.js';

const shared = () => {
  const author = new GraphQLObjectType({ name: 'author', fields: { id: { type: GraphQLInt }, name: { type: GraphQLString } } });
  const filter = new GraphQLInputObjectType({ name: 'author_bool_exp', fields: () => ({ id: { type: GraphQLInt }, _not: { type: filter } }) });
  return { author, filter };
};
const root = (name: string, fields: Record<string, unknown>) => new GraphQLObjectType({ name, fields: fields as never });

describe('role schemas validated type by type (validate-once.ts)', () => {
  it('refuses an invalid schema with the message assertValidSchema gives', () => {
    const { author } = shared();
    const bad = new GraphQLObjectType({ name: 'bad', fields: { __secret: { type: GraphQLInt } } });
    const schema = () => new GraphQLSchema({ query: root('query_root', { author: { type: author }, bad: { type: bad } }) });
    let expected = '';
    try {
      assertValidSchema(schema());
    } catch (e) {
      expected = (e as Error).message;
    }
    expect(expected).to.match(/__secret/);
    expect(() => assertValidRoleSchema(schema())).to.throw(expected);
  });

  it('validates a later schema\'s own types and marks it valid for graphql-js', () => {
    const { author, filter } = shared();
    const args = { where: { type: filter } };
    assertValidRoleSchema(new GraphQLSchema({ query: root('query_root', { author: { type: author, args } }) }));

    const fine = new GraphQLObjectType({ name: 'author_mutation_response', fields: { affected_rows: { type: new GraphQLNonNull(GraphQLInt) } } });
    const second = new GraphQLSchema({ query: root('query_root', { author: { type: author, args } }), mutation: root('mutation_root', { delete_author: { type: fine } }) });
    assertValidRoleSchema(second);
    expect(second.__validationErrors).to.deep.equal([]);
    expect(validate(second, parse('mutation { delete_author { affected_rows } }'))).to.deep.equal([]);

    // A new type that is invalid is still caught, beside types validated before.
    const broken = new GraphQLInputObjectType({ name: 'cycle', fields: () => ({ self: { type: new GraphQLNonNull(broken) } }) });
    const third = new GraphQLSchema({ query: root('query_root', { author: { type: author, args: { ...args, x: { type: broken } } } }) });
    expect(() => assertValidRoleSchema(third)).to.throw(/Cannot reference Input Object "cycle" within itself/);
  });

  it('does not validate a type again once a schema holding it passed', () => {
    const { author } = shared();
    assertValidRoleSchema(new GraphQLSchema({ query: root('query_root', { author: { type: author } }) }));
    // Changed after it passed (types never are in the engine): a later schema trusts the earlier verdict.
    (author.getFields()['name'] as { name: string }).name = '__changed';
    const later = new GraphQLSchema({ query: root('query_root', { author: { type: author }, n: { type: GraphQLInt } }) });
    expect(() => assertValidRoleSchema(later)).to.not.throw();
    expect(() => assertValidSchema(new GraphQLSchema({ query: root('query_root', { author: { type: author } }) }))).to.throw(/__changed/);
  });
});
