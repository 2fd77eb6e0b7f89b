import { expect } from 'chai';
import { createKernel, type Kernel } from '../../../core/kernel/kernel.js';
import { BootError, EngineError } from '../../../core/errors.js';
import type { ServerConfig } from '../../../core/config/types.js';
import adminSecret from '../../../plugins/auth/admin-secret/index.js';
import webhook from '../../../plugins/auth/webhook/index.js';
import unauthorizedRole from '../../../plugins/auth/unauthorized-role/index.js';
import { testConfig } from '../../helpers/config.js';

const ADMIN_SECRET = 'admin-secret-for-tests';

const kernelWith = (overrides: Partial<ServerConfig>): Promise<Kernel> =>
  createKernel({ plugins: [adminSecret, unauthorizedRole], config: testConfig(overrides) });

const authenticate = (kernel: Kernel, headers: Record<string, string>) =>
  kernel.hooks.onRequestAuth.promise({ headers, ip: '127.0.0.1', body: undefined, responseHeaders: [] });

describe('auth/unauthorized-role', () => {
  describe('admin-secret-only mode', () => {
    let kernel: Kernel;
    before(async () => {
      kernel = await kernelWith({ adminSecret: ADMIN_SECRET, unauthorizedRole: 'anonymous' });
    });

    it('gives the unauthorized role, with X-Svc-* headers as session variables, when no admin secret is sent', async () => {
      expect(await authenticate(kernel, { 'x-svc-user-id': '5', 'x-svc-role': 'admin', accept: '*/*' })).to.deep.equal({
        role: 'anonymous',
        variables: { 'x-svc-user-id': '5', 'x-svc-role': 'anonymous' },
      });
    });

    it('leaves a request with the admin secret to admin-secret', async () => {
      expect((await authenticate(kernel, { 'x-svc-admin-secret': ADMIN_SECRET }))?.role).to.equal('admin');
    });

    it('does not rescue a wrong admin secret', async () => {
      let error: unknown;
      let session: unknown;
      try {
        session = await authenticate(kernel, { 'x-svc-admin-secret': 'wrong' });
      } catch (e) {
        error = e;
      }
      expect(session).to.equal(undefined);
      expect(error).to.be.instanceOf(EngineError);
      expect({ code: (error as EngineError).code, status: (error as EngineError).status }).to.deep.equal({
        code: 'access-denied',
        status: 401,
      });
    });
  });

  it('does nothing without --unauthorized-role (the core then answers 401)', async () => {
    const kernel = await kernelWith({ adminSecret: ADMIN_SECRET });
    expect(await authenticate(kernel, {})).to.equal(undefined);
    expect(kernel.hooks.onRequestAuth.taps.map((t) => t.name)).to.deep.equal(['auth/admin-secret']);
  });

  it('taps last', async () => {
    const kernel = await kernelWith({ adminSecret: ADMIN_SECRET, unauthorizedRole: 'anonymous' });
    const tap = kernel.hooks.onRequestAuth.taps.find((t) => t.name === 'auth/unauthorized-role');
    expect(tap?.stage).to.equal(100);
  });

  describe('boot', () => {
    const message =
      'E_OPTION_INVALID: --unauthorized-role (SVC_GRAPHQL_UNAUTHORIZED_ROLE) requires --admin-secret ' +
      '(SVC_GRAPHQL_ADMIN_SECRET) to be set and is not allowed when --auth-hook (SVC_GRAPHQL_AUTH_HOOK) is set';

    async function bootError(plugins: Parameters<typeof createKernel>[0]['plugins'], overrides: Partial<ServerConfig>) {
      try {
        await createKernel({ plugins, config: testConfig(overrides) });
      } catch (e) {
        expect(e).to.be.instanceOf(BootError);
        return e as BootError;
      }
      throw new Error('expected a boot error');
    }

    it('needs an admin secret', async () => {
      const e = await bootError([adminSecret, unauthorizedRole], { unauthorizedRole: 'anonymous' });
      expect(e.code).to.equal('E_OPTION_INVALID');
      expect(e.message).to.equal(message);
    });

    it('is not allowed in webhook mode, where the webhook decides every request', async () => {
      const e = await bootError([adminSecret, webhook, unauthorizedRole], {
        adminSecret: ADMIN_SECRET,
        authHook: 'http://127.0.0.1:1/auth',
        unauthorizedRole: 'anonymous',
      });
      expect(e.code).to.equal('E_OPTION_INVALID');
      expect(e.message).to.equal(message);
    });
  });
});
