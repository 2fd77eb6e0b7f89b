/**
 * graphql-transport-ws conformance, driven by the `graphql-ws` client library (and a raw socket
 * for what a well-behaved client never sends).
 */
import { expect } from 'chai';
import { SignJWT } from 'jose';
import type { Client } from 'graphql-ws';
import { graphql } from '../../helpers/engine.js';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../../plugins/auth/jwt/config.js';
import { ADMIN, JWT_KEY, RawSocket, Received, startSubsFixture, transportClient, waitFor, type SubsFixture } from './fixture.js';

const token = (userId: string, expiresIn = '10m'): Promise<string> =>
  new SignJWT({ [DEFAULT_CLAIMS_NAMESPACE]: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': userId } })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(JWT_KEY));

describe('subscriptions: graphql-transport-ws with the graphql-ws client (integration)', function () {
  this.timeout(60_000);
  let f: SubsFixture;
  const clients: Client[] = [];
  const client = (headers: Record<string, string>, extra = {}): Client => {
    const c = transportClient(f.wsUrl, headers, extra);
    clients.push(c);
    return c;
  };

  before(async () => {
    f = await startSubsFixture('transport', {
      liveQueriesMultiplexedRefetchInterval: 100,
      jwtSecret: { type: 'HS256', key: JWT_KEY },
      websocketKeepalive: 1,
      websocketConnectionInitTimeout: 1,
    });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await f?.close();
  });

  it('subscribes with a JWT, sees only its own rows, gets each change, and stops on complete', async () => {
    const c = client({ authorization: `Bearer ${await token('1')}` });
    const r = new Received<{ data: { article: Array<{ id: number; title: string }> } }>();
    const stop = c.subscribe({ query: 'subscription { article(order_by: {id: asc}) { id title } }' }, r.sink);
    expect((await r.nth(0)).data.article).to.deep.equal([
      { id: 1, title: 'a1' },
      { id: 2, title: 'a2' },
    ]);
    await f.db.sql(`UPDATE article SET title = 'b1 changed' WHERE id = 3`); // another user's row: no message
    await f.db.sql(`UPDATE article SET title = 'a2 changed' WHERE id = 2`);
    expect((await r.nth(1)).data.article[1]).to.deep.equal({ id: 2, title: 'a2 changed' });
    expect(r.values).to.have.length(2);
    stop();
    await waitFor(() => (f.manager().stats().subscribers === 0 ? true : undefined), 5000, 'the subscriber to go');
    await f.db.sql(`UPDATE article SET title = 'a1 changed' WHERE id = 1`);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.values).to.have.length(2);
    expect(r.completed).to.equal(true);
  });

  it('runs queries and mutations over the socket: one result, then complete', async () => {
    const c = client(ADMIN);
    const q = new Received<{ data: unknown }>();
    c.subscribe({ query: 'query { author_by_pk(id: 2) { name } }' }, q.sink);
    await waitFor(() => (q.completed ? true : undefined));
    expect(q.values).to.deep.equal([{ data: { author_by_pk: { name: 'Alan' } } }]);
    const m = new Received<{ data: unknown }>();
    c.subscribe({ query: 'mutation { insert_other_one(object: {v: 42}) { v } }' }, m.sink);
    await waitFor(() => (m.completed ? true : undefined));
    expect(m.values).to.deep.equal([{ data: { insert_other_one: { v: 42 } } }]);
  });

  it('answers a validation error with `error` (an array of errors)', async () => {
    const c = client(ADMIN);
    const r = new Received();
    c.subscribe({ query: 'subscription { article { nope } }' }, r.sink);
    const errors = (await waitFor(() => r.errors[0])) as Array<{ message: string; extensions: { code: string } }>;
    expect(errors[0]!.extensions.code).to.equal('validation-failed');
    expect(errors[0]!.message).to.equal("field 'nope' not found in type: 'article'");
  });

  it('answers a value the database refuses at start with `error`, and refuses nobody else', async () => {
    const c = client(ADMIN);
    const bad = new Received();
    const good = new Received<{ data: { other: unknown[] } }>();
    const query = 'subscription ($re: String!) { article(where: {title: {_regex: $re}}) { id } }';
    c.subscribe({ query, variables: { re: '(' } }, bad.sink);
    c.subscribe({ query, variables: { re: '^c' } }, good.sink);
    const errors = (await waitFor(() => bad.errors[0])) as Array<{ extensions: { code: string } }>;
    expect(errors[0]!.extensions.code).to.be.a('string');
    expect((await good.nth(0)).data).to.deep.equal({ article: [{ id: 4 }] });
  });

  it('applies subscription_root_fields: a role subscribes only to the root fields listed', async () => {
    const c = client({ authorization: `Bearer ${await token('1')}` });
    const ok = new Received<{ data: { author: unknown[] } }>();
    c.subscribe({ query: 'subscription { author(where: {id: {_eq: 1}}) { name } }' }, ok.sink);
    expect((await ok.nth(0)).data.author).to.deep.equal([{ name: 'Ada' }]);
    const refused = new Received();
    c.subscribe({ query: 'subscription { author_by_pk(id: 1) { name } }' }, refused.sink);
    const errors = (await waitFor(() => refused.errors[0])) as Array<{ message: string }>;
    expect(errors[0]!.message).to.equal("field 'author_by_pk' not found in type: 'subscription_root'");
  });

  it('applies query_root_fields over HTTP as well', async () => {
    const headers = { authorization: `Bearer ${await token('1')}` };
    const listed = await graphql(f.engine, '{ author_by_pk(id: 1) { name } }', undefined, headers);
    expect(listed.body).to.deep.equal({ data: { author_by_pk: { name: 'Ada' } } });
    const unlisted = await graphql(f.engine, '{ author { name } }', undefined, headers);
    expect(unlisted.body.errors[0].message).to.equal("field 'author' not found in type: 'query_root'");
    // Relationships still reach the table.
    const nested = await graphql(f.engine, '{ article(where: {id: {_eq: 1}}) { author { name } } }', undefined, headers);
    expect(nested.body).to.deep.equal({ data: { article: [{ author: { name: 'Ada' } }] } });
  });

  it('closes 4403 Forbidden when connection_init fails authentication', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await s.opened();
    expect(s.ws.protocol).to.equal('graphql-transport-ws');
    s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'wrong' } } });
    expect(await s.closedWith()).to.deep.equal({ code: 4403, reason: '{"server_error_msg":"4403: Forbidden"}' });
  });

  it('ends the connection when the JWT expires', async () => {
    const closed: number[] = [];
    const c = client({ authorization: `Bearer ${await token('1', '2s')}` }, { on: { closed: (e: unknown) => closed.push((e as { code: number }).code) } });
    const r = new Received();
    c.subscribe({ query: 'subscription { article { id } }' }, r.sink);
    await r.nth(0);
    await waitFor(() => closed[0], 10_000, 'the expiry');
    expect(closed[0]).to.not.equal(1000);
  });

  it('closes 4408 when connection_init does not come in time, and sends keep-alive pings meanwhile', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await s.opened();
    expect(await s.closedWith()).to.deep.equal({ code: 4408, reason: 'Connection initialisation timed out' });
    const a = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await a.opened();
    a.send({ type: 'connection_init', payload: { headers: ADMIN } });
    await a.message((m) => m['type'] === 'connection_ack', 'the ack');
    expect(await a.message((m) => m['type'] === 'ping', 'a keep-alive')).to.deep.equal({ type: 'ping', payload: { message: 'keepalive' } });
    a.send({ type: 'ping', payload: { message: 'hi' } });
    expect(await a.message((m) => m['type'] === 'pong', 'the pong')).to.deep.equal({ type: 'pong', payload: { message: 'hi' } });
    a.ws.close();
  });

  it('refuses starts before init and duplicate ids with start-failed, and closes 4400 on a message it cannot parse', async () => {
    const s = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await s.opened();
    s.send({ type: 'subscribe', id: '1', payload: { query: 'subscription { article { id } }' } });
    const early = await s.message((m) => m['type'] === 'error', 'the start error');
    expect(early).to.deep.equal({
      type: 'error',
      id: '1',
      payload: { extensions: { path: '$', code: 'start-failed' }, message: 'start received before the connection is initialised' },
    });
    await s.message((m) => m['type'] === 'complete');
    expect((await s.closedWith()).code).to.equal(1000);

    const d = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await d.opened();
    d.send({ type: 'connection_init', payload: { headers: ADMIN } });
    await d.message((m) => m['type'] === 'connection_ack');
    d.send({ type: 'subscribe', id: 'x', payload: { query: 'subscription { article { id } }' } });
    await d.message((m) => m['type'] === 'next');
    d.send({ type: 'subscribe', id: 'x', payload: { query: 'subscription { article { id } }' } });
    const dup = await d.message((m) => m['type'] === 'error');
    expect((dup['payload'] as { message: string }).message).to.equal('an operation already exists with this id: x');

    const p = new RawSocket(f.wsUrl, 'graphql-transport-ws');
    await p.opened();
    p.send({ type: 'complete' });
    const closed = await p.closedWith();
    expect(closed.code).to.equal(4400);
    expect(JSON.parse(closed.reason).server_error_msg).to.match(/^4400: Parsing client message failed: /);
  });

  it('answers other paths with 404 and picks the legacy protocol unless graphql-transport-ws alone is asked for', async () => {
    expect(await RawSocket.refused(f.wsUrl.replace('/v1/graphql', '/v1/other'))).to.deep.equal({
      status: 404,
      body: "only '/v1/graphql', '/v1alpha1/graphql' and '/v1beta1/relay' are supported on websockets",
    });
    const s = new RawSocket(f.wsUrl, ['graphql-transport-ws', 'graphql-ws']);
    await s.opened();
    expect(s.ws.protocol).to.equal('graphql-ws');
    s.ws.close();
  });
});
