import { expect } from 'chai';
import { getIntrospectionQuery, graphqlSync, isEnumType, isInputObjectType, isObjectType, type GraphQLSchema } from 'graphql';
import { authorSpec, makeSource, roleSchema } from './fixtures.js';

/** Every `extensions` object reachable from a schema's types, fields, arguments and enum values. */
function allExtensions(schema: GraphQLSchema): object[] {
  const out: object[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    out.push(type.extensions);
    if (isObjectType(type)) {
      for (const f of Object.values(type.getFields())) out.push(f.extensions, ...f.args.map((a) => a.extensions));
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) out.push(f.extensions);
    } else if (isEnumType(type)) {
      for (const v of type.getValues()) out.push(v.extensions);
    }
  }
  return out;
}

/**
 * graphql-js gives each schema element a dictionary-mode `extensions` object of its own; at 1,000
 * tables they were half of a role schema's heap. Assembly makes the empty ones one shared object.
 */
describe('graphql schema memory: empty extensions and argument lists are one shared object', () => {
  const { schema } = roleSchema([makeSource('default', [authorSpec()])]);

  it('shares one frozen, empty, null-prototype object between every element', () => {
    const all = allExtensions(schema);
    expect(all.length).to.be.greaterThan(100);
    const distinct = new Set(all);
    expect(distinct.size).to.equal(1);
    const [shared] = [...distinct] as [object];
    expect(Object.isFrozen(shared)).to.equal(true);
    expect(Object.getPrototypeOf(shared)).to.equal(null);
    expect(Object.keys(shared)).to.deep.equal([]);
  });

  it('gives every field without arguments one frozen empty arguments array', () => {
    const empty = new Set<readonly unknown[]>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue;
      for (const f of Object.values(type.getFields())) if (f.args.length === 0) empty.add(f.args);
    }
    expect(empty.size).to.equal(1);
    expect(Object.isFrozen([...empty][0])).to.equal(true);
  });

  it('keeps the schema valid and introspectable', () => {
    const result = graphqlSync({ schema, source: getIntrospectionQuery() });
    expect(result.errors).to.equal(undefined);
    const types = (result.data as { __schema: { types: Array<{ name: string }> } }).__schema.types.map((t) => t.name);
    expect(types).to.include.members(['author', 'author_bool_exp', 'query_root']);
  });
});
