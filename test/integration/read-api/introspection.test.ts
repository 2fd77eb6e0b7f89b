import { expect } from 'chai';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { graphql, metadata } from '../../helpers/engine.js';
import { dataOf, startReadApiFixture, type ReadApiFixture } from './fixture.js';

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

  it('shows no_queries_available when nothing is tracked', async () => {
    const cleared = await metadata(f.engine, { type: 'clear_metadata', args: {} });
    expect(cleared.status).to.equal(200);
    const data = dataOf(await graphql(f.engine, '{ __schema { queryType { fields { name } } } }'));
    expect(data.__schema.queryType.fields.map((x: { name: string }) => x.name)).to.deep.equal(['no_queries_available']);
  });
});
