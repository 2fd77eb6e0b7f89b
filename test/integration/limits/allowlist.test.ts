/**
 * Query collections and the allow-list end to end: the operations and their errors, queries
 * validated against the schema (an invalid one is an inconsistent object), cascade, and with
 * --enable-allowlist only listed queries running per role scope, admin exempt.
 */
import { expect } from 'chai';
import { call, graphql, metadata } from '../../helpers/engine.js';
import type { ReadApiFixture } from '../read-api/fixture.js';
import { EDITOR, USER, startLimitsFixture } from './fixture.js';

const LISTED = 'query Authors { author(order_by: {id: asc}, limit: 2) { id name } }';

describe('query collections', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startLimitsFixture('collections');
  });
  after(() => f?.close());

  it('creates, adds and drops queries, renames and drops collections', async () => {
    expect((await metadata(f.engine, { type: 'create_query_collection', args: { name: 'c1', definition: { queries: [{ name: 'q1', query: LISTED }] } } })).status).to.equal(200);
    const dup = await metadata(f.engine, { type: 'create_query_collection', args: { name: 'c1', definition: { queries: [] } } });
    expect(dup.body).to.deep.equal({ path: '$.args.name', error: 'query collection with name "c1" already exists', code: 'already-exists' });
    expect((await metadata(f.engine, { type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q2', query: '{ author { id } }' } })).status).to.equal(200);
    const again = await metadata(f.engine, { type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q2', query: '{ author { id } }' } });
    expect(again.body.code).to.equal('already-exists');
    const missing = await metadata(f.engine, { type: 'drop_query_from_collection', args: { collection_name: 'c1', query_name: 'nope' } });
    expect(missing.status).to.equal(400);
    expect(missing.body).to.deep.include({ code: 'not-found', error: 'query with name "nope" not found in collection "c1"' });
    expect((await metadata(f.engine, { type: 'drop_query_from_collection', args: { collection_name: 'c1', query_name: 'q2' } })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'rename_query_collection', args: { name: 'c1', new_name: 'c2' } })).status).to.equal(200);
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(exported.body.query_collections).to.deep.equal([{ name: 'c2', definition: { queries: [{ name: 'q1', query: LISTED }] } }]);
    const noCascade = await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'c2' } });
    expect(noCascade.body).to.deep.include({ code: 'parse-failed', error: 'key "cascade" not found' });
    expect((await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'c2', cascade: false } })).status).to.equal(200);
    const gone = await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'c2', cascade: false } });
    expect(gone.body).to.deep.include({ code: 'not-exists', error: 'query collection with name "c2" does not exist' });
  });

  it('refuses duplicate query names and text that is not GraphQL', async () => {
    const dup = await metadata(f.engine, {
      type: 'create_query_collection',
      args: { name: 'd', definition: { queries: [{ name: 'a', query: '{ author { id } }' }, { name: 'a', query: '{ author { id } }' }] } },
    });
    expect(dup.body).to.deep.equal({ path: '$.args.definition.queries', error: 'found duplicate query names "a"', code: 'not-supported' });
    const bad = await metadata(f.engine, { type: 'create_query_collection', args: { name: 'd', definition: { queries: [{ name: 'a', query: '{ author {' }] } } });
    expect(bad.body.code).to.equal('parse-failed');
    expect(bad.body.path).to.equal('$.args.definition.queries[0].query');
  });

  it('an invalid query is an inconsistent object with the reference message, and nothing changes', async () => {
    const res = await metadata(f.engine, {
      type: 'create_query_collection',
      args: { name: 'bad', definition: { queries: [{ name: 'q', query: '{ author { nope } }' }] } },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('cannot continue due to new inconsistent metadata');
    expect(res.body.internal).to.deep.equal([
      {
        type: 'query_collections',
        name: 'query_collections q in bad',
        definition: { name: 'q', query: '{ author { nope } }' },
        reason: `Inconsistent object: In query collection "bad" the query "q" is invalid with the following error(s): "field 'nope' not found in type: 'author'"`,
      },
    ]);
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(exported.body.query_collections ?? []).to.deep.equal([]);
  });

  it('replace_metadata with an invalid collection query is refused, allowed with allow_inconsistent_metadata', async () => {
    const current = (await metadata(f.engine, { type: 'export_metadata', args: {} })).body;
    const bad = { ...current, query_collections: [{ name: 'r', definition: { queries: [{ name: 'q', query: '{ nope }' }] } }] };
    const refused = await metadata(f.engine, { type: 'replace_metadata', version: 2, args: { metadata: bad } });
    expect(refused.status).to.equal(400);
    expect(refused.body.internal[0].type).to.equal('query_collections');
    const allowed = await metadata(f.engine, { type: 'replace_metadata', version: 2, args: { metadata: bad, allow_inconsistent_metadata: true } });
    expect(allowed.body.is_consistent).to.equal(false);
    expect((await metadata(f.engine, { type: 'drop_inconsistent_metadata', args: {} })).status).to.equal(200);
    const after = await metadata(f.engine, { type: 'get_inconsistent_metadata', args: {} });
    expect(after.body.is_consistent).to.equal(true);
  });
});

describe('allow-list', function () {
  this.timeout(60000);
  let f: ReadApiFixture;
  before(async () => {
    f = await startLimitsFixture('allowlist', { enableAllowlist: true });
    const res = await metadata(f.engine, {
      type: 'bulk',
      args: [
        { type: 'create_query_collection', args: { name: 'public', definition: { queries: [{ name: 'authors', query: LISTED }] } } },
        { type: 'create_query_collection', args: { name: 'editors', definition: { queries: [{ name: 'one', query: 'query One($id: Int!) { author_by_pk(id: $id) { name } }' }] } } },
        { type: 'add_collection_to_allowlist', args: { collection: 'public' } },
        { type: 'add_collection_to_allowlist', args: { collection: 'editors', scope: { global: false, roles: ['editor'] } } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(() => f?.close());

  it('/v1alpha1/config reports the allow-list as enabled', async () => {
    expect((await call(f.engine, '/v1alpha1/config')).body.is_allow_list_enabled).to.equal(true);
  });

  it('runs a listed query, compared as a parsed document (whitespace, comments, __typename)', async () => {
    const variants = [
      LISTED,
      `# a comment
       query Authors {
         author(limit: 2, order_by: {id: asc}) { __typename id name }
       }`,
    ];
    for (const q of variants) {
      const res = await graphql(f.engine, q, undefined, USER);
      expect(res.body.data.author.map((a: { name: string }) => a.name), q).to.deep.equal(['Ada Lovelace', 'Alan Turing']);
    }
  });

  it('refuses an unlisted query with the reference code and message; field order and names matter', async () => {
    for (const q of ['{ author { id } }', 'query Authors { author(order_by: {id: asc}, limit: 2) { name id } }', 'query Other { author(order_by: {id: asc}, limit: 2) { id name } }']) {
      const res = await graphql(f.engine, q, undefined, USER);
      expect(res.body, q).to.deep.equal({ errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'query is not allowed' }] });
    }
    const v1alpha1 = await call(f.engine, '/v1alpha1/graphql', { query: '{ author { id } }' }, USER);
    expect(v1alpha1.status).to.equal(400);
  });

  it('applies role scopes: a role-scoped collection runs only for its roles', async () => {
    const q = 'query One($id: Int!) { author_by_pk(id: $id) { name } }';
    expect((await graphql(f.engine, q, { id: 3 }, EDITOR)).body).to.deep.equal({ data: { author_by_pk: { name: 'Grace Hopper' } } });
    expect((await graphql(f.engine, q, { id: 3 }, USER)).body.errors[0].message).to.equal('query is not allowed');
    expect((await graphql(f.engine, LISTED, undefined, EDITOR)).body.data.author).to.have.length(2);
  });

  it('exempts admin', async () => {
    expect((await graphql(f.engine, '{ author(limit: 1) { id } }')).body).to.deep.equal({ data: { author: [{ id: 1 }] } });
  });

  it('checks each operation of a batch', async () => {
    const res = await call(f.engine, '/v1/graphql', [{ query: LISTED }, { query: '{ author { id } }' }], USER);
    expect(res.body[0].data.author).to.have.length(2);
    expect(res.body[1].errors[0].message).to.equal('query is not allowed');
  });

  it('updates scopes, answers re-adds with a message, drops; errors for unknown collections', async () => {
    const readd = await metadata(f.engine, { type: 'add_collection_to_allowlist', args: { collection: 'public', scope: { global: false, roles: ['x'] } } });
    expect(readd.body).to.deep.equal({
      message: 'collection "public" already exists in the allowlist, scope ignored; to change scope, use update_scope_of_collection_in_allowlist',
    });
    const badScope = await metadata(f.engine, { type: 'update_scope_of_collection_in_allowlist', args: { collection: 'public', scope: { global: true, roles: ['x'] } } });
    expect(badScope.body).to.deep.include({ code: 'parse-failed', error: 'roles are not allowed when global is true' });
    const dupRoles = await metadata(f.engine, { type: 'update_scope_of_collection_in_allowlist', args: { collection: 'public', scope: { global: false, roles: ['a', 'a'] } } });
    expect(dupRoles.body.error).to.equal('duplicate roles are not allowed');
    expect((await metadata(f.engine, { type: 'update_scope_of_collection_in_allowlist', args: { collection: 'public', scope: { global: false, roles: ['editor'] } } })).status).to.equal(200);
    expect((await graphql(f.engine, LISTED, undefined, USER)).body.errors[0].message).to.equal('query is not allowed');
    expect((await graphql(f.engine, LISTED, undefined, EDITOR)).body.data.author).to.have.length(2);
    const unknown = await metadata(f.engine, { type: 'add_collection_to_allowlist', args: { collection: 'nope' } });
    expect(unknown.body).to.deep.include({ code: 'not-exists', error: 'query collection with name "nope" does not exist' });
    const exported = await metadata(f.engine, { type: 'export_metadata', args: {} });
    expect(exported.body.allowlist).to.deep.equal([
      { collection: 'public', scope: { global: false, roles: ['editor'] } },
      { collection: 'editors', scope: { global: false, roles: ['editor'] } },
    ]);
    // Drop needs cascade while the collection is listed.
    const dep = await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'editors', cascade: false } });
    expect(dep.body).to.deep.include({ code: 'dependency-error' });
    expect(dep.body.error).to.match(/^query collection with name "editors" is present in the allowlist; cannot proceed to drop/);
    expect((await metadata(f.engine, { type: 'drop_query_collection', args: { collection: 'editors', cascade: true } })).status).to.equal(200);
    expect((await metadata(f.engine, { type: 'drop_collection_from_allowlist', args: { collection: 'public' } })).status).to.equal(200);
    const notListed = await metadata(f.engine, { type: 'drop_collection_from_allowlist', args: { collection: 'public' } });
    expect(notListed.status).to.equal(400);
    expect(notListed.body).to.deep.include({ code: 'not-found', error: `collection "public" doesn't exist in the allowlist` });
    expect((await metadata(f.engine, { type: 'export_metadata', args: {} })).body.allowlist).to.equal(undefined);
    expect((await graphql(f.engine, LISTED, undefined, EDITOR)).body.errors[0].message).to.equal('query is not allowed');
  });
});
