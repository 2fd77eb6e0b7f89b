/**
 * Remote relationships with real servers: table → remote schema field, table → table in a second
 * PostgreSQL database, remote schema type → table and remote → remote. Every join of N parent
 * rows costs ONE call (counted by the test server) or one statement.
 */
import { expect } from 'chai';
import { buildSchema } from 'graphql';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { graphql, metadata } from '../../helpers/engine.js';
import { startGraphQLServer, type TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, ORDERS_SQL, startWorld, type RemoteWorld } from './fixture.js';

describe('remote relationships', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;
  let profiles: TestGraphQLServer;
  let shop: TestDatabase;

  const ok = async (body: unknown) => {
    const r = await metadata(world.engine, body, ADMIN);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };

  before(async () => {
    remote = await messagesServer();
    profiles = await startGraphQLServer(
      buildSchema('type Profile { userId: Int! bio: String! } type Query { profile(userId: Int!): Profile }'),
      { profile: ({ userId }: { userId: number }) => (userId === 4 ? null : { userId, bio: `bio of ${userId}` }) },
    );
    shop = await createTestDatabase('remote_rel_shop', ORDERS_SQL);
    world = await startWorld('remote_rel', {}, { SHOP_URL: shop.url });
    await ok({ type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } });
    await ok({ type: 'add_remote_schema', args: { name: 'profiles', definition: { url: profiles.url } } });
    await ok({ type: 'pg_add_source', args: { name: 'shop', configuration: { connection_info: { database_url: { from_env: 'SHOP_URL' } } } } });
    await ok({ type: 'pg_track_table', args: { source: 'shop', table: 'orders' } });
    await ok({
      type: 'pg_create_remote_relationship',
      args: {
        name: 'messages',
        table: 'users',
        definition: { to_remote_schema: { remote_schema: 'messages', lhs_fields: ['id'], remote_field: { messages: { arguments: { where: { authorId: '$id' } } } } } },
      },
    });
    await ok({
      type: 'pg_create_remote_relationship',
      args: {
        name: 'orders',
        table: 'users',
        definition: { to_source: { relationship_type: 'array', source: 'shop', table: 'orders', field_mapping: { id: 'user_id' } } },
      },
    });
    await ok({
      type: 'create_remote_schema_remote_relationship',
      args: {
        remote_schema: 'messages',
        type_name: 'Message',
        name: 'author',
        definition: { to_source: { relationship_type: 'object', source: 'default', table: 'users', field_mapping: { authorId: 'id' } } },
      },
    });
    await ok({
      type: 'create_remote_schema_remote_relationship',
      args: {
        remote_schema: 'messages',
        type_name: 'Message',
        name: 'profile',
        definition: { to_remote_schema: { remote_schema: 'profiles', lhs_fields: ['authorId'], remote_field: { profile: { arguments: { userId: '$authorId' } } } } },
      },
    });
  });
  after(async () => {
    await world?.close();
    await shop?.drop();
    await remote?.stop();
    await profiles?.stop();
  });

  it('joins a table to a remote schema field with one remote call for all rows', async () => {
    remote.requests.length = 0;
    const r = await graphql(world.engine, '{ users(order_by: {id: asc}) { id messages(limit: 1) { text } name } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({
      data: {
        users: [
          { id: 1, messages: [{ text: 'hello from ada' }], name: 'ada' },
          { id: 2, messages: [{ text: 'alan here' }], name: 'alan' },
          { id: 3, messages: [{ text: 'grace says hi' }], name: 'grace' },
          { id: 4, messages: [], name: 'edsger' },
        ],
      },
    });
    expect(remote.requests).to.have.length(1);
  });

  it('joins on a column the query does not select, and hides it', async () => {
    remote.requests.length = 0;
    const r = await graphql(world.engine, '{ users_by_pk(id: 2) { messages { id } } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({ data: { users_by_pk: { messages: [{ id: 3 }] } } });
    expect(remote.requests).to.have.length(1);
  });

  it('joins a table to a table of a second PostgreSQL source, per-parent limits applied', async () => {
    const r = await graphql(world.engine, '{ users(order_by: {id: asc}) { name orders(order_by: {id: asc}, limit: 1) { item qty } } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({
      data: {
        users: [
          { name: 'ada', orders: [{ item: 'tea', qty: 2 }] },
          { name: 'alan', orders: [{ item: 'coffee', qty: 3 }] },
          { name: 'grace', orders: [{ item: 'tea', qty: 1 }] },
          { name: 'edsger', orders: [] },
        ],
      },
    });
  });

  it('answers <rel>_aggregate of a join to another source per parent row', async () => {
    const r = await graphql(
      world.engine,
      `{ users(order_by: {id: asc}) { name
          orders_aggregate(order_by: {id: asc}) { aggregate { count sum { qty } } nodes { item } }
          tea: orders_aggregate(where: {item: {_eq: "tea"}}) { aggregate { count } } } }`,
      undefined,
      ADMIN,
    );
    expect(r.body).to.deep.equal({
      data: {
        users: [
          { name: 'ada', orders_aggregate: { aggregate: { count: 2, sum: { qty: 3 } }, nodes: [{ item: 'tea' }, { item: 'cake' }] }, tea: { aggregate: { count: 1 } } },
          { name: 'alan', orders_aggregate: { aggregate: { count: 1, sum: { qty: 3 } }, nodes: [{ item: 'coffee' }] }, tea: { aggregate: { count: 0 } } },
          { name: 'grace', orders_aggregate: { aggregate: { count: 1, sum: { qty: 1 } }, nodes: [{ item: 'tea' }] }, tea: { aggregate: { count: 1 } } },
          { name: 'edsger', orders_aggregate: { aggregate: { count: 0, sum: { qty: null } }, nodes: [] }, tea: { aggregate: { count: 0 } } },
        ],
      },
    });
  });

  it('applies distinct_on per parent row on a join to another source', async () => {
    await shop.sql(`INSERT INTO orders VALUES (14, 1, 'tea', 5), (15, 2, 'coffee', 1)`);
    try {
      const r = await graphql(
        world.engine,
        '{ users(order_by: {id: asc}, limit: 3) { name orders(distinct_on: item, order_by: [{item: asc}, {qty: desc}]) { item qty } } }',
        undefined,
        ADMIN,
      );
      expect(r.body).to.deep.equal({
        data: {
          users: [
            { name: 'ada', orders: [{ item: 'cake', qty: 1 }, { item: 'tea', qty: 5 }] },
            { name: 'alan', orders: [{ item: 'coffee', qty: 3 }] },
            { name: 'grace', orders: [{ item: 'tea', qty: 1 }] },
          ],
        },
      });
    } finally {
      await shop.sql('DELETE FROM orders WHERE id IN (14, 15)');
    }
  });

  it('joins a remote type to a table and to another remote schema, one call each', async () => {
    remote.requests.length = 0;
    profiles.requests.length = 0;
    const r = await graphql(world.engine, '{ messages { id author { name } profile { bio } } }', undefined, ADMIN);
    expect(r.body).to.deep.equal({
      data: {
        messages: [
          { id: 1, author: { name: 'ada' }, profile: { bio: 'bio of 1' } },
          { id: 2, author: { name: 'ada' }, profile: { bio: 'bio of 1' } },
          { id: 3, author: { name: 'alan' }, profile: { bio: 'bio of 2' } },
          { id: 4, author: { name: 'grace' }, profile: { bio: 'bio of 3' } },
        ],
      },
    });
    expect(remote.requests).to.have.length(1);
    expect(profiles.requests).to.have.length(1);
  });

  it('round-trips through export and replace_metadata', async () => {
    const exported = await ok({ type: 'export_metadata', args: {} });
    const users = exported.sources.find((s: { name: string }) => s.name === 'default').tables.find((t: { table: { name: string } }) => t.table.name === 'users');
    expect(users.remote_relationships.map((r: { name: string }) => r.name)).to.deep.equal(['messages', 'orders']);
    expect(exported.remote_schemas[0].remote_relationships[0].type_name).to.equal('Message');
    await ok({ type: 'replace_metadata', args: exported });
    const again = await ok({ type: 'export_metadata', args: {} });
    expect(again).to.deep.equal(exported);
  });

  it('refuses a relationship to a missing remote field with the reason', async () => {
    const r = await metadata(
      world.engine,
      { type: 'pg_create_remote_relationship', args: { name: 'bad', table: 'users', definition: { to_remote_schema: { remote_schema: 'messages', lhs_fields: ['id'], remote_field: { nope: { arguments: {} } } } } } },
      ADMIN,
    );
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('invalid-configuration');
    expect(r.body.error).to.equal('Inconsistent object: field with name "nope" not found in remote schema');
  });

  it('refuses to remove a remote schema that relationships depend on', async () => {
    const r = await metadata(world.engine, { type: 'remove_remote_schema', args: { name: 'profiles' } }, ADMIN);
    expect(r.status).to.equal(400);
    expect(r.body.code).to.equal('dependency-error');
  });
});
