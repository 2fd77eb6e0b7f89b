/**
 * Websocket authentication through a real auth webhook: the session ends when the expiry the
 * webhook gave (`Cache-Control: max-age` or `Expires` in its success object, Document 2 §5.11)
 * passes; with CORS disabled the handshake's `Cookie` reaches the webhook only under
 * --ws-read-cookie (SVC_GRAPHQL_WS_READ_COOKIE).
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { Engine } from '../../../core/engine.js';
import { startTestEngine } from '../../helpers/engine.js';
import { ADMIN_SECRET, startSubsFixture, waitFor, type SubsFixture } from './fixture.js';

interface Socket {
  ws: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: { code: number; at: number } | null;
}

function open(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  const s: Socket = { ws: new WebSocket(url, 'graphql-transport-ws', { headers }), messages: [], closed: null };
  s.ws.on('message', (d) => s.messages.push(JSON.parse(d.toString()) as Record<string, unknown>));
  s.ws.on('close', (code) => (s.closed = { code, at: Date.now() }));
  s.ws.on('error', () => {});
  return new Promise((resolve, reject) => {
    s.ws.once('open', () => resolve(s));
    s.ws.once('error', reject);
  });
}

describe('subscriptions: webhook sessions on websockets (integration)', function () {
  this.timeout(60_000);
  let hook: Server;
  let hookUrl: string;
  let f: SubsFixture;
  const engines: Engine[] = [];
  const cookiesSeen: Array<string | undefined> = [];

  before(async () => {
    // Lets in `Bearer <n>s` for n seconds (as a max-age, or an Expires date for `Bearer at-<n>s`),
    // `Bearer forever` with no expiry, and a `session=ok` cookie.
    hook = createServer((req, res) => {
      const auth = String(req.headers['authorization'] ?? '');
      cookiesSeen.push(req.headers['cookie']);
      const session = { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '1' };
      const ok = (extra: Record<string, string>) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...session, ...extra }));
      let m: RegExpExecArray | null;
      if ((m = /^Bearer (\d+)s$/.exec(auth))) return ok({ 'Cache-Control': `max-age=${m[1]}` });
      if ((m = /^Bearer at-(\d+)s$/.exec(auth))) return ok({ Expires: new Date(Date.now() + Number(m[1]) * 1000).toUTCString() });
      if (auth === 'Bearer forever' || req.headers['cookie'] === 'session=ok') return ok({});
      res.writeHead(401).end();
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/auth`;
    f = await startSubsFixture('limits2_ws_hook', { authHook: hookUrl, authHookMode: 'GET', liveQueriesMultiplexedRefetchInterval: 100 });
  });
  after(async () => {
    for (const e of engines) await e.close();
    await f?.close();
    await new Promise((r) => hook?.close(r));
  });

  const subscribe = async (s: Socket, headers: Record<string, string> = {}) => {
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers } }));
    await waitFor(() => s.messages.find((m) => m['type'] === 'connection_ack') ?? s.closed ?? undefined, 10_000, 'the ack');
    s.ws.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: 'subscription { article(order_by: {id: asc}) { id } }' } }));
    await waitFor(() => s.messages.find((m) => m['type'] === 'next'), 10_000, 'the first result');
  };

  for (const [what, token, earliestMs] of [
    ['Cache-Control max-age', 'Bearer 3s', 2900],
    // Expires has whole seconds: that session may end up to a second early.
    ['Expires', 'Bearer at-3s', 1900],
  ] as const) {
    it(`ends the connection when the webhook's ${what} passes, not before`, async () => {
      const s = await open(f.wsUrl);
      // The webhook is called after this, so the expiry is at least 3 s from here.
      const initSent = Date.now();
      await subscribe(s, { authorization: token });
      const closed = await waitFor(() => s.closed ?? undefined, 15_000, 'the expiry');
      expect(closed.at - initSent).to.be.within(earliestMs, 9000);
      expect(closed.code).to.not.equal(1000);
    });
  }

  it('keeps a session without an expiry open', async () => {
    const s = await open(f.wsUrl);
    await subscribe(s, { authorization: 'Bearer forever' });
    await new Promise((r) => setTimeout(r, 2500));
    expect(s.closed).to.equal(null);
    s.ws.close();
  });

  it('with CORS disabled, passes the handshake cookie to the webhook only under --ws-read-cookie', async () => {
    const withCookie = async (wsReadCookie: boolean) => {
      const engine = await startTestEngine({ databaseUrl: f.db.url, adminSecret: ADMIN_SECRET, authHook: hookUrl, authHookMode: 'GET', disableCors: true, wsReadCookie });
      engines.push(engine);
      const s = await open(`ws://127.0.0.1:${engine.port}/v1/graphql`, { cookie: 'session=ok' });
      cookiesSeen.length = 0;
      s.ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      const outcome = await waitFor(
        () => (s.messages.some((m) => m['type'] === 'connection_ack') ? 'ack' : s.closed ? `closed ${s.closed.code}` : undefined),
        10_000,
        'the init outcome',
      );
      s.ws.close();
      return { outcome, cookies: [...cookiesSeen] };
    };
    expect(await withCookie(false)).to.deep.equal({ outcome: 'closed 4403', cookies: [undefined] });
    expect(await withCookie(true)).to.deep.equal({ outcome: 'ack', cookies: ['session=ok'] });
  });
});
