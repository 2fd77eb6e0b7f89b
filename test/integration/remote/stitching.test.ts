/**
 * Remote schemas stitched into the API: operations, merged root fields, split execution with one
 * call per remote, customization both ways, header forwarding, errors and timeouts, against real
 * graphql-js servers started here.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import type { TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, startWorld, type RemoteWorld } from './fixture.js';

describe('remote schemas: stitching and execution', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;

  before(async () => {
    remote = await messagesServer();
    world = await startWorld('remote_stitch');
    const r = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url, headers: [{ name: 'x-api-key', value: 'k1' }] } } }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  });
  after(async () => {
    await world?.close();
    await remote?.stop();
  });

  it('serves database and remote root fields in one request, the remote called once', async () => {
    remote.requests.length = 0;
    const r = await graphql(world.engine, '{ users(order_by: {id: asc}, limit: 1) { name } hello(name: "x") m: message(id: 1) { id text } users_by_pk(id: 2) { name } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({ data: { users: [{ name: 'ada' }], hello: 'hello x', m: { id: 1, text: 'hello from ada' }, users_by_pk: { name: 'alan' } } });
    expect(Object.keys(r.body.data)).to.deep.equal(['users', 'hello', 'm', 'users_by_pk']);
    expect(remote.requests).to.have.length(1);
  });

  it('forwards variables and fragments', async () => {
    remote.requests.length = 0;
    const r = await graphql(
      world.engine,
      'query Q($id: Int!, $w: MessageFilter) { message(id: $id) { ...F } messages(where: $w) { id __typename } } fragment F on Message { text priority }',
      { id: 3, w: { authorId: 1 } },
      ADMIN,
    );
    expect(r.body).to.deep.equal({ data: { message: { text: 'alan here', priority: 'LOW' }, messages: [{ id: 1, __typename: 'Message' }, { id: 2, __typename: 'Message' }] } });
    expect(remote.requests).to.have.length(1);
    expect(remote.requests[0]!.body.variables).to.deep.equal({ id: 3, w: { authorId: 1 } });
  });

  it('sends configured headers and session variables, never the admin secret', async () => {
    remote.requests.length = 0;
    await graphql(world.engine, '{ hello }', undefined, { ...ADMIN, 'x-svc-role': 'admin', 'x-svc-user-id': '7' });
    const h = remote.requests[0]!.headers;
    expect(h['x-api-key']).to.equal('k1');
    expect(h['x-svc-role']).to.equal('admin');
    expect(h['x-svc-user-id']).to.equal('7');
    expect(h['x-svc-admin-secret']).to.equal(undefined);
    expect(h['content-type']).to.equal('application/json');
    expect(h['user-agent']).to.match(/^svc-graphql-engine\//);
  });

  it('passes remote errors through with data null', async () => {
    const r = await graphql(world.engine, '{ fail }', undefined, ADMIN);
    expect(r.body.data).to.equal(null);
    expect(r.body.errors[0].message).to.equal('remote failure');
  });

  it('runs remote mutations', async () => {
    const r = await graphql(world.engine, 'mutation { addMessage(text: "new", authorId: 4) { text authorId } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({ data: { addMessage: { text: 'new', authorId: 4 } } });
  });

  it('lists the remote in introspection and exports it', async () => {
    const r = await graphql(world.engine, '{ __type(name: "Message") { fields { name } } }', undefined, ADMIN);
    expect(r.body.data.__type.fields.map((f: { name: string }) => f.name)).to.include('text');
    const exp = await metadata(world.engine, { type: 'export_metadata', args: {} }, ADMIN);
    expect(exp.body.remote_schemas).to.deep.equal([{ name: 'messages', definition: { url: remote.url, headers: [{ name: 'x-api-key', value: 'k1' }] } }]);
  });
});
