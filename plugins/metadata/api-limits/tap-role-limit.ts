/**
 * The shape every built-in enforcer shares: it has work only where its limit is set (and limits
 * are not disabled) and applies to the request's role, and its check reads the role's value,
 * resolved once per snapshot and role. Third-party enforcers may use it too.
 */
import { tapLimit, type AwilixContainer, type LimitCheck, type LimitContext, type SchemaCache } from '../../../core/sdk/index.js';
import { limitIsSet, roleLimits, type RoleLimits } from './limits.js';

interface RoleLimitTapBase<K extends keyof RoleLimits> {
  /** The plugin id. */
  name: string;
  /** Order inside `onRequestLimit` (Stage); default 0. */
  stage?: number;
  /** Which of the role's limits the enforcer applies. */
  limit: K;
}

/**
 * An enforcer gives either `check`, which passes by returning, refuses by throwing and returns a
 * promise only when it must wait, or `prepare`, which returns such a check for one role's requests
 * in one snapshot, with what depends only on the role's value worked out once (when the gate
 * builds the role's pass) instead of per request.
 */
export type RoleLimitTap<K extends keyof RoleLimits> = RoleLimitTapBase<K> &
  (
    | { check(ctx: LimitContext, value: NonNullable<RoleLimits[K]>, limits: RoleLimits): void | Promise<void>; prepare?: never }
    | { prepare(value: NonNullable<RoleLimits[K]>, limits: RoleLimits, role: string): LimitCheck; check?: never }
  );

export function tapRoleLimit<K extends keyof RoleLimits>(container: AwilixContainer, hooks: Parameters<typeof tapLimit>[1], tap: RoleLimitTap<K>): void {
  /** The check of `role`'s requests in a snapshot; undefined when the role has no such limit. */
  const checkOf = (cache: SchemaCache, role: string): LimitCheck | undefined => {
    const limits = roleLimits(cache, role);
    const value = limits[tap.limit];
    if (value === undefined) return undefined;
    const set = value as NonNullable<RoleLimits[K]>;
    if (tap.prepare) return tap.prepare(set, limits, role);
    const check = tap.check;
    return (ctx) => check(ctx, set, limits);
  };
  tapLimit(container, hooks, {
    name: tap.name,
    ...(tap.stage === undefined ? {} : { stage: tap.stage }),
    activeIn: limitIsSet((l) => l[tap.limit]),
    activeFor: (cache, role) => roleLimits(cache, role)[tap.limit] !== undefined,
    // The hook's promise path calls every tap for every role: the check must hold on its own.
    check: (ctx) => checkOf(ctx.cache, ctx.session.role)?.(ctx),
    // The gate's pass is per snapshot and role: the role's limits are found once, not per request
    // and enforcer.
    checkFor: (cache, role) => checkOf(cache, role) ?? (() => undefined),
  });
}
