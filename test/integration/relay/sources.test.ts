/**
 * Relay over two sources: a second source with a root-field namespace and type-name prefix keeps
 * its connections under the namespace, and a version-1 id naming a table both sources track is
 * refused as the reference refuses it (such ids carry no source).
 */
import { expect } from 'chai';
import { metadata } from '../../helpers/engine.js';
import { ADMIN, nodeId, startRelayFixture, type RelayFixture } from './fixture.js';

describe('relay: several sources (integration)', function () {
  this.timeout(60_000);
  let f: RelayFixture;

  before(async () => {
    f = await startRelayFixture('relaysrc');
    const res = await metadata(
      f.engine,
      {
        type: 'bulk',
        args: [
          {
            type: 'pg_add_source',
            args: {
              name: 'second',
              configuration: { connection_info: { database_url: f.db.url, pool_settings: { max_connections: 2 } } },
              customization: { root_fields: { namespace: 'second' }, type_names: { prefix: 'second_' } },
            },
          },
          { type: 'pg_track_table', args: { source: 'second', table: 'author' } },
        ],
      },
      ADMIN,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => {
    await f?.close();
  });

  it('puts a namespaced source’s connections under its namespace, with its type names', async () => {
    const r = await f.relay('{ second { author_connection(first: 1) { __typename edges { node { __typename id name } } } } author_connection(last: 1) { edges { node { name } } } }');
    expect(r.body).to.deep.equal({
      data: {
        second: { author_connection: { __typename: 'second_authorConnection', edges: [{ node: { __typename: 'second_author', id: nodeId('author', 1), name: 'Ada' } }] } },
        author_connection: { edges: [{ node: { name: 'Grace' } }] },
      },
    });
  });

  it('refuses a version-1 id that matches tables of two sources', async () => {
    const r = await f.relay(`{ node(id: "${nodeId('author', 1)}") { id } }`);
    expect(r.body.errors[0].message).to.equal(
      'invalid node id: this V1 node id matches more than one table across different sources: "public.author" exists in sources ["default","second"]',
    );
    // A table only one source tracks still resolves.
    const a = await f.relay(`{ node(id: "${nodeId('article', 1)}") { ... on article { title } } }`);
    expect(a.body).to.deep.equal({ data: { node: { title: 'a1' } } });
  });
});
