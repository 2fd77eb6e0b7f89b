import { expect } from 'chai';
import { createHooks, Stage } from '../../../core/hooks.js';
import { authenticate, authenticateNow } from '../../../core/http/auth.js';
import { ADMIN_SESSION, makeSession, type AuthRequest, type Session } from '../../../core/auth/session.js';
import { EngineError } from '../../../core/errors.js';

const request = (headers: Record<string, string> = {}): AuthRequest => ({ headers, ip: '127.0.0.1', responseHeaders: [] });

/** The outcome of the async path and of authenticateNow, awaited where it returned a promise. */
async function both(hooks: ReturnType<typeof createHooks>, headers: Record<string, string> = {}) {
  const settle = async (run: () => Session | Promise<Session>) => {
    try {
      return { session: await run() };
    } catch (e) {
      return { error: e as EngineError };
    }
  };
  const asyncOutcome = await settle(() => authenticate(hooks, request(headers)));
  const nowOutcome = await settle(() => authenticateNow(hooks, request(headers)));
  return { asyncOutcome, nowOutcome };
}

describe('authenticateNow: synchronous authentication', () => {
  it('answers without a promise when every tap is synchronous, with the session the hook gives', async () => {
    const hooks = createHooks();
    hooks.onRequestAuth.tap({ name: 'late', stage: Stage.LAST }, () => makeSession('anonymous', {}));
    hooks.onRequestAuth.tap({ name: 'early', stage: Stage.EARLY }, (r) => (r.headers['x-key'] ? makeSession('admin', {}) : undefined));
    expect(authenticateNow(hooks, request({ 'x-key': '1' }))).to.equal(ADMIN_SESSION);
    expect(authenticateNow(hooks, request())).to.deep.equal(makeSession('anonymous', {}));
    const { asyncOutcome, nowOutcome } = await both(hooks);
    expect(nowOutcome).to.deep.equal(asyncOutcome);
  });

  it('throws what the hook rejects with: a tap\'s error, and 401 when no tap answers', async () => {
    const hooks = createHooks();
    hooks.onRequestAuth.tap('refuses', (r) => {
      if (r.headers['x-bad']) throw new EngineError('access-denied', 'bad', { status: 401 });
      return undefined;
    });
    expect(() => authenticateNow(hooks, request({ 'x-bad': '1' }))).to.throw('bad');
    expect(() => authenticateNow(hooks, request())).to.throw('x-svc-admin-secret/x-svc-access-key required, but not found');
    for (const headers of [{ 'x-bad': '1' }, {}] as Array<Record<string, string>>) {
      const { asyncOutcome, nowOutcome } = await both(hooks, headers);
      expect(nowOutcome.error?.code).to.equal(asyncOutcome.error?.code);
      expect(nowOutcome.error?.message).to.equal(asyncOutcome.error?.message);
      expect(nowOutcome.error?.status).to.equal(asyncOutcome.error?.status);
    }
  });

  it('gives the promise of a synchronous tap that answers with one (a JWT not cached yet)', async () => {
    const hooks = createHooks();
    const user = makeSession('user', { 'x-svc-user-id': '1' });
    hooks.onRequestAuth.tap('pending', () => Promise.resolve(user));
    hooks.onRequestAuth.tap('never', () => {
      throw new Error('taps after a pending answer do not run');
    });
    const answer = authenticateNow(hooks, request());
    expect(answer).to.be.instanceOf(Promise);
    expect(await answer).to.equal(user);
    expect(await authenticate(hooks, request())).to.equal(user);
  });

  it('takes the hook\'s own path when a tap is asynchronous (the webhook)', async () => {
    const hooks = createHooks();
    hooks.onRequestAuth.tap({ name: 'admin', stage: Stage.EARLY }, () => undefined);
    hooks.onRequestAuth.tapPromise('webhook', async () => makeSession('user', {}));
    const answer = authenticateNow(hooks, request());
    expect(answer).to.be.instanceOf(Promise);
    expect(await answer).to.deep.equal(makeSession('user', {}));
  });

  it('shares one frozen admin session between requests without session variables', () => {
    expect(makeSession('admin', {})).to.equal(ADMIN_SESSION);
    expect(makeSession('admin', { 'x-svc-role': 'admin' })).to.equal(ADMIN_SESSION);
    expect(makeSession('admin', { 'x-svc-user-id': '1' })).not.to.equal(ADMIN_SESSION);
    expect(Object.isFrozen(ADMIN_SESSION) && Object.isFrozen(ADMIN_SESSION.variables)).to.equal(true);
    expect(ADMIN_SESSION).to.deep.equal({ role: 'admin', variables: { 'x-svc-role': 'admin' } });
  });
});
