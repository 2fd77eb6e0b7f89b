/**
 * The synchronous limit pass (core/graphql/execute/limit-pass.ts) with the real limit plugins
 * (depth, node, batch, time, and rate counting in the real Redis): for every role and operation
 * the pass gives the verdict the hook's promise path gives (refused with the same code and
 * message, or passed with the same time limit); it decides without a promise when no check
 * waits; taps without work for a role are not called; and what it cannot run itself (an
 * interceptor, an undeclared asynchronous tap) goes down the hook's path and is still enforced.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createContainer, asValue, type AwilixContainer } from 'awilix';
import { getOperationAST, parse, type FragmentDefinitionNode } from 'graphql';
import { createHooks, type KernelHooks, type LimitContext } from '../../../core/hooks.js';
import { HOOK_PATH, LimitGate, tapLimit } from '../../../core/graphql/execute/limit-pass.js';
import { tapRoleLimit } from '../../../plugins/metadata/api-limits/tap-role-limit.js';
import { EngineError } from '../../../core/errors.js';
import { makeSession, type Session } from '../../../core/auth/session.js';
import type { SchemaCache } from '../../../core/schema-cache/cache.js';
import type { LimitedOperation } from '../../../core/graphql/execute/limits.js';
import type { AnyPlugin } from '../../../core/plugin.js';
import batch from '../../../plugins/limits/batch/index.js';
import depth from '../../../plugins/limits/depth/index.js';
import node from '../../../plugins/limits/node/index.js';
import rate from '../../../plugins/limits/rate/index.js';
import time from '../../../plugins/limits/time/index.js';

const REDIS_URL = 'redis://127.0.0.1:6379/0';

const operation = (text: string): LimitedOperation => {
  const document = parse(text);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === 'FragmentDefinition') fragments[d.name.value] = d;
  return { document, definition: getOperationAST(document)!, fragments, kind: 'query' };
};

let versions = 100;
const snapshot = (apiLimits: unknown): SchemaCache => ({ version: versions++, metadata: { api_limits: apiLimits } }) as unknown as SchemaCache;

interface Verdict {
  refused?: { code: string; message: string; status: number };
  timeLimitSeconds?: number;
}

const verdictOfError = (e: unknown): Verdict => {
  if (!(e instanceof EngineError)) throw e;
  return { refused: { code: e.code, message: e.message, status: e.status } };
};

function contextOf(op: LimitedOperation, cache: SchemaCache, session: Session, operationCount: number): LimitContext {
  return { session, endpoint: 'graphql', operationCount, ip: '10.0.0.1', operation: op, cache, timeLimitSeconds: undefined };
}

/** The hook's own promise path: what the executor ran before the pass. */
async function viaHook(hooks: KernelHooks, op: LimitedOperation, cache: SchemaCache, session: Session, count = 1): Promise<Verdict> {
  const ctx = contextOf(op, cache, session, count);
  try {
    await hooks.onRequestLimit.promise(ctx);
  } catch (e) {
    return verdictOfError(e);
  }
  return ctx.timeLimitSeconds === undefined ? {} : { timeLimitSeconds: ctx.timeLimitSeconds };
}

/** The gate; `sync` tells whether it answered without a promise. */
async function viaGate(gate: LimitGate, op: LimitedOperation, cache: SchemaCache, session: Session, count = 1): Promise<Verdict & { sync: boolean }> {
  const startedAt = Date.now();
  let answer: ReturnType<LimitGate['admit']>;
  try {
    answer = gate.admit(op, cache, session, { endpoint: 'graphql', ip: '10.0.0.1', operationCount: count });
  } catch (e) {
    return { ...verdictOfError(e), sync: true };
  }
  const sync = !(answer instanceof Promise);
  try {
    const run = await answer;
    if (run?.deadline === undefined) return { sync };
    return { timeLimitSeconds: Math.round((run.deadline - startedAt) / 1000), sync };
  } catch (e) {
    return { ...verdictOfError(e), sync };
  }
}

async function loadLimitPlugins(container: AwilixContainer, hooks: KernelHooks): Promise<void> {
  container.register('config', asValue({ redisUrl: REDIS_URL }));
  container.register('metadataDatabaseUrl', asValue(undefined));
  for (const p of [batch, depth, node, rate, time] as AnyPlugin[]) await p.register(container, hooks, {});
}

const LIMITS = {
  depth_limit: { global: 2, per_role: { editor: 10 } },
  node_limit: { global: 10, per_role: { editor: 1 } },
  batch_limit: { global: 2 },
  time_limit: { global: 5, per_role: { editor: 1 } },
  // Exact (under 40 a minute): every token is reserved in Redis, so checks wait for the store.
  rate_limit: { global: { max_reqs_per_min: 1_000_000 }, per_role: { free: { max_reqs_per_min: 2, unique_params: ['x-svc-user-id'] } } },
};

const OPERATIONS = {
  shallow: operation('{ a { b } }'),
  deep: operation('{ a { b { c { d } } } }'),
  wide: operation('{ a { b } c { d } }'),
  fragment: operation('{ a { ...F } } fragment F on T { b { c } }'),
};

describe('the synchronous limit pass', function () {
  this.timeout(20000);
  let container: AwilixContainer;
  let hooks: KernelHooks;
  let gate: LimitGate;

  beforeEach(async () => {
    container = createContainer();
    hooks = createHooks();
    await loadLimitPlugins(container, hooks);
    gate = LimitGate.forContainer(container, hooks);
  });
  afterEach(() => hooks.onEvent.promise({ type: 'shutdown.started', reason: 'test' }));

  it('gives the verdicts of the hook path for every role, operation and batch size, without a promise for static limits', async () => {
    const cache = snapshot(LIMITS);
    const { rate_limit: _rate, ...staticLimits } = LIMITS;
    const staticOnly = snapshot(staticLimits);
    for (const role of ['admin', 'user', 'editor']) {
      for (const [name, op] of Object.entries(OPERATIONS)) {
        for (const count of [1, 3]) {
          const session = makeSession(role, { 'x-svc-role': role });
          const hook = await viaHook(hooks, op, cache, session, count);
          const { sync, ...pass } = await viaGate(gate, op, cache, session, count);
          expect(pass, `${role} ${name} ×${count}`).to.deep.equal(hook);
          const staticPass = await viaGate(gate, op, staticOnly, session, count);
          expect(staticPass.sync, `${role} ${name} ×${count} answered synchronously`).to.equal(true);
          expect(staticPass.refused, `${role} ${name} ×${count}`).to.deep.equal(pass.refused);
        }
      }
    }
    // A leased rate limit: once the lease holds tokens, a token is taken without a promise too.
    const user0 = makeSession('user', { 'x-svc-role': 'user' });
    await viaGate(gate, OPERATIONS.shallow, cache, user0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await viaGate(gate, OPERATIONS.shallow, cache, user0)).to.deep.equal({ timeLimitSeconds: 5, sync: true });
    // The expected verdicts themselves (so that a change to both paths alike fails too).
    const user = makeSession('user', { 'x-svc-role': 'user' });
    const editor = makeSession('editor', { 'x-svc-role': 'editor' });
    expect(await viaGate(gate, OPERATIONS.deep, cache, user)).to.deep.equal({
      refused: { code: 'depth-limit-exceeded', message: 'depth limit exceeded: the operation is nested 3 levels deep, more than the limit of 2', status: 400 },
      sync: true,
    });
    expect(await viaGate(gate, OPERATIONS.wide, cache, editor)).to.deep.equal({
      refused: { code: 'node-limit-exceeded', message: 'node limit exceeded: the operation has 2 nodes, more than the limit of 1', status: 400 },
      sync: true,
    });
    expect((await viaGate(gate, OPERATIONS.shallow, cache, user, 3)).refused?.code).to.equal('batch-limit-exceeded');
    // The role's key may have just used its free operations and be reserving its lease: let it land.
    await new Promise((r) => setTimeout(r, 300));
    expect(await viaGate(gate, OPERATIONS.shallow, cache, user)).to.deep.equal({ timeLimitSeconds: 5, sync: true });
    expect(await viaGate(gate, OPERATIONS.shallow, cache, editor)).to.deep.equal({ timeLimitSeconds: 1, sync: true });
    expect(await viaGate(gate, OPERATIONS.deep, cache, makeSession('admin', { 'x-svc-role': 'admin' }))).to.deep.equal({ sync: true });
  });

  it('an exact rate limit refuses the third operation in a minute on both paths, with the same code and message', async () => {
    const cache = snapshot(LIMITS);
    const run = randomBytes(6).toString('hex');
    const session = (user: string) => makeSession('free', { 'x-svc-role': 'free', 'x-svc-user-id': `${run}-${user}` });
    const hook = [];
    const pass = [];
    for (let i = 0; i < 3; i++) hook.push(await viaHook(hooks, OPERATIONS.shallow, cache, session('hook')));
    for (let i = 0; i < 3; i++) pass.push(await viaGate(gate, OPERATIONS.shallow, cache, session('pass')));
    const refused = { code: 'rate-limit-exceeded', message: 'rate limit exceeded: more than 2 requests per minute', status: 429 };
    expect(hook).to.deep.equal([{ timeLimitSeconds: 5 }, { timeLimitSeconds: 5 }, { refused }]);
    // Exact keys wait for the store; the third is refused from the refusal the second cached.
    expect(pass.map(({ sync, ...v }) => v)).to.deep.equal(hook);
    expect(pass.slice(0, 2).map((v) => v.sync)).to.deep.equal([false, false]);
    // Another user of the same role has a count of their own.
    expect((await viaGate(gate, OPERATIONS.shallow, cache, session('other'))).refused).to.equal(undefined);
  });

  it('skips the limits entirely for a role with none (admin) and with no limit set; a new snapshot rebuilds the pass', () => {
    const limited = snapshot(LIMITS);
    expect(gate.passFor(limited, 'admin')).to.equal(null);
    const pass = gate.passFor(limited, 'user');
    expect(pass !== null && 'checks' in pass ? pass.checks.length : -1).to.equal(5);
    expect(gate.passFor(limited, 'user')).to.equal(pass);
    const unlimited = snapshot(undefined);
    expect(gate.isActive(unlimited)).to.equal(false);
    expect(gate.passFor(unlimited, 'user')).to.equal(null);
    const depthOnly = snapshot({ depth_limit: { global: 1 } });
    const one = gate.passFor(depthOnly, 'user');
    expect(one !== null && 'checks' in one ? one.checks.length : -1).to.equal(1);
    expect(gate.passFor(snapshot({ ...LIMITS, disabled: true }), 'user')).to.equal(null);
  });

  it('does not call a declared check for a role it has no work for', () => {
    const seen: string[] = [];
    tapLimit(container, hooks, {
      name: 'third/only-guests',
      activeFor: (_cache, role) => role === 'guest',
      check: (ctx) => {
        seen.push(ctx.session.role);
      },
    });
    const cache = snapshot(undefined);
    for (const role of ['guest', 'user', 'guest']) gate.admit(OPERATIONS.shallow, cache, makeSession(role, {}), { endpoint: 'graphql', ip: '', operationCount: 1 });
    expect(seen).to.deep.equal(['guest', 'guest']);
  });

  it("runs a tap's checkFor check, built once per snapshot and role, and the hook path its generic check", async () => {
    const built: string[] = [];
    const ran: string[] = [];
    tapLimit(container, hooks, {
      name: 'third/bound',
      check: (ctx) => {
        ran.push(`generic ${ctx.session.role}`);
      },
      checkFor: (cache, role) => {
        built.push(`${cache.version} ${role}`);
        return () => {
          ran.push(`bound ${role}`);
        };
      },
    });
    const first = snapshot(undefined);
    const admit = (cache: SchemaCache, role: string) => gate.admit(OPERATIONS.shallow, cache, makeSession(role, {}), { endpoint: 'graphql', ip: '', operationCount: 1 });
    for (const role of ['user', 'guest', 'user', 'user']) admit(first, role);
    const second = snapshot(undefined);
    admit(second, 'user');
    expect(built).to.deep.equal([`${first.version} user`, `${first.version} guest`, `${second.version} user`]);
    expect(ran).to.deep.equal(['bound user', 'bound guest', 'bound user', 'bound user', 'bound user']);
    ran.length = 0;
    await viaHook(hooks, OPERATIONS.shallow, second, makeSession('user', {}));
    expect(ran).to.deep.equal(['generic user']);
  });

  it("runs a role-limit tap's prepared check, prepared once per snapshot and role with the role's value", async () => {
    const prepared: string[] = [];
    const ran: string[] = [];
    tapRoleLimit(container, hooks, {
      name: 'third/role-depth',
      limit: 'depth',
      prepare: (value, _limits, role) => {
        prepared.push(`${role} ${value}`);
        return (ctx) => {
          ran.push(`prepared ${ctx.session.role} ${value}`);
        };
      },
    });
    const cache = snapshot({ depth_limit: { global: 30, per_role: { guest: 3 } } });
    const admit = (role: string) => gate.admit(OPERATIONS.shallow, cache, makeSession(role, {}), { endpoint: 'graphql', ip: '', operationCount: 1 });
    for (const role of ['user', 'guest', 'user']) admit(role);
    expect(prepared).to.deep.equal(['user 30', 'guest 3']);
    expect(ran).to.deep.equal(['prepared user 30', 'prepared guest 3', 'prepared user 30']);
  });

  it('runs plain synchronous taps in the pass, and checks after one that waits only once it is done', async () => {
    const order: string[] = [];
    tapLimit(container, hooks, {
      name: 'third/slow',
      stage: -50,
      check: async () => {
        await new Promise((r) => setTimeout(r, 20));
        order.push('slow');
      },
    });
    hooks.onRequestLimit.tap('third/sync', (ctx) => {
      order.push('sync');
      if (ctx.session.variables['x-svc-blocked'] === 'yes') throw new EngineError('access-denied', 'blocked', { path: '$' });
    });
    const cache = snapshot(undefined);
    const pass = gate.passFor(cache, 'user');
    expect(pass !== null && 'checks' in pass ? pass.checks.length : -1).to.equal(2);
    const blocked = await viaGate(gate, OPERATIONS.shallow, cache, makeSession('user', { 'x-svc-blocked': 'yes' }));
    expect(blocked).to.deep.equal({ refused: { code: 'access-denied', message: 'blocked', status: 400 }, sync: false });
    expect(order).to.deep.equal(['slow', 'sync']);
  });

  it('falls back to the hook for an undeclared asynchronous tap, which is still enforced, and for an interceptor', async () => {
    let asked = 0;
    hooks.onRequestLimit.tapPromise('third/async', async (ctx) => {
      asked++;
      await new Promise((r) => setImmediate(r));
      if (ctx.session.variables['x-svc-blocked'] === 'yes') throw new EngineError('access-denied', 'blocked later', { path: '$' });
    });
    const cache = snapshot(LIMITS);
    expect(gate.passFor(cache, 'user')).to.equal(HOOK_PATH);
    // Even for admin: the undeclared tap may have work for any role.
    expect(gate.passFor(cache, 'admin')).to.equal(HOOK_PATH);
    const blocked = await viaGate(gate, OPERATIONS.shallow, cache, makeSession('user', { 'x-svc-blocked': 'yes' }));
    expect(blocked).to.deep.equal({ refused: { code: 'access-denied', message: 'blocked later', status: 400 }, sync: false });
    // The built-in limits still refuse first on this path, with their own codes.
    const deep = await viaGate(gate, OPERATIONS.deep, cache, makeSession('user', { 'x-svc-blocked': 'yes' }));
    expect(deep.refused?.code).to.equal('depth-limit-exceeded');
    expect(await viaGate(gate, OPERATIONS.shallow, cache, makeSession('user', {}))).to.deep.equal({ timeLimitSeconds: 5, sync: false });
    expect(asked).to.equal(2);

    const hooks2 = createHooks();
    const container2 = createContainer();
    await loadLimitPlugins(container2, hooks2);
    const gate2 = LimitGate.forContainer(container2, hooks2);
    const called: string[] = [];
    hooks2.onRequestLimit.intercept({ call: (ctx) => called.push(ctx.session.role) });
    expect(gate2.passFor(cache, 'user')).to.equal(HOOK_PATH);
    expect((await viaGate(gate2, OPERATIONS.deep, cache, makeSession('user', {}))).refused?.code).to.equal('depth-limit-exceeded');
    expect(called).to.deep.equal(['user']);
    await hooks2.onEvent.promise({ type: 'shutdown.started', reason: 'test' });
  });
});
