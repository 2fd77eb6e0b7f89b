/**
 * Remote schema permissions of inherited roles: inherited when the parents' restricted schemas
 * agree, an inconsistency ('inherited role permission inconsistency') when they differ, and an
 * explicit permission for the inherited role winning.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import type { TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, startWorld, type RemoteWorld } from './fixture.js';

const HELLO = 'schema { query: Query } type Query { hello(name: String): String! }';
// The same schema written in another order, as the reference compares only what matters.
const HELLO_AGAIN = 'type Query { hello(name: String): String! } schema { query: Query }';
const MESSAGES = 'schema { query: Query } type Message { id: Int! } type Query { messages(limit: Int): [Message!]! }';

describe('remote schema permissions of inherited roles', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;
  const as = (role: string) => ({ ...ADMIN, 'x-svc-role': role });
  const permission = (role: string, schema: string) => ({ type: 'add_remote_schema_permissions', args: { remote_schema: 'messages', role, definition: { schema } } });

  before(async () => {
    remote = await messagesServer();
    world = await startWorld('georoles_remote', { enableRemoteSchemaPermissions: true, experimentalFeatures: ['inherited_roles'] });
    const r = await metadata(world.engine, { type: 'bulk', args: [
      { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } },
      permission('a', HELLO),
      permission('b', HELLO_AGAIN),
      permission('c', MESSAGES),
    ] }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  });
  after(async () => {
    await world?.close();
    await remote?.stop();
  });

  it('inherits a permission the parents agree on', async () => {
    const r = await metadata(world.engine, { type: 'add_inherited_role', args: { role_name: 'ab', role_set: ['a', 'b'] } }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    const q = await graphql(world.engine, '{ hello(name: "x") }', undefined, as('ab'));
    expect(q.body).to.deep.equal({ data: { hello: 'hello x' } });
    const hidden = await graphql(world.engine, '{ messages { id } }', undefined, as('ab'));
    expect(hidden.body.errors[0].extensions.code).to.equal('validation-failed');
  });

  it('refuses parents whose permissions differ', async () => {
    const r = await metadata(world.engine, { type: 'add_inherited_role', args: { role_name: 'ac', role_set: ['a', 'c'] } }, ADMIN);
    expect(r.status).to.equal(400);
    expect(r.body.internal).to.deep.equal([
      {
        type: 'inherited role permission inconsistency',
        name: 'ac',
        reason: "Could not inherit permission for the role 'ac' for the entity: 'remote schema: messages'",
        entity: { remote_schema: 'messages' },
      },
    ]);
  });

  it('lets an explicit permission of the inherited role win over a conflict', async () => {
    const r = await metadata(world.engine, { type: 'bulk', args: [
      permission('ac', MESSAGES),
      { type: 'add_inherited_role', args: { role_name: 'ac', role_set: ['a', 'c'] } },
    ] }, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    const q = await graphql(world.engine, '{ messages(limit: 1) { id } }', undefined, as('ac'));
    expect(q.body).to.deep.equal({ data: { messages: [{ id: 1 }] } });
  });
});
