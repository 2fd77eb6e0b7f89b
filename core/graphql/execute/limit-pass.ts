/**
 * The enforcers of `onRequestLimit` as one synchronous pass. Running the tapable hook costs every
 * limited request a generated promise chain and a microtask turn per tap, although the built-in
 * checks (depth, node, batch, time, a rate limit whose token is already leased) decide without
 * waiting. So an enforcer may declare its check with `tapLimit`: the check returns when the
 * operation passes, throws an EngineError to refuse it, or returns a promise only when it must
 * wait (a rate-limit refill). For each snapshot and role the gate builds the list of checks that
 * have work for that role (the rest are skipped entirely) and runs them in the hook's order; the
 * request awaits only when a check hands back a promise.
 *
 * What the gate cannot run itself goes through the hook's own promise path, so behaviour never
 * depends on the pass: an interceptor on the hook, a tap asking for tapable's context, or an active
 * async tap that declared no check (a third-party enforcer written with `tapPromise`/`tapAsync`).
 * Plain synchronous taps (`tap`) run in the pass as they are.
 */
import { asValue, type AwilixContainer } from 'awilix';
import type { ExecutionMeta } from './executor.js';
import type { RunOptions } from '../../db/contract.js';
import type { Session } from '../../auth/session.js';
import type { SchemaCache } from '../../schema-cache/cache.js';
import { activationsOf, whenActive, type ActivePredicate, type LimitContext, type LimitedOperation, type LimitHooks } from './limits.js';

/** Passes (returns), refuses (throws an EngineError), or hands back a promise when it must wait. */
export type LimitCheck = (ctx: LimitContext) => void | Promise<void>;

export interface LimitTap {
  /** The tap's name: the plugin id. */
  name: string;
  /** Order inside the hook (Stage); default 0. */
  stage?: number;
  /**
   * Whether the tap may have work in a snapshot (any role); asked once per snapshot. Absent: yes.
   * `LimitGate.isActive` reads it to skip the whole hook when no limit is set anywhere.
   */
  activeIn?: ActivePredicate;
  /**
   * Whether the tap has work for `role` in a snapshot; asked once per snapshot and role, and a tap
   * without work is not called at all for that role's requests. Absent: always. `check` must still
   * be right on its own: the hook's promise path calls it for every role.
   */
  activeFor?: (cache: SchemaCache, role: string) => boolean;
  check: LimitCheck;
  /**
   * The check for `role`'s requests in a snapshot, with what depends only on the two looked up
   * once, when the gate builds that role's pass. Absent: `check`. Only the pass uses it (the hook's
   * promise path calls `check`), so both must decide alike.
   */
  checkFor?: (cache: SchemaCache, role: string) => LimitCheck;
}

const CHECKS_KEY = 'limitChecks';

/** The declared checks, by the function tapped on the hook (one registry per container). */
function checksOf(container: AwilixContainer): Map<unknown, LimitTap> {
  if (!container.hasRegistration(CHECKS_KEY)) container.register(CHECKS_KEY, asValue(new Map<unknown, LimitTap>()));
  return container.resolve<Map<unknown, LimitTap>>(CHECKS_KEY);
}

/**
 * Taps `onRequestLimit` with a check the gate can run synchronously; the same check, awaited,
 * is the tap's function on the hook (the promise path).
 */
export function tapLimit(container: AwilixContainer, hooks: LimitHooks, tap: LimitTap): void {
  const fn = async (ctx: LimitContext): Promise<void> => {
    await tap.check(ctx);
  };
  checksOf(container).set(fn, tap);
  if (tap.activeIn) whenActive(container, tap.name, tap.activeIn);
  hooks.onRequestLimit.tapPromise(tap.stage === undefined ? tap.name : { name: tap.name, stage: tap.stage }, fn);
}

/** The checks one role's requests run in one snapshot, or the hook's promise path. */
export type LimitPass = { readonly checks: readonly LimitCheck[] } | typeof HOOK_PATH;

/** The pass that runs the hook itself. */
export const HOOK_PATH: { readonly hook: true } = Object.freeze({ hook: true });

/** How many roles' passes one snapshot keeps (role names come from requests; a flood of made-up ones must not grow memory). */
const MAX_ROLES = 512;

type LimitMeta = Pick<ExecutionMeta, 'endpoint' | 'ip' | 'operationCount'>;

export class LimitGate {
  private version = -1;
  private tapCount = -1;
  private active = false;
  private passes = new Map<string, LimitPass | null>();

  constructor(
    private readonly hooks: LimitHooks,
    private readonly predicates: ReadonlyMap<string, ActivePredicate>,
    private readonly declared: ReadonlyMap<unknown, LimitTap> = new Map(),
  ) {}

  static forContainer(container: AwilixContainer, hooks: LimitHooks): LimitGate {
    return new LimitGate(hooks, activationsOf(container), checksOf(container));
  }

  /** Whether any enforcer may have work in this snapshot (for any role). */
  isActive(cache: SchemaCache): boolean {
    this.follow(cache);
    return this.active;
  }

  /**
   * What `role`'s requests run in this snapshot: null when no tap has work for the role (the
   * request skips the limits altogether), else the checks or the hook path. Built once per
   * snapshot and role.
   */
  passFor(cache: SchemaCache, role: string): LimitPass | null {
    this.follow(cache);
    if (!this.active) return null;
    let pass = this.passes.get(role);
    if (pass === undefined) {
      pass = this.build(cache, role);
      if (this.passes.size >= MAX_ROLES) this.passes.clear();
      this.passes.set(role, pass);
    }
    return pass;
  }

  /**
   * Runs the limits on one operation: throws (or rejects) when it is refused, else gives the run
   * options its statements must get (the time limit's deadline). Synchronous unless a check waits
   * or the hook path runs.
   */
  admit(
    operation: LimitedOperation,
    cache: SchemaCache,
    session: Session,
    meta: LimitMeta,
  ): RunOptions | undefined | Promise<RunOptions | undefined> {
    const pass = this.passFor(cache, session.role);
    if (pass === null) return undefined;
    const ctx: LimitContext = {
      session,
      endpoint: meta.endpoint,
      operationCount: meta.operationCount,
      ip: meta.ip,
      operation,
      cache,
      timeLimitSeconds: undefined,
    };
    const waiting = 'checks' in pass ? runChecks(pass.checks, 0, ctx) : this.hooks.onRequestLimit.promise(ctx);
    return waiting === undefined ? runOptions(ctx) : waiting.then(() => runOptions(ctx));
  }

  /** Starts over when the snapshot or the set of taps changed. */
  private follow(cache: SchemaCache): void {
    const taps = this.hooks.onRequestLimit.taps;
    if (cache.version === this.version && taps.length === this.tapCount) return;
    this.version = cache.version;
    this.tapCount = taps.length;
    this.passes = new Map();
    this.active = taps.some((t) => {
      const predicate = this.predicates.get(t.name);
      return predicate === undefined || predicate(cache);
    });
  }

  private build(cache: SchemaCache, role: string): LimitPass | null {
    const hook = this.hooks.onRequestLimit;
    if (hook.interceptors.length > 0) return HOOK_PATH;
    const checks: LimitCheck[] = [];
    for (const t of hook.taps) {
      const predicate = this.predicates.get(t.name);
      if (predicate !== undefined && !predicate(cache)) continue;
      if ((t as { context?: boolean }).context) return HOOK_PATH;
      const declared = this.declared.get(t.fn);
      if (declared !== undefined) {
        if (declared.activeFor === undefined || declared.activeFor(cache, role)) checks.push(declared.checkFor?.(cache, role) ?? declared.check);
      } else if (t.type === 'sync') {
        // A plain `tap`: what it returns is ignored, as the hook does.
        const fn = t.fn as (ctx: LimitContext) => unknown;
        checks.push((ctx) => {
          fn(ctx);
        });
      } else {
        return HOOK_PATH;
      }
    }
    return checks.length === 0 ? null : { checks };
  }
}

/** Runs checks from `from` on; continues after a check's promise when it hands one back. */
function runChecks(checks: readonly LimitCheck[], from: number, ctx: LimitContext): Promise<void> | undefined {
  for (let i = from; i < checks.length; i++) {
    const waiting = checks[i]!(ctx);
    if (waiting !== undefined) return waiting.then(() => runChecks(checks, i + 1, ctx));
  }
  return undefined;
}

function runOptions(ctx: LimitContext): RunOptions | undefined {
  return ctx.timeLimitSeconds === undefined ? undefined : { deadline: Date.now() + ctx.timeLimitSeconds * 1000 };
}
