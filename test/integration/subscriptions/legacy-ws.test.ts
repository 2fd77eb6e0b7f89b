/**
 * The legacy Apollo `graphql-ws` protocol, driven by the `subscriptions-transport-ws` client
 * library (and a raw socket for the server's exact frames).
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { SubscriptionClient } from 'subscriptions-transport-ws';
import { ADMIN, RawSocket, Received, startSubsFixture, waitFor, type SubsFixture } from './fixture.js';

describe('subscriptions: legacy graphql-ws with the subscriptions-transport-ws client (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  const clients: SubscriptionClient[] = [];
  const client = (headers: Record<string, string>): SubscriptionClient => {
    const c = new SubscriptionClient(f.wsUrl, { connectionParams: { headers }, reconnect: false }, WebSocket);
    clients.push(c);
    return c;
  };

  before(async () => {
    f = await startSubsFixture('legacy', { liveQueriesMultiplexedRefetchInterval: 100, websocketConnectionInitTimeout: 1 });
  });
  after(async () => {
    for (const c of clients) c.close();
    await f?.close();
  });

  it('subscribes, gets each change, and stops on unsubscribe', async () => {
    const c = client({ ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '2' });
    const r = new Received<{ data: { article: Array<{ id: number; title: string }> } }>();
    const sub = c.request({ query: 'subscription { article { id title } }' }).subscribe(r.sink as never);
    expect((await r.nth(0)).data.article).to.deep.equal([{ id: 3, title: 'b1' }]);
    await f.db.sql(`UPDATE article SET title = 'b1 again' WHERE id = 3`);
    expect((await r.nth(1)).data.article).to.deep.equal([{ id: 3, title: 'b1 again' }]);
    sub.unsubscribe();
    await waitFor(() => (f.manager().stats().subscribers === 0 ? true : undefined), 5000, 'the subscriber to go');
  });

  it('runs a query over the socket', async () => {
    const c = client(ADMIN);
    const r = new Received<{ data: unknown }>();
    c.request({ query: '{ author_by_pk(id: 3) { name } }' }).subscribe(r.sink as never);
    await waitFor(() => (r.completed ? true : undefined));
    expect(r.values).to.deep.equal([{ data: { author_by_pk: { name: 'Grace' } } }]);
  });

  it('reports a validation error as `error` with {errors: [...]}', async () => {
    const c = client(ADMIN);
    const r = new Received();
    c.request({ query: 'subscription { article { nope } }' }).subscribe(r.sink as never);
    const err = (await waitFor(() => r.errors[0])) as Array<{ message: string }>;
    // The client unwraps `payload.errors` into the error it reports.
    expect(JSON.stringify(err)).to.contain("field 'nope' not found in type: 'article'");
  });

  it('sends connection_error and closes 4400 when connection_init fails', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-ws');
    await s.opened();
    expect(s.ws.protocol).to.equal('graphql-ws');
    s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'wrong' } } });
    const msg = await s.message((m) => m['type'] === 'connection_error');
    expect(msg['payload']).to.be.a('string');
    const closed = await s.closedWith();
    expect(closed.code).to.equal(4400);
    expect(JSON.parse(closed.reason)).to.deep.equal({ server_error_msg: `4400: Connection initialization failed: ${String(msg['payload'])}` });
  });

  it('acks with an immediate ka, answers data/complete frames, and keeps the connection on a bad message', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-ws');
    await s.opened();
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    await s.message((m) => m['type'] === 'connection_ack');
    await s.message((m) => m['type'] === 'ka');
    s.send({ type: 'start', id: 'q', payload: { query: '{ author_by_pk(id: 1) { name } }' } });
    expect(await s.message((m) => m['type'] === 'data')).to.deep.equal({ type: 'data', id: 'q', payload: { data: { author_by_pk: { name: 'Ada' } } } });
    await s.message((m) => m['type'] === 'complete' && m['id'] === 'q');
    s.send('{"type": "unknown"}');
    expect(await s.message((m) => m['type'] === 'connection_error')).to.deep.equal({
      type: 'connection_error',
      payload: 'parsing ClientMessage failed: unexpected type for ClientMessage: unknown',
    });
    s.send({ type: 'connection_terminate' });
    expect(await s.closedWith()).to.deep.equal({ code: 1000, reason: 'GQL_CONNECTION_TERMINATE received' });
  });

  it('closes 1011 when connection_init does not come in time', async () => {
    const s = new RawSocket(f.wsUrl);
    await s.opened();
    expect(await s.closedWith()).to.deep.equal({ code: 1011, reason: 'Connection initialisation timed out' });
  });

  it('answers /v1alpha1/graphql pre-execution errors with the bare error object', async () => {
    const s = new RawSocket(f.wsUrl.replace('/v1/graphql', '/v1alpha1/graphql'), 'graphql-ws');
    await s.opened();
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    await s.message((m) => m['type'] === 'connection_ack');
    s.send({ type: 'start', id: 'e', payload: { query: 'subscription { nope { id } }' } });
    expect(await s.message((m) => m['type'] === 'error')).to.deep.equal({
      type: 'error',
      id: 'e',
      payload: { path: '$.selectionSet.nope', error: "field 'nope' not found in type: 'subscription_root'", code: 'validation-failed' },
    });
    s.ws.close();
  });
});
