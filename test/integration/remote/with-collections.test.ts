/**
 * Plugins that validate stored queries against the schema (query collections, REST endpoints)
 * must see the schema every other plugin contributes, remote schemas included: a remote added
 * after a collection exists once lost its fields for good, because the admin schema had been
 * built (and kept for the snapshot) before the remote was introspected.
 */
import { expect } from 'chai';
import { graphql, metadata } from '../../helpers/engine.js';
import type { TestGraphQLServer } from '../../helpers/graphql-server.js';
import { ADMIN, messagesServer, startWorld, type RemoteWorld } from './fixture.js';

describe('remote schemas next to query collections', function () {
  this.timeout(60_000);
  let world: RemoteWorld;
  let remote: TestGraphQLServer;

  before(async () => {
    remote = await messagesServer();
    world = await startWorld('remote_collections');
  });
  after(async () => {
    await world?.close();
    await remote?.stop();
  });

  it('serves a remote added after a collection, and validates collection queries that use it', async () => {
    const collection = await metadata(
      world.engine,
      { type: 'create_query_collection', args: { name: 'c', definition: { queries: [{ name: 'users', query: '{ users { name } }' }] } } },
      ADMIN,
    );
    expect(collection.status, JSON.stringify(collection.body)).to.equal(200);
    const added = await metadata(world.engine, { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url } } }, ADMIN);
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    expect((await graphql(world.engine, '{ hello(name: "x") }', undefined, ADMIN)).body).to.deep.equal({ data: { hello: 'hello x' } });

    const remoteQuery = await metadata(
      world.engine,
      { type: 'add_query_to_collection', args: { collection_name: 'c', query_name: 'hello', query: '{ hello(name: "y") }' } },
      ADMIN,
    );
    expect(remoteQuery.status, JSON.stringify(remoteQuery.body)).to.equal(200);
    const consistency = await metadata(world.engine, { type: 'get_inconsistent_metadata', args: {} }, ADMIN);
    expect(consistency.body).to.deep.include({ is_consistent: true });
  });
});
