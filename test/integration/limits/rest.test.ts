/**
 * REST endpoints end to end: create/drop with the reference's errors, GET with a path parameter,
 * POST with a JSON body, query-string coercion, 404 and 405 with Allow, and the OpenAPI document
 * validated by a real OpenAPI validator.
 */
import { expect } from 'chai';
import SwaggerParser from '@apidevtools/swagger-parser';
import { call, metadata } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { USER, startLimitsFixture } from './fixture.js';

const QUERIES = [
  { name: 'by_id', query: 'query AuthorById($id: Int!) { author_by_pk(id: $id) { id name } }' },
  { name: 'page', query: 'query Page($limit: Int, $after: Int = 0) { author(where: {id: {_gt: $after}}, limit: $limit, order_by: {id: asc}) { id } }' },
  { name: 'insert', query: 'mutation AddArticle($author_id: Int!, $title: String!) { insert_article_one(object: {author_id: $author_id, title: $title}) { title author { name } } }' },
  { name: 'sub', query: 'subscription { author { id } }' },
];

describe('REST endpoints', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startLimitsFixture('rest');
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'create_query_collection', args: { name: 'rest', definition: { queries: QUERIES } } },
        { type: 'create_rest_endpoint', args: { name: 'author', url: 'author/:id', methods: ['GET'], definition: { query: { collection_name: 'rest', query_name: 'by_id' } }, comment: 'one author' } },
        { type: 'create_rest_endpoint', args: { name: 'authors', url: 'authors', methods: ['GET', 'POST'], definition: { query: { collection_name: 'rest', query_name: 'page' } } } },
        { type: 'create_rest_endpoint', args: { name: 'add_article', url: 'author/:author_id/articles', methods: ['POST'], definition: { query: { collection_name: 'rest', query_name: 'insert' } } } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(() => f?.close());

  it('answers GET with a path parameter: the bare data object', async () => {
    const res = await call(f.engine, '/api/rest/author/2');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ author_by_pk: { id: 2, name: 'Alan Turing' } });
    // The role's permissions apply.
    expect((await call(f.engine, '/api/rest/author/3', undefined, USER)).body).to.deep.equal({ author_by_pk: { id: 3, name: 'Grace Hopper' } });
  });

  it('answers POST with a JSON body, merged with the path parameters', async () => {
    const res = await call(f.engine, '/api/rest/author/4/articles', { title: 'On REST' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ insert_article_one: { title: 'On REST', author: { name: 'Edsger Dijkstra' } } });
  });

  it('coerces query-string variables by their declared types', async () => {
    expect((await call(f.engine, '/api/rest/authors?limit=2&after=1')).body).to.deep.equal({ author: [{ id: 2 }, { id: 3 }] });
    // An empty value is null for a nullable type (no limit).
    expect((await call(f.engine, '/api/rest/authors?limit=&after=3')).body).to.deep.equal({ author: [{ id: 4 }, { id: 5 }] });
    expect((await call(f.engine, '/api/rest/authors', { limit: 1 })).body).to.deep.equal({ author: [{ id: 1 }] });
  });

  it('refuses variables the query does not declare, and reports errors with their real status', async () => {
    const unexpected = await call(f.engine, '/api/rest/authors?nope=1');
    expect(unexpected.status).to.equal(400);
    expect(unexpected.body).to.deep.equal({ path: '$', error: 'Unexpected variable nope', code: 'bad-request' });
    const badInt = await call(f.engine, '/api/rest/author/abc');
    expect(badInt.status).to.equal(400);
    expect(badInt.body.code).to.equal('validation-failed');
  });

  it('answers 404 for unknown paths and 405 with Allow for other methods', async () => {
    const missing = await call(f.engine, '/api/rest/nothing/here');
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({ path: '$', error: 'Endpoint not found', code: 'not-found' });
    const wrong = await call(f.engine, '/api/rest/author/1', undefined, {}, 'DELETE');
    expect(wrong.status).to.equal(405);
    expect(wrong.headers.get('allow')).to.equal('GET');
    expect(wrong.body).to.deep.equal({ path: '$', error: 'Allowed methods: GET', code: 'method-not-allowed' });
  });

  it('serves an OpenAPI 3 document of every endpoint that a validator accepts', async () => {
    const res = await call(f.engine, '/api/swagger/json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.0.0');
    expect(Object.keys(res.body.paths).sort()).to.deep.equal(['/api/rest/author/{author_id}/articles', '/api/rest/author/{id}', '/api/rest/authors']);
    const get = res.body.paths['/api/rest/author/{id}'].get;
    expect(get.summary).to.equal('author');
    expect(get.description).to.contain('one author').and.to.contain('author_by_pk(id: $id)');
    expect(get.parameters).to.deep.include({ in: 'path', name: 'id', required: true, schema: { type: 'integer' } });
    expect(res.body.paths['/api/rest/authors'].post.requestBody).to.be.an('object');
    await SwaggerParser.validate(structuredClone(res.body));
    const user = await call(f.engine, '/api/swagger/json', undefined, USER);
    expect(user.body.code).to.equal('access-denied');
  });

  it('refuses endpoints that cannot be served with the reference reasons, changing nothing', async () => {
    const make = (name: string, url: string, query = 'by_id', methods = ['GET']) =>
      metadata(f.engine, { type: 'create_rest_endpoint', args: { name, url, methods, definition: { query: { collection_name: 'rest', query_name: query } } } });
    const subscription = await make('s', 'subs', 'sub');
    expect(subscription.body).to.deep.include({ code: 'invalid-configuration', error: 'Inconsistent object: in endpoint s: query with name sub is a subscription' });
    expect((await make('e', 'foo/')).body.error).to.equal('Empty segments or unnamed variables are not allowed: foo/');
    expect((await make('d', 'foo/:id/bar/:id')).body.error).to.equal('Duplicate variables found in endpoint path: foo/:id/bar/:id');
    expect((await make('a', 'author/first')).body.error).to.equal('Ambiguous URL paths: author/first, author/:id');
    expect((await make('m', 'x', 'by_id', ['GET', 'FETCH'])).body).to.deep.include({ code: 'parse-failed', error: 'Method FETCH not supported.' });
    expect((await make('author', 'other')).body).to.deep.include({ code: 'already-exists', error: 'Endpoint with name: author already exists' });
    const names = ((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.rest_endpoints as Array<{ name: string }>).map((e) => e.name);
    expect(names).to.deep.equal(['author', 'authors', 'add_article']);
  });

  it('keeps REST endpoints when their collection is renamed; cascade drops them with it', async () => {
    expect((await metadata(f.engine, { type: 'rename_query_collection', args: { name: 'rest', new_name: 'rest2' } })).status).to.equal(200);
    expect((await call(f.engine, '/api/rest/author/1')).body).to.deep.equal({ author_by_pk: { id: 1, name: 'Ada Lovelace' } });
    const used = await metadata(f.engine, { type: 'drop_query_from_collection', args: { collection_name: 'rest2', query_name: 'by_id' } });
    expect(used.body.error).to.equal('cannot continue due to new inconsistent metadata');
    const refused = await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'rest2', cascade: false } });
    expect(refused.body.code).to.equal('dependency-error');
    expect((await metadata(f.engine, { type: 'drop_rest_endpoint', args: { name: 'authors' } })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'drop_rest_endpoint', args: { name: 'authors' } })).body).to.deep.include({ code: 'not-exists', error: 'endpoint with name: authors does not exist' });
    expect((await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'rest2', cascade: true } })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.rest_endpoints).to.equal(undefined);
    expect((await call(f.engine, '/api/rest/author/1')).status).to.equal(404);
  });
});
