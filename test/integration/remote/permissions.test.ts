/**
 * Remote schema permissions (--enable-remote-schema-permissions): the restricted SDL checked
 * against the remote, roles without a permission seeing nothing of it, admin unrestricted, and
 * `@preset` values (static and from the session) injected into arguments and input objects.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import type { TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, startWorld, type RemoteWorld } from './fixture.js';

const USER_SDL = `
  schema { query: Query }
  enum Priority { LOW HIGH }
  type Message { id: Int! text: String! authorId: Int! }
  input MessageFilter { authorId: Int @preset(value: "x-svc-user-id") priority: Priority tenant: String @preset(value: "t1") }
  type Query {
    messages(where: MessageFilter, limit: Int): [Message!]!
    hello(name: String @preset(value: "x-svc-user-id", static: true)): String!
    messagesByAuthor(authorId: Int! @preset(value: "x-svc-user-id")): [Message!]!
  }
`;

describe('remote schema permissions', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;
  const as = (role: string, userId?: string) => ({ ...ADMIN, 'x-svc-role': role, ...(userId ? { 'x-svc-user-id': userId } : {}) });

  before(async () => {
    remote = await messagesServer();
    world = await startWorld('remote_perm', { enableRemoteSchemaPermissions: true });
    const r = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  });
  after(async () => {
    await world?.close();
    await remote?.stop();
  });

  it('reports every problem of a restricted schema at once', async () => {
    const sdl = 'type Message { id: Int! created: String } type Query { message(id: Int!): Message nope: Int }';
    const r = await metadata(world.engine, { type: 'add_remote_schema_permissions', args: { remote_schema: 'messages', role: 'user', definition: { schema: sdl } } }, ADMIN);
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('validation-failed');
    expect(r.body.error).to.equal(
      'validation for the given role-based schema failed for the following reasons:\n' +
        ' • field "created" does not exist in the "Object": "Message"\n' +
        ' • field "nope" does not exist in the "Object": "Query"\n',
    );
  });

  it('hides the remote from roles without a permission, admin sees all', async () => {
    const none = await graphql(world.engine, '{ hello }', undefined, as('guest'));
    expect(none.body.errors[0].extensions.code).to.equal('validation-failed');
    const admin = await graphql(world.engine, '{ fail: hello(name: "a") }', undefined, ADMIN);
    expect(admin.body).to.deep.equal({ data: { fail: 'hello a' } });
  });

  it('injects static and session presets into arguments and input objects', async () => {
    const r = await metadata(world.engine, { type: 'add_remote_schema_permissions', args: { remote_schema: 'messages', role: 'user', definition: { schema: USER_SDL } } }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    remote.requests.length = 0;
    const q = await graphql(
      world.engine,
      'query($w: MessageFilter) { messages(where: $w) { id } byMe: messagesByAuthor { id } hello }',
      { w: { priority: 'HIGH' } },
      as('user', '1'),
    );
    expect(q.body).to.deep.equal({ data: { messages: [{ id: 1 }], byMe: [{ id: 1 }, { id: 2 }], hello: 'hello x-svc-user-id' } });
    // As the reference sends them: the client's input object with the presets merged in as
    // `$svc_json_var_<n>`, a session preset as the non-null `$x_svc_user_id`; no literals.
    expect(remote.requests).to.have.length(1);
    const sent = remote.requests[0]!.body;
    expect(sent.query).to.contain('messages(where: $svc_json_var_0)');
    expect(sent.query).to.contain('messagesByAuthor(authorId: $x_svc_user_id)');
    expect(sent.query).to.match(/\$svc_json_var_0: MessageFilter\b/);
    expect(sent.query).to.contain('$x_svc_user_id: Int!');
    expect(sent.variables).to.deep.equal({ svc_json_var_0: { priority: 'HIGH', authorId: 1, tenant: 't1' }, x_svc_user_id: 1 });
    const literal = await graphql(world.engine, '{ messages(where: {priority: HIGH}) { id } }', undefined, as('user', '3'));
    expect(literal.body).to.deep.equal({ data: { messages: [{ id: 4 }] } });
  });

  it('hides fields and preset arguments from the role', async () => {
    const r = await graphql(world.engine, '{ message(id: 1) { id } }', undefined, as('user', '1'));
    expect(r.body.errors[0].message).to.equal("field 'message' not found in type: 'query_root'");
    const t = await graphql(world.engine, '{ __type(name: "MessageFilter") { inputFields { name } } }', undefined, as('user', '1'));
    expect(t.body.data.__type.inputFields.map((f: { name: string }) => f.name)).to.deep.equal(['priority']);
  });

  it('fails clearly when a session preset is missing', async () => {
    const r = await graphql(world.engine, '{ messagesByAuthor { id } }', undefined, as('user'));
    expect(r.body.errors[0].extensions.code).to.equal('not-found');
    expect(r.body.errors[0].message).to.equal('"x-svc-user-id" session variable expected, but not found');
  });

  it('drops a permission', async () => {
    const r = await metadata(world.engine, { type: 'drop_remote_schema_permissions', args: { remote_schema: 'messages', role: 'user' } }, ADMIN);
    expect(r.status).to.equal(200);
    const q = await graphql(world.engine, '{ hello }', undefined, as('user', '1'));
    expect(q.body.errors[0].extensions.code).to.equal('validation-failed');
  });
});
