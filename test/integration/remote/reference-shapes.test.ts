/**
 * Remote-schema behaviours checked against the reference's: the remote's Set-Cookie reaches the
 * client, the operation keeps its name, two remotes defining one type identically share it (and
 * differently are refused with the reference's message), tracking a table whose root field a
 * remote has is refused with `remote-schema-conflicts`, and a remote relationship joins on a
 * mutation's returned rows. Real graphql-js servers and PostgreSQL.
 */
import { expect } from 'chai';
import { buildSchema } from 'graphql';
import { call, graphql, metadata } from '../../helpers/engine.js';
import { startGraphQLServer, type TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, startWorld, type RemoteWorld } from './fixture.js';

const NOTE_SDL = 'type Note { id: Int! body: String! }';

describe('remote schemas: reference shapes', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;
  const servers: TestGraphQLServer[] = [];

  const ok = async (body: unknown) => {
    const r = await metadata(world.engine, body, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  const notes = async (field: string, sdl = NOTE_SDL) => {
    const s = await startGraphQLServer(buildSchema(`${sdl} type Query { ${field}: Note }`), { [field]: () => ({ id: 1, body: field }) });
    servers.push(s);
    return s;
  };

  before(async () => {
    remote = await messagesServer();
    world = await startWorld('gaps_remote_shapes');
    await ok({ type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } });
  });
  after(async () => {
    await world?.close();
    await remote?.stop();
    for (const s of servers) await s.stop();
  });

  it("copies the remote's Set-Cookie headers to the client's response", async () => {
    remote.answerHeaders = { 'set-cookie': ['session=abc; Path=/; HttpOnly', 'theme=dark'] };
    try {
      const r = await graphql(world.engine, '{ users(limit: 1) { id } hello }', undefined, ADMIN);
      expect(r.body.data.hello).to.equal('hello world');
      expect(r.headers.getSetCookie()).to.deep.equal(['session=abc; Path=/; HttpOnly', 'theme=dark']);
    } finally {
      remote.answerHeaders = {};
    }
    const plain = await graphql(world.engine, '{ hello }', undefined, ADMIN);
    expect(plain.headers.getSetCookie()).to.deep.equal([]);
  });

  it('sends the operation under its name, with operationName', async () => {
    remote.requests.length = 0;
    const r = await call(world.engine, '/v1/graphql', { query: 'query First { hello } query Second($n: String) { greeting: hello(name: $n) }', operationName: 'Second', variables: { n: 'x' } }, ADMIN);
    expect(r.body).to.deep.equal({ data: { greeting: 'hello x' } });
    expect(remote.requests).to.have.length(1);
    expect(remote.requests[0]!.body.operationName).to.equal('Second');
    expect(remote.requests[0]!.body.query).to.match(/^query Second\(\$n: String\)/);
    // An anonymous operation goes without a name.
    remote.requests.length = 0;
    await graphql(world.engine, '{ hello }', undefined, ADMIN);
    expect(remote.requests[0]!.body.operationName).to.equal(undefined);
  });

  it('merges a type two remotes define identically, and refuses a different definition with the reference message', async () => {
    const a = await notes('noteA');
    const b = await notes('noteB');
    await ok({ type: 'add_remote_schema', args: { name: 'notes_a', definition: { url: a.url } } });
    await ok({ type: 'add_remote_schema', args: { name: 'notes_b', definition: { url: b.url } } });
    const r = await graphql(world.engine, '{ noteA { id body } noteB { body } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({ data: { noteA: { id: 1, body: 'noteA' }, noteB: { body: 'noteB' } } });
    const types = await graphql(world.engine, '{ __schema { types { name } } }', undefined, ADMIN);
    expect(types.body.data.__schema.types.filter((t: { name: string }) => t.name === 'Note')).to.have.length(1);

    const c = await notes('noteC', 'type Note { id: Int! }');
    const refused = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'notes_c', definition: { url: c.url } } }, ADMIN);
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('invalid-configuration');
    expect(refused.body.error).to.equal(
      "Inconsistent object: Found conflicting definitions for GraphQL type 'Note'.  The definition at remote schema notes_c differs from the definitions at [remote schema notes_a]." +
        '\nFormer has definition:\ntype Note {\n  id: Int!\n}\nLatter has definition:\ntype Note {\n  id: Int!\n  body: String!\n}',
    );
    await ok({ type: 'remove_remote_schema', args: { name: 'notes_a' } });
    await ok({ type: 'remove_remote_schema', args: { name: 'notes_b' } });
  });

  it('refuses to track a table whose root field a remote schema has, with remote-schema-conflicts', async () => {
    await world.db.sql('CREATE TABLE hello (id int PRIMARY KEY)');
    const r = await metadata(world.engine, { type: 'pg_track_table', args: { table: 'hello' } }, ADMIN);
    expect(r.status).to.equal(400);
    expect(r.body).to.deep.include({ code: 'remote-schema-conflicts', error: 'node hello already exists in current graphql schema', path: '$.args' });
    // Under another name it is tracked.
    await ok({ type: 'pg_track_table', args: { table: 'hello', configuration: { custom_name: 'greeting_rows' } } });
  });

  it('leaves the open fields of a partly fixed argument to the client, in a <Type>_remote_rel_ input type', async () => {
    await ok({
      type: 'pg_create_remote_relationship',
      args: {
        name: 'filtered',
        table: 'users',
        definition: { to_remote_schema: { remote_schema: 'messages', lhs_fields: ['id'], remote_field: { messages: { arguments: { where: { authorId: '$id' } } } } } },
      },
    });
    const field = await graphql(world.engine, '{ __type(name: "users") { fields { name args { name type { name } } } } }', undefined, ADMIN);
    const filtered = field.body.data.__type.fields.find((f: { name: string }) => f.name === 'filtered');
    expect(filtered.args).to.deep.equal([
      { name: 'where', type: { name: 'MessageFilter_remote_rel_public_usersfiltered' } },
      { name: 'limit', type: { name: 'Int' } },
    ]);
    const input = await graphql(world.engine, '{ __type(name: "MessageFilter_remote_rel_public_usersfiltered") { inputFields { name } } }', undefined, ADMIN);
    expect(input.body.data.__type.inputFields.map((f: { name: string }) => f.name)).to.deep.equal(['priority', 'tenant']);
    remote.requests.length = 0;
    const r = await graphql(
      world.engine,
      'query($w: MessageFilter_remote_rel_public_usersfiltered) { users(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id low: filtered(where: $w) { id } all: filtered { id } } }',
      { w: { priority: 'LOW' } },
      ADMIN,
    );
    expect(r.body).to.deep.equal({ data: { users: [{ id: 1, low: [{ id: 2 }], all: [{ id: 1 }, { id: 2 }] }, { id: 2, low: [{ id: 3 }], all: [{ id: 3 }] }] } });
    // The client's value with the template's field laid over it; the key stays the template's.
    expect(remote.requests.map((q) => q.body.query).join('\n')).to.contain('messages(where: {authorId: 1, priority: LOW})');
    const forced = await graphql(world.engine, '{ users(where: {id: {_eq: 1}}) { filtered(where: {authorId: 3}) { id } } }', undefined, ADMIN);
    expect(forced.body.errors[0].extensions.code).to.equal('validation-failed');
    await ok({ type: 'pg_delete_remote_relationship', args: { name: 'filtered', table: 'users' } });
  });

  it('joins a remote relationship on the rows a mutation returns, in one remote call', async () => {
    await ok({
      type: 'pg_create_remote_relationship',
      args: {
        name: 'messages',
        table: 'users',
        definition: { to_remote_schema: { remote_schema: 'messages', lhs_fields: ['id'], remote_field: { messagesByAuthor: { arguments: { authorId: '$id' } } } } },
      },
    });
    remote.requests.length = 0;
    const r = await graphql(
      world.engine,
      'mutation { update_users(where: {id: {_in: [1, 2]}}, _set: {region: "eu"}) { affected_rows returning { id messages { text } } } insert_users_one(object: {id: 9, name: "new"}) { name messages { id } } }',
      undefined,
      ADMIN,
    );
    expect(r.body.errors, JSON.stringify(r.body)).to.equal(undefined);
    const returning = [...r.body.data.update_users.returning].sort((x: { id: number }, y: { id: number }) => x.id - y.id);
    expect(returning).to.deep.equal([
      { id: 1, messages: [{ text: 'hello from ada' }, { text: 'second from ada' }] },
      { id: 2, messages: [{ text: 'alan here' }] },
    ]);
    expect(r.body.data.insert_users_one).to.deep.equal({ name: 'new', messages: [] });
    // One call per relationship per root field: the update's two rows share one.
    expect(remote.requests).to.have.length(2);
  });
});
