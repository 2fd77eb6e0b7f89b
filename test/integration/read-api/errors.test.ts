import { expect } from 'chai';
import { call, graphql } from '../../helpers/engine.js';
import { startReadApiFixture, type ReadApiFixture } from './fixture.js';

describe('read API: errors in the reference shape (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('errors');
  });
  after(async () => f?.close());

  it('reports an unknown field with validation-failed and its GraphQL path, as HTTP 200 on /v1/graphql', async () => {
    const res = await graphql(f.engine, '{ author { id does_not_exist } }');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      errors: [
        {
          extensions: { path: '$.selectionSet.author.selectionSet.does_not_exist', code: 'validation-failed' },
          message: "field 'does_not_exist' not found in type: 'author'",
        },
      ],
    });
  });

  it('keeps the real status on /v1alpha1/graphql', async () => {
    const res = await call(f.engine, '/v1alpha1/graphql', { query: '{ nope }' });
    expect(res.status).to.equal(400);
    expect(res.body.errors[0].extensions).to.deep.equal({ path: '$.selectionSet.nope', code: 'validation-failed' });
  });

  it('reports unparsable GraphQL', async () => {
    const res = await graphql(f.engine, '{ author { id ');
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
    expect(res.body.errors[0].message).to.contain('not a valid graphql query');
  });

  it('reports a request body that is not a GraphQL request with parse-failed', async () => {
    const res = await call(f.engine, '/v1/graphql', { nothing: true });
    expect(res.status).to.equal(200);
    expect(res.body.errors[0].extensions).to.deep.equal({ path: '$', code: 'parse-failed' });
    expect(res.body.errors[0].message).to.equal('key "query" not found');
  });

  it('refuses a negative limit', async () => {
    const lit = await graphql(f.engine, '{ author(limit: -1) { id } }');
    expect(lit.body.errors[0].extensions.code).to.equal('not-supported');
    expect(lit.body.errors[0].message).to.equal('unexpected negative value');
    const variable = await graphql(f.engine, 'query($n: Int) { author(limit: $n) { id } }', { n: -5 });
    expect(variable.body.errors[0].extensions.code).to.equal('not-supported');
  });

  it('reports bad variable values', async () => {
    const missing = await graphql(f.engine, 'query($id: Int!) { author_by_pk(id: $id) { id } }', {});
    expect(missing.body.errors[0].extensions.code).to.equal('validation-failed');
    const wrongType = await graphql(f.engine, 'query($id: Int!) { author_by_pk(id: $id) { id } }', { id: 'x' });
    expect(wrongType.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('refuses subscriptions over HTTP', async () => {
    const res = await graphql(f.engine, 'subscription { author { id } }');
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('asks for operationName when a document has several operations', async () => {
    const doc = 'query A { author(limit: 1) { id } } query B { article(limit: 1) { id } }';
    const none = await call(f.engine, '/v1/graphql', { query: doc });
    expect(none.body.errors[0].extensions.code).to.equal('validation-failed');
    const picked = await call(f.engine, '/v1/graphql', { query: doc, operationName: 'B' });
    expect(picked.body).to.deep.equal({ data: { article: [{ id: 1 }] } });
  });

  it('has no mutations for a role without write permissions and says so', async () => {
    const res = await graphql(f.engine, 'mutation { insert_author(objects: []) { affected_rows } }', undefined, { 'X-Svc-Role': 'reader' });
    expect(res.body.errors[0].extensions.code).to.equal('validation-failed');
  });
});

describe('read API: unknown input fields and enum values (integration)', function () {
  let f: ReadApiFixture;
  before(async () => {
    f = await startReadApiFixture('errors_input');
  });
  after(async () => f?.close());

  it('names an unknown where field with its path through the arguments', async () => {
    const res = await graphql(f.engine, '{ author(where: {articles: {nope: {_eq: 1}}}) { id } }');
    expect(res.body.errors[0]).to.deep.equal({
      extensions: { path: '$.selectionSet.author.args.where.articles.nope', code: 'validation-failed' },
      message: "field 'nope' not found in type: 'article_bool_exp'",
    });
  });

  it('names an unknown enum value', async () => {
    const res = await graphql(f.engine, '{ author(distinct_on: nope) { id } }');
    expect(res.body.errors[0]).to.deep.equal({
      extensions: { path: '$.selectionSet.author.args.distinct_on', code: 'validation-failed' },
      message: "expected one of the values ['born', 'email', 'id', 'meta', 'name', 'rating', 'tags'] for type 'author_select_column', but found 'nope'",
    });
  });
});
