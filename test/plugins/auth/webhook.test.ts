import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKernel, type Kernel } from '../../../core/kernel/kernel.js';
import { BootError, EngineError } from '../../../core/errors.js';
import type { AuthRequest, Session } from '../../../core/auth/session.js';
import type { ServerConfig } from '../../../core/config/types.js';
import { ENGINE_VERSION } from '../../../core/version.js';
import adminSecret from '../../../plugins/auth/admin-secret/index.js';
import webhook from '../../../plugins/auth/webhook/index.js';
import { testConfig } from '../../helpers/config.js';

const ADMIN_SECRET = 'admin-secret-for-tests';

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Responder = (req: IncomingMessage, res: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string | string[]> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

describe('auth/webhook', () => {
  let server: Server;
  let url: string;
  let seen: Seen[];
  let respond: Responder;

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        respond(req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    seen = [];
    respond = json(200, { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '42' });
  });

  const kernelWith = (overrides: Partial<ServerConfig> = {}, pluginOptions?: Record<string, unknown>): Promise<Kernel> =>
    createKernel({
      plugins: [adminSecret, webhook],
      config: testConfig({ adminSecret: ADMIN_SECRET, authHook: url, ...overrides }),
      ...(pluginOptions ? { pluginOptions } : {}),
    });

  const request = (headers: Record<string, string>, body?: unknown): AuthRequest => ({
    headers,
    ip: '127.0.0.1',
    body,
    responseHeaders: [],
  });

  async function expectRefused(kernel: Kernel, req: AuthRequest, code: string, status: number, message: string) {
    let session: Session | undefined;
    let error: unknown;
    try {
      session = await kernel.hooks.onRequestAuth.promise(req);
    } catch (e) {
      error = e;
    }
    expect(session, 'no session may be produced').to.equal(undefined);
    expect(error).to.be.instanceOf(EngineError);
    const err = error as EngineError;
    expect({ code: err.code, status: err.status, message: err.message, path: err.path }).to.deep.equal({
      code,
      status,
      message,
      path: '$',
    });
  }

  describe('GET mode', () => {
    it('forwards the client headers minus the excluded list, and builds the session from the answer', async () => {
      const kernel = await kernelWith();
      const client = {
        authorization: 'Bearer abc',
        cookie: 'sid=1',
        'x-svc-role': 'editor',
        'x-custom': 'yes',
        'content-length': '12',
        'content-type': 'text/plain',
        'content-md5': 'Q2hlY2sgSW50ZWdyaXR5IQ==',
        'user-agent': 'curl/8',
        host: 'engine.example',
        origin: 'https://app.example',
        referer: 'https://app.example/page',
        accept: '*/*',
        'accept-encoding': 'gzip',
        'accept-language': 'en',
        'accept-datetime': 'Thu, 31 May 2007 20:35:00 GMT',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        dnt: '1',
        'transfer-encoding': 'chunked',
      };
      const session = await kernel.hooks.onRequestAuth.promise(request(client));
      expect(session).to.deep.equal({ role: 'user', variables: { 'x-svc-user-id': '42', 'x-svc-role': 'user' } });
      expect(seen).to.have.length(1);
      const { port } = server.address() as AddressInfo;
      expect(seen[0]?.method).to.equal('GET');
      expect(seen[0]?.headers).to.deep.equal({
        'content-type': 'application/json',
        'user-agent': `svc-graphql-engine/${ENGINE_VERSION}`,
        authorization: 'Bearer abc',
        cookie: 'sid=1',
        'x-svc-role': 'editor',
        'x-custom': 'yes',
        host: `127.0.0.1:${port}`,
        connection: 'keep-alive',
      });
      expect(seen[0]?.body).to.equal('');
    });

    it('is skipped when a valid admin secret is sent', async () => {
      const kernel = await kernelWith();
      const session = await kernel.hooks.onRequestAuth.promise(request({ 'x-svc-admin-secret': ADMIN_SECRET }));
      expect(session?.role).to.equal('admin');
      expect(seen).to.have.length(0);
    });

    it('is called when no credentials are sent at all', async () => {
      const kernel = await kernelWith();
      expect((await kernel.hooks.onRequestAuth.promise(request({})))?.role).to.equal('user');
      expect(seen).to.have.length(1);
    });
  });

  describe('POST mode', () => {
    it('sends {headers, request} with all client headers and the client body', async () => {
      const kernel = await kernelWith({ authHookMode: 'POST' });
      const body = { query: '{ a }', variables: { x: 1 }, operationName: null };
      await kernel.hooks.onRequestAuth.promise(request({ authorization: 'Bearer abc', 'user-agent': 'curl/8' }, body));
      expect(seen[0]?.method).to.equal('POST');
      expect(seen[0]?.headers['content-type']).to.equal('application/json');
      expect(seen[0]?.headers['user-agent']).to.equal(`svc-graphql-engine/${ENGINE_VERSION}`);
      expect(seen[0]?.headers['authorization']).to.equal(undefined);
      expect(JSON.parse(seen[0]?.body ?? '')).to.deep.equal({
        headers: { authorization: 'Bearer abc', 'user-agent': 'curl/8' },
        request: body,
      });
    });

    it('sends request: null when the client body was not valid JSON', async () => {
      const kernel = await kernelWith({ authHookMode: 'POST' });
      await kernel.hooks.onRequestAuth.promise(request({ 'x-a': 'b' }));
      expect(JSON.parse(seen[0]?.body ?? '')).to.deep.equal({ headers: { 'x-a': 'b' }, request: null });
    });
  });

  describe('answers', () => {
    it('keeps only x-svc-* names, lower-cased, as session variables', async () => {
      respond = json(200, { 'X-SVC-ROLE': 'user', 'x-svc-org': 'o', name: 'dropped' });
      const kernel = await kernelWith();
      expect((await kernel.hooks.onRequestAuth.promise(request({})))?.variables).to.deep.equal({
        'x-svc-org': 'o',
        'x-svc-role': 'user',
      });
    });

    it('forwards Set-Cookie headers', async () => {
      respond = json(200, { 'x-svc-role': 'user' }, { 'set-cookie': ['a=1; Path=/', 'b=2; HttpOnly'] });
      const kernel = await kernelWith();
      const req = request({});
      await kernel.hooks.onRequestAuth.promise(req);
      expect(req.responseHeaders).to.deep.equal([
        ['Set-Cookie', 'a=1; Path=/'],
        ['Set-Cookie', 'b=2; HttpOnly'],
      ]);
    });

    it('takes the expiry from Cache-Control max-age or Expires in the answer', async () => {
      respond = json(200, { 'x-svc-role': 'user', 'Cache-Control': 'max-age=600' });
      const kernel = await kernelWith();
      const before = Date.now();
      const session = await kernel.hooks.onRequestAuth.promise(request({}));
      const at = session?.expiresAt?.getTime() ?? 0;
      expect(at).to.be.within(before + 600_000, Date.now() + 600_000);

      respond = json(200, { 'x-svc-role': 'user', Expires: 'Wed, 21 Oct 2037 07:28:00 GMT' });
      expect((await kernel.hooks.onRequestAuth.promise(request({})))?.expiresAt).to.deep.equal(
        new Date('2037-10-21T07:28:00Z'),
      );

      respond = json(200, { 'x-svc-role': 'user' });
      expect((await kernel.hooks.onRequestAuth.promise(request({})))?.expiresAt).to.equal(undefined);
    });

    it('answers 401 when the webhook answers 401', async () => {
      respond = json(401, { error: 'no' }, { 'set-cookie': 'x=1' });
      const kernel = await kernelWith();
      const req = request({});
      await expectRefused(kernel, req, 'access-denied', 401, 'Authentication hook unauthorized this request');
      expect(req.responseHeaders).to.deep.equal([]);
    });

    it('answers 500 when the webhook answers any other status', async () => {
      const kernel = await kernelWith();
      for (const status of [500, 403, 302, 201]) {
        respond = json(status, { 'x-svc-role': 'user' });
        await expectRefused(kernel, request({}), 'unexpected', 500, 'Invalid response from authorization hook');
      }
    });

    it('answers 500 naming the problem when the answer is garbage', async () => {
      const kernel = await kernelWith();
      const cases: Array<[string, string]> = [
        ['garbage', "Error in $: Failed reading: not a valid json value at 'garbage'"],
        ['', 'Error in $: not enough input'],
        ['["x-svc-role", "user"]', 'Error in $: parsing HashMap ~Text failed, expected Object, but encountered Array'],
        ['"user"', 'Error in $: parsing HashMap ~Text failed, expected Object, but encountered String'],
        [
          '{"x-svc-role": "user", "x-svc-user-id": 42}',
          "Error in $['x-svc-user-id']: parsing Text failed, expected String, but encountered Number",
        ],
        ['{"x-svc-role": "user", "admin": true}', 'Error in $.admin: parsing Text failed, expected String, but encountered Boolean'],
        ['{"x-svc-role": null}', "Error in $['x-svc-role']: parsing Text failed, expected String, but encountered Null"],
      ];
      for (const [body, problem] of cases) {
        respond = json(200, body);
        await expectRefused(kernel, request({}), 'unexpected', 500, `Invalid response from authorization hook: ${problem}`);
      }
    });

    it('refuses an answer without x-svc-role', async () => {
      respond = json(200, { 'x-svc-user-id': '1' });
      const kernel = await kernelWith();
      await expectRefused(kernel, request({}), 'invalid-params', 400, 'x-svc-role not found in session variables');
    });
  });

  describe('failures', () => {
    it('answers 500 when the webhook does not answer in time', async () => {
      respond = (_req, res) => {
        setTimeout(() => json(200, { 'x-svc-role': 'user' })(_req, res), 2000).unref();
      };
      const kernel = await kernelWith({}, { 'auth/webhook': { timeoutSeconds: 0.2 } });
      const started = Date.now();
      await expectRefused(kernel, request({}), 'unexpected', 500, 'webhook authentication request timed out');
      expect(Date.now() - started).to.be.lessThan(1500);
    });

    it('answers 500 when the answer is larger than the cap, declared or streamed', async () => {
      const kernel = await kernelWith({}, { 'auth/webhook': { maxResponseBytes: 1024 } });
      const padded = { 'x-svc-role': 'user', 'x-svc-pad': 'p'.repeat(4096) };
      respond = json(200, padded);
      await expectRefused(kernel, request({}), 'unexpected', 500, 'webhook authentication response is too large');
      respond = (_req, res) => {
        // No Content-Length: the cap must hold while the body streams in.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"x-svc-role":"user","x-svc-pad":"');
        for (let i = 0; i < 8; i++) res.write('q'.repeat(512));
        res.end('"}');
      };
      await expectRefused(kernel, request({}), 'unexpected', 500, 'webhook authentication response is too large');
      respond = json(200, { 'x-svc-role': 'user' });
      expect((await kernel.hooks.onRequestAuth.promise(request({})))?.role).to.equal('user');
    });

    it('answers 500 when the webhook cannot be reached', async () => {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((r) => probe.close(() => r()));
      const kernel = await kernelWith({ authHook: `http://127.0.0.1:${port}/auth` });
      await expectRefused(kernel, request({}), 'unexpected', 500, 'webhook authentication request failed');
    });
  });

  describe('boot', () => {
    async function bootError(overrides: Partial<ServerConfig>, pluginOptions?: Record<string, unknown>): Promise<BootError> {
      try {
        await createKernel({
          plugins: [webhook],
          config: testConfig({ authHook: url, ...overrides }),
          ...(pluginOptions ? { pluginOptions } : {}),
        });
      } catch (e) {
        expect(e).to.be.instanceOf(BootError);
        return e as BootError;
      }
      throw new Error('expected a boot error');
    }

    it('does nothing without --auth-hook', async () => {
      const kernel = await createKernel({ plugins: [webhook], config: testConfig({}) });
      expect(kernel.hooks.onRequestAuth.taps).to.have.length(0);
    });

    it('needs an admin secret', async () => {
      const e = await bootError({});
      expect(e.code).to.equal('E_OPTION_INVALID');
      expect(e.message).to.equal(
        'E_OPTION_INVALID: --auth-hook (SVC_GRAPHQL_AUTH_HOOK) requires --admin-secret (SVC_GRAPHQL_ADMIN_SECRET) to be set',
      );
    });

    it('cannot be combined with JWT mode', async () => {
      const e = await bootError({ adminSecret: ADMIN_SECRET, jwtSecret: { type: 'HS256', key: 'x'.repeat(32) } });
      expect(e.message).to.equal(
        'E_OPTION_INVALID: Both webhook and JWT mode cannot be enabled at the same time (--auth-hook and --jwt-secret)',
      );
    });

    it('needs an http(s) URL', async () => {
      const e = await bootError({ adminSecret: ADMIN_SECRET }, { 'auth/webhook': { url: 'ftp://example.com/auth' } });
      expect(e.message).to.equal('E_OPTION_INVALID: --auth-hook (SVC_GRAPHQL_AUTH_HOOK) must be an http or https URL: ftp://example.com/auth');
    });
  });
});
