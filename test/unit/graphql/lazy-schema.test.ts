import { expect } from 'chai';
import {
  getIntrospectionQuery,
  getNamedType,
  graphqlSync,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  parse,
  printSchema,
  specifiedRules,
  validate,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { validateDocument } from '../../../core/graphql/execute/validate.js';
import { isLazyRootType, LazyRoleSchema, LazyRootType } from '../../../core/graphql/schema/lazy-schema.js';
import { makeSource, roleSchema, type TableSpec } from './fixtures.js';

const TABLES = 30;

/** t1 → t2 → … → t30: each table's `next` rows and its `prev` row; only the last has a timestamptz column. */
function chainSpecs(): TableSpec[] {
  const specs: TableSpec[] = [];
  for (let k = 1; k <= TABLES; k++) {
    specs.push({
      name: `t${k}`,
      columns: [
        { name: 'id', type: 'int4' },
        { name: 'name', type: 'text' },
        { name: 'prev_id', type: 'int4' },
        ...(k === TABLES ? [{ name: 'seen_at', type: 'timestamptz' }] : []),
      ],
      primaryKey: ['id'],
      relationships: [
        ...(k < TABLES ? [{ name: 'next', kind: 'array' as const, target: `t${k + 1}`, mapping: [['id', 'prev_id']] as Array<[string, string]> }] : []),
        ...(k > 1 ? [{ name: 'prev', kind: 'object' as const, target: `t${k - 1}`, mapping: [['prev_id', 'id']] as Array<[string, string]> }] : []),
      ],
    });
  }
  return specs;
}

/** Each call builds new type objects (a draft of its own): a fresh, unbuilt lazy schema. */
const freshLazy = (): LazyRoleSchema => {
  const { schema } = roleSchema([makeSource('default', chainSpecs())]);
  expect(schema).to.be.instanceOf(LazyRoleSchema);
  return schema as LazyRoleSchema;
};

/**
 * Whether graphql-js ran a type's fields thunk. graphql-js 16 keeps the thunk in `_fields` until
 * the first `getFields()`; lazy-schema.ts relies on that, and this test fails if it changes.
 */
const built = (type: GraphQLNamedType): boolean =>
  !(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) || typeof (type as unknown as { _fields: unknown })._fields !== 'function';

/** The types reachable from the roots through built types only (nothing is built by looking). */
function builtTypes(schema: LazyRoleSchema): Set<GraphQLNamedType> {
  const out = new Set<GraphQLNamedType>();
  const queue: GraphQLNamedType[] = [schema.getQueryType()];
  while (queue.length > 0) {
    const type = queue.pop()!;
    if (out.has(type)) continue;
    if (isLazyRootType(type)) {
      out.add(type);
      for (const f of type.built) queue.push(getNamedType(f.type), ...f.args.map((a) => getNamedType(a.type)));
      continue;
    }
    if (!built(type)) continue;
    out.add(type);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const f of Object.values(type.getFields())) queue.push(getNamedType(f.type), ...f.args.map((a) => getNamedType(a.type)));
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) queue.push(getNamedType(f.type));
    }
  }
  return out;
}

/** validateDocument's verdict: 'ok' or the error's message. */
function verdict(schema: GraphQLSchema, text: string): string {
  try {
    validateDocument(schema, parse(text));
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('a role schema built as requests reach it (lazy-schema.ts)', () => {
  const complete = freshLazy().complete();
  const total = Object.keys(complete.getTypeMap()).length;

  it('validates a query building only the types on its path', () => {
    const lazy = freshLazy();
    const text = 'query($id: Int!) { t1_by_pk(id: $id) { id next(where: {name: {_like: "a%"}}, order_by: {id: asc}) { id prev { name } } } }';
    expect(verdict(lazy, text)).to.equal('ok');
    expect(lazy.completed).to.equal(false);
    const count = builtTypes(lazy).size;
    expect(total).to.be.greaterThan(300);
    // At least query_root, t1, t2 and the filter and ordering inputs the arguments name.
    expect(count).to.be.greaterThan(5);
    // query_root, t1, t2, their bool_exp and order_by inputs, the comparison inputs they name...
    expect(count).to.be.lessThan(total / 20);
  });

  it('knows a type its built types name, without building more (a variable of a relationship filter)', () => {
    const lazy = freshLazy();
    expect(verdict(lazy, 'query($c: t3_bool_exp) { t1(where: {next: {next: $c}}) { id } }')).to.equal('ok');
    expect(lazy.completed).to.equal(false);
    expect(verdict(lazy, 'query($c: t3_bool_exp) { t1(where: {next: {next: $c}}) { id } }')).to.equal(verdict(complete, 'query($c: t3_bool_exp) { t1(where: {next: {next: $c}}) { id } }'));
  });

  const documents: Array<[string, string]> = [
    ['a valid nested query', 'query($id: Int!) { t1_by_pk(id: $id) { id next(limit: 2) { id next { name } } } }'],
    ['a variable of a type only the last table reaches', 'query($w: timestamptz_comparison_exp) { t29(where: {next: {seen_at: $w}}) { id } }'],
    ['a misspelt variable type', 'query($w: t1_bool_ex) { t1(where: $w) { id } }'],
    ['a standard scalar the schema does not hold', 'query($x: ID) { t1 { id } }'],
    ['a fragment on a type the query never reaches', '{ t1 { ...F } } fragment F on t25 { id }'],
    ['a fragment on a type that does not exist', '{ t1 { ...F } } fragment F on t99 { id }'],
    ['an inline fragment on its own type', '{ t1 { ... on t1 { id next { ... on t2 { name } } } } }'],
    ['a variable used where another type is expected', 'query($c: t5_bool_exp) { t1(where: $c) { id } }'],
    ['an unknown field', '{ t1 { id nope } }'],
    ['an unknown argument', '{ t1(nope: 1) { id } }'],
    ['a literal of the wrong type', '{ t1(limit: "x") { id } }'],
    ['an unknown input field in a literal', '{ t1(where: {next: {nope: {_eq: 1}}}) { id } }'],
    ['an unused variable', 'query($x: Int) { t1 { id } }'],
    ['a fragment cycle', '{ t1 { ...A } } fragment A on t1 { ...B } fragment B on t1 { ...A }'],
    ['a mutation', 'mutation { insert_t1_one(object: {name: "x"}) { id } }'],
    ['a subscription', 'subscription { t1_stream(batch_size: 1, cursor: {initial_value: {id: 1}}) { id } }'],
  ];
  for (const [what, text] of documents) {
    it(`answers as the complete schema does: ${what}`, () => {
      expect(verdict(freshLazy(), text)).to.equal(verdict(complete, text));
    });
  }

  it('reports an unknown type with graphql-js\'s own message and suggestions', () => {
    const text = 'query($w: t1_bool_ex) { t1(where: $w) { id } }';
    const graphqlJs = validate(complete, parse(text), specifiedRules).map((e) => e.message);
    expect(graphqlJs[0]).to.match(/^Unknown type "t1_bool_ex"\. Did you mean "t1_bool_exp"/);
    expect(verdict(freshLazy(), text)).to.equal(graphqlJs[0]);
  });

  it('builds a root field when it is read, and every one, in name order, when they are listed', () => {
    const lazy = freshLazy();
    const root = lazy.getQueryType();
    expect(root).to.be.instanceOf(LazyRootType);
    const fields = root.getFields();
    expect((root as LazyRootType).built).to.have.length(0);
    expect(fields['t3_by_pk']?.args.map((a) => `${a.name}: ${String(a.type)}`)).to.deep.equal(['id: Int!']);
    expect('t3' in fields).to.equal(true);
    expect('t99' in fields).to.equal(false);
    expect((root as LazyRootType).built.map((f) => f.name)).to.deep.equal(['t3_by_pk']);
    expect(fields['t3_by_pk']).to.equal(fields['t3_by_pk']);
    const listed = Object.values(fields).map((f) => f.name);
    expect(listed).to.deep.equal(Object.keys(complete.getQueryType()!.getFields()));
    expect(listed).to.deep.equal([...listed].sort());
    expect((root as LazyRootType).built).to.have.length(listed.length);
  });

  it('completes itself to list its types, and then answers introspection and SDL as the complete schema', () => {
    const lazy = freshLazy();
    expect(Object.keys(lazy.getTypeMap()).sort()).to.deep.equal(Object.keys(complete.getTypeMap()).sort());
    expect(lazy.completed).to.equal(true);
    expect(printSchema(lazy)).to.equal(printSchema(complete));
    const fresh = freshLazy();
    expect(graphqlSync({ schema: fresh, source: getIntrospectionQuery() })).to.deep.equal(graphqlSync({ schema: complete, source: getIntrospectionQuery() }));
  });

  it('finds a type by name from what was built, and completes only for a name it cannot find so', () => {
    const lazy = freshLazy();
    expect(lazy.getType('query_root')).to.equal(lazy.getQueryType());
    expect(lazy.getType('String')?.name).to.equal('String');
    // A root field read names its table's row type and filter, unbuilt.
    expect(lazy.getQueryType().getFields()['t17']?.name).to.equal('t17');
    expect(lazy.getType('t17_bool_exp')?.name).to.equal('t17_bool_exp');
    expect(lazy.completed).to.equal(false);
    expect(lazy.getType('no_such_type')).to.equal(undefined);
    expect(lazy.completed).to.equal(true);
  });
});
