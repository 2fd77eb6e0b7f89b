import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { graphql, metadata } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';
import type { GraphQLExecutor } from '../../../core/graphql/execute/executor.js';

describe('read API: introspection (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('introspect');
  });
  after(async () => f?.close());

  it('answers the standard GraphiQL introspection query, and the result builds a client schema', async () => {
    const res = await graphql(f.engine, getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true }));
    const data = dataOf(res);
    const schema = buildClientSchema(data);
    const sdl = printSchema(schema);
    expect(sdl).to.contain('type query_root');
    expect(sdl).to.contain('author_by_pk(id: Int!): author');
    expect(sdl).to.contain('input author_bool_exp');
    expect(sdl).to.contain('articles_aggregate');
    expect(sdl).to.contain('fetch data from the table: "author"');
  });

  it('merges root introspection fields asked twice under one response key, as GraphQL does', async () => {
    const data = dataOf(
      await graphql(f.engine, '{ __schema { queryType { name } } ... on query_root { __schema { mutationType { name } queryType { kind } } } t: __typename }'),
    );
    expect(data).to.deep.equal({ __schema: { queryType: { name: 'query_root', kind: 'OBJECT' }, mutationType: { name: 'mutation_root' } }, t: 'query_root' });
  });

  it('answers a repeated introspection from the answer kept for the schema, per variables, never a stale one', async () => {
    const query = '{ __schema { queryType { fields { name } } } }';
    const first = dataOf(await graphql(f.engine, query));
    // Through the engine's executor: the plugins' module copies are not the ones a test imports.
    const { introspectionAnswers } = f.engine.kernel.container.resolve<GraphQLExecutor>('graphqlExecutor');
    const hits = introspectionAnswers.hits;
    expect(dataOf(await graphql(f.engine, query))).to.deep.equal(first);
    expect(introspectionAnswers.hits).to.equal(hits + 1);
    expect(first.__schema.queryType.fields.map((x: { name: string }) => x.name)).to.include('author');
    // Variables are part of what an answer is kept under.
    const byName = 'query T($n: String!) { __type(name: $n) { name } }';
    expect(dataOf(await graphql(f.engine, byName, { n: 'author' })).__type.name).to.equal('author');
    expect(dataOf(await graphql(f.engine, byName, { n: 'author_bool_exp' })).__type.name).to.equal('author_bool_exp');
    expect(dataOf(await graphql(f.engine, byName, { n: 'no_such_type' })).__type).to.equal(null);
    expect(dataOf(await graphql(f.engine, byName, { n: 'author' })).__type.name).to.equal('author');
    // Mixed with other root fields, the introspection part is the kept text.
    const mixed = dataOf(await graphql(f.engine, '{ __typename __schema { queryType { fields { name } } } }'));
    expect(mixed).to.deep.equal({ __typename: 'query_root', ...first });
  });

  it('shows no_queries_available when nothing is tracked', async () => {
    // Asked (and kept) before the change: the new snapshot's schema answers afresh.
    expect(dataOf(await graphql(f.engine, '{ __schema { queryType { fields { name } } } }')).__schema.queryType.fields.length).to.be.above(1);
    const cleared = await metadata(f.engine, { type: 'clear_metadata', args: {} });
    expect(cleared.status).to.equal(200);
    const data = dataOf(await graphql(f.engine, '{ __schema { queryType { fields { name } } } }'));
    expect(data.__schema.queryType.fields.map((x: { name: string }) => x.name)).to.deep.equal(['no_queries_available']);
  });
});
