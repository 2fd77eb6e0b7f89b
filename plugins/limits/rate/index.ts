/**
 * API limit `rate_limit` (Document 2 §2.4, §4.4): at most `max_reqs_per_min` operations per
 * minute (a sliding window) per role, or per role and `unique_params` (the client IP, or the
 * values of the listed session variables); refused with 429 `rate-limit-exceeded`. Counted in
 * Redis when --rate-limit-redis-url or --redis-url is given, else in the metadata database, so
 * every engine instance shares the count. Taps `onRequestLimit` LATE (operations another limit
 * refuses are not counted); active only while a rate limit is set. Admin is exempt. Safe to
 * disable (rate limits in the metadata are then not enforced). Tokens are drawn from local leases
 * (leases.ts), so most operations make no round trip to the store; limits under 40 per minute
 * stay exact, higher ones may be exceeded by at most 5% of the limit per instance (leases held,
 * a light key's few free operations, a cold key's first operation admitted on debt).
 */
import {
  definePlugin,
  EngineError,
  type LimitContext,
  type ServerConfig,
  Stage,
} from '../../../core/sdk/index.js';
import type { RateLimitConfig, RoleLimits } from '../../metadata/api-limits/limits.js';
import { tapRoleLimit } from '../../metadata/api-limits/tap-role-limit.js';
import { counterKeyFor, type CounterKey } from './counter-key.js';
import { RateLeases, type LeaseScope } from './leases.js';
import { RedisRateStore } from './redis-store.js';
import { PgRateStore } from './pg-store.js';

const PLUGIN_ID = 'limits/rate';
const WINDOW_MS = 60_000;

/** A role's rate limit in a snapshot, with its counter key built once and its lease scope found once. */
interface RoleRate {
  max: number;
  key: CounterKey;
  scope: LeaseScope | undefined;
  refused: string;
}

/** Keyed by the role's limits object, which is resolved once per snapshot and role. */
const rates = new WeakMap<RoleLimits, RoleRate>();

function roleRate(limits: RoleLimits, rate: RateLimitConfig, role: string): RoleRate {
  let r = rates.get(limits);
  if (r === undefined) {
    r = { max: rate.maxReqsPerMin, key: counterKeyFor(role, rate.uniqueParams), scope: undefined, refused: `rate limit exceeded: more than ${rate.maxReqsPerMin} requests per minute` };
    rates.set(limits, r);
  }
  return r;
}

function unreachable(e: unknown): EngineError {
  // Refused rather than let through unmetered: a limit that silently stops holding is worse.
  return new EngineError('unexpected', 'the rate-limit counter store cannot be reached', { status: 500, path: '$', internal: String(e) });
}

function refused(rate: RoleRate): EngineError {
  return new EngineError('rate-limit-exceeded', rate.refused, { path: '$' });
}

export default definePlugin({
  name: 'rate',
  kind: 'limits',
  // Without Redis the counters live in the metadata database, which db/postgres owns (pg-counter.ts).
  dependsOn: ['db/postgres'],
  provides: ['api-limits'],
  register(container, hooks) {
    const config = container.resolve<ServerConfig>('config');
    const redisUrl = config.rateLimitRedisUrl ?? config.redisUrl;
    let leases: RateLeases | undefined;
    // Opened on first use: a deployment without rate limits never connects anywhere.
    const leasesFor = (): RateLeases =>
      (leases ??= new RateLeases(redisUrl ? new RedisRateStore(redisUrl) : new PgRateStore(metadataDatabase()), { windowMs: WINDOW_MS }));
    const metadataDatabase = (): string => {
      const url = container.resolve<string | undefined>('metadataDatabaseUrl');
      if (url === undefined) {
        throw new EngineError('unexpected', 'rate limits need Redis (--redis-url) or a metadata store in a PostgreSQL database to count in');
      }
      return url;
    };
    hooks.onEvent.tapPromise(PLUGIN_ID, async (event) => {
      if (event.type === 'shutdown.started') await leases?.close().catch(() => {});
    });

    // A token already leased is taken synchronously: only a refill makes the operation wait.
    const take = (ctx: LimitContext, rate: RoleRate): void | Promise<void> => {
      let taken: boolean | Promise<boolean>;
      try {
        const leases = leasesFor();
        taken = leases.takeIn((rate.scope ??= leases.scope(rate.key)), rate.key.part(ctx.session, ctx.ip), rate.max);
      } catch (e) {
        throw unreachable(e);
      }
      if (taken === true) return;
      if (taken === false) throw refused(rate);
      return taken.then(
        (allowed) => {
          if (!allowed) throw refused(rate);
        },
        (e: unknown) => {
          throw unreachable(e);
        },
      );
    };
    tapRoleLimit(container, hooks, {
      name: PLUGIN_ID,
      stage: Stage.LATE,
      limit: 'rate',
      // The gate's pass for one role: its rate found once, not per request.
      prepare: (config, limits, role) => {
        const rate = roleRate(limits, config, role);
        return (ctx) => take(ctx, rate);
      },
    });
  },
});
