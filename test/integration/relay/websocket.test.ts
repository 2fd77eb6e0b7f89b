/**
 * The Relay API over websockets on `/v1beta1/relay`: live connections and node(id:) through both
 * protocols (graphql-transport-ws with the graphql-ws client, legacy graphql-ws over a raw
 * socket), with the role's row filter, and queries and mutations over the socket.
 */
import { expect } from 'chai';
import type { Client } from 'graphql-ws';
import { RawSocket, Received, transportClient, waitFor } from '../subscriptions/fixture.js';
import { ADMIN, asRole, nodeId, startRelayFixture, type RelayFixture } from './fixture.js';
import type { SubscriptionManager } from '../../../core/subscriptions/manager.js';

type Titles = { data: { article_connection: { edges: Array<{ node: { id: string; title: string } }>; pageInfo: { hasNextPage: boolean } } } };

describe('relay: /v1beta1/relay over websockets (integration)', function () {
  this.timeout(60_000);
  let f: RelayFixture;
  const clients: Client[] = [];
  const client = (headers: Record<string, string>): Client => {
    const c = transportClient(f.wsUrl, headers);
    clients.push(c);
    return c;
  };

  before(async () => {
    f = await startRelayFixture('relayws', { liveQueriesMultiplexedRefetchInterval: 100 });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await f?.close();
  });

  it('streams a live connection to a role, seeing only its rows, with each change', async () => {
    const c = client(asRole('user', '1'));
    const r = new Received<Titles>();
    const stop = c.subscribe({ query: 'subscription { article_connection(first: 2) { edges { node { id title } } pageInfo { hasNextPage } } }' }, r.sink);
    const first = (await r.nth(0)).data.article_connection;
    expect(first.edges.map((e) => e.node.title)).to.deep.equal(['a1', 'a2']);
    expect(first.edges[0]!.node.id).to.equal(nodeId('article', 1));
    expect(first.pageInfo.hasNextPage).to.equal(true);
    await f.db.sql(`UPDATE article SET title = 'a2 changed' WHERE id = 2`);
    expect((await r.nth(1)).data.article_connection.edges[1]!.node.title).to.equal('a2 changed');
    stop();
    const manager = f.engine.kernel.container.resolve<SubscriptionManager>('subscriptionManager');
    await waitFor(() => (manager.stats().subscribers === 0 ? true : undefined), 5000, 'the subscriber to go');
    await f.db.sql(`UPDATE article SET title = 'a2' WHERE id = 2`);
  });

  it('subscribes to node(id:) and answers queries and mutations over the socket', async () => {
    const c = client(ADMIN);
    const r = new Received<{ data: { node: { name: string } | null } }>();
    c.subscribe({ query: `subscription { node(id: "${nodeId('author', 3)}") { ... on author { name } } }` }, r.sink);
    expect((await r.nth(0)).data.node).to.deep.equal({ name: 'Grace' });
    // Change tracking starts watching `author` with this first poller: a write landing while it
    // sets up is only seen by the once-a-minute refetch, so the write is repeated until seen.
    await waitFor(async () => {
      await f.db.sql(`UPDATE author SET name = 'Grace H' WHERE id = 3`);
      await new Promise((res) => setTimeout(res, 200));
      return r.values[1];
    }, 20000, 'the changed row');
    expect(r.values[1]!.data.node).to.deep.equal({ name: 'Grace H' });
    expect(r.values).to.have.length(2);

    const q = new Received<{ data: { author_connection: { edges: unknown[] } } }>();
    c.subscribe({ query: '{ author_connection(last: 1) { edges { node { id } } } }' }, q.sink);
    expect((await q.nth(0)).data.author_connection.edges).to.deep.equal([{ node: { id: nodeId('author', 3) } }]);
    const m = new Received<{ data: { update_author: { returning: Array<{ id: string; name: string }> } } }>();
    c.subscribe({ query: 'mutation { update_author(where: {id: {_eq: 3}}, _set: {name: "Grace"}) { returning { id name } } }' }, m.sink);
    expect((await m.nth(0)).data.update_author.returning).to.deep.equal([{ id: nodeId('author', 3), name: 'Grace' }]);
    const bad = new Received();
    c.subscribe({ query: '{ author_by_pk(id: 1) { name } }' }, bad.sink);
    await waitFor(() => bad.errors[0], 5000, 'the error');
    expect(JSON.stringify(bad.errors[0])).to.include("field 'author_by_pk' not found in type: 'query_root'");
    const planning = new Received();
    c.subscribe({ query: '{ article_connection(first: 1, last: 1) { edges { cursor } } }' }, planning.sink);
    await waitFor(() => planning.errors[0], 5000, 'the planning error');
    expect(JSON.stringify(planning.errors[0])).to.include('are not allowed at once');
  });

  it('speaks the legacy graphql-ws protocol on the same path, with relay errors', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-ws');
    await s.opened();
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    await s.message((m) => m['type'] === 'connection_ack');
    s.send({ type: 'start', id: 's', payload: { query: 'subscription { author_connection(first: 1) { edges { cursor node { name } } } }' } });
    expect(await s.message((m) => m['type'] === 'data' && m['id'] === 's')).to.deep.equal({
      type: 'data',
      id: 's',
      payload: { data: { author_connection: { edges: [{ cursor: 'eyJpZCIgOiAxfQ==', node: { name: 'Ada' } }] } } },
    });
    s.send({ type: 'start', id: 'bad', payload: { query: 'subscription { article_connection(first: 1, last: 1) { edges { cursor } } }' } });
    const error = await s.message((m) => m['type'] === 'error' && m['id'] === 'bad');
    expect(JSON.stringify(error['payload'])).to.include('\\"first\\" and \\"last\\" are not allowed at once');
    s.send({ type: 'connection_terminate' });
    await s.closedWith();
  });
});
