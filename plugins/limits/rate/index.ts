/**
 * API limit `rate_limit` (Document 2 §2.4, §4.4): at most `max_reqs_per_min` operations per
 * minute (a sliding window) per role, or per role and `unique_params` (the client IP, or the
 * values of the listed session variables); refused with 429 `rate-limit-exceeded`. Counted in
 * Redis when --rate-limit-redis-url or --redis-url is given, else in the metadata database, so
 * every engine instance shares the count. Taps `onRequestLimit` LATE (operations another limit
 * refuses are not counted); active only while a rate limit is set. Admin is exempt. Safe to
 * disable (rate limits in the metadata are then not enforced). Tokens are drawn from local leases
 * (leases.ts), so most operations make no round trip to the store; limits under 40 per minute
 * stay exact, higher ones may be exceeded by at most the leases the instances hold (5% of the
 * limit per instance). A leased key's first operation in a window (a cold per-user key) is
 * admitted at once, its reservation following in the background within the same bound.
 */
import {
  definePlugin,
  EngineError,
  isAdmin,
  type LimitContext,
  type ServerConfig,
  Stage,
  whenActive,
} from '../../../core/sdk/index.js';
import { limitFor, limitIsSet, type RateLimitConfig } from '../../metadata/api-limits/limits.js';
import { RateLeases } from './leases.js';
import { RedisRateStore } from './redis-store.js';
import { PgRateStore } from './pg-store.js';

const PLUGIN_ID = 'limits/rate';
const WINDOW_MS = 60_000;

function counterKey(ctx: LimitContext, config: RateLimitConfig): string {
  const role = ctx.session.role;
  const unique = config.uniqueParams;
  if (unique === null) return `svc:lease:${JSON.stringify([role])}`;
  if (unique === 'IP') return `svc:lease:${JSON.stringify([role, 'ip', ctx.ip])}`;
  return `svc:lease:${JSON.stringify([role, ...unique.map((v) => ctx.session.variables[v.toLowerCase()] ?? null)])}`;
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

    whenActive(container, PLUGIN_ID, limitIsSet((l) => l.rate));
    hooks.onRequestLimit.tapPromise({ name: PLUGIN_ID, stage: Stage.LATE }, async (ctx) => {
      if (isAdmin(ctx.session)) return;
      const rate = limitFor(ctx.cache, (l) => l.rate, ctx.session.role);
      if (rate === undefined) return;
      let allowed: boolean;
      try {
        allowed = await leasesFor().take(counterKey(ctx, rate), rate.maxReqsPerMin);
      } catch (e) {
        // Refused rather than let through unmetered: a limit that silently stops holding is worse.
        throw new EngineError('unexpected', 'the rate-limit counter store cannot be reached', { status: 500, path: '$', internal: String(e) });
      }
      if (!allowed) {
        throw new EngineError('rate-limit-exceeded', `rate limit exceeded: more than ${rate.maxReqsPerMin} requests per minute`, { path: '$' });
      }
    });
  },
});
