/**
 * Rate-limit reservations in Redis (ioredis): one sorted set per key holding the window's
 * reservations, scored by the Redis server's clock, each member ending in its token count;
 * summing, trimming (only when a member has left the window) and adding run as one Lua script
 * (for a whole batch of keys), so concurrent engines never both take the last tokens. A window holds few members (one per lease, not per
 * request), so summing is cheap. Members are unique per reservation: two in one millisecond are two.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { STORE_TIMEOUT_MS, type Grant, type RateStore, type Reservation } from './store.js';

// KEYS: the keys; ARGV[1] window ms, ARGV[2] a member prefix unique to this call, then per key
// its max and tokens wanted. Answers {granted, retry ms} per key, flattened.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local out = {}
for k = 1, #KEYS do
  local key = KEYS[k]
  local max = tonumber(ARGV[1 + 2 * k])
  local want = tonumber(ARGV[2 + 2 * k])
  -- One read serves both the sum and the trim: a key seen for the first time in a while (most
  -- keys of a limit per user) costs no separate trim call, and stale members are removed only
  -- when there are some.
  local live = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local used = 0
  local oldest = nil
  local stale = false
  for i = 1, #live, 2 do
    local score = tonumber(live[i + 1])
    if score > now - window then
      used = used + tonumber(string.match(live[i], ':(%d+)$'))
      if oldest == nil then oldest = score end
    else
      stale = true
    end
  end
  if stale then redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window) end
  local g = math.min(want, max - used)
  if g < 0 then g = 0 end
  if g > 0 then
    redis.call('ZADD', key, now, ARGV[2] .. ':' .. k .. ':' .. g)
    redis.call('PEXPIRE', key, window)
  end
  local retry = window
  if oldest ~= nil then retry = oldest + window - now end
  out[2 * k - 1] = g
  out[2 * k] = retry
end
return out
`;

type WithScript = Redis & { svcRateReserve(...args: Array<string | number>): Promise<number[]> };

export class RedisRateStore implements RateStore {
  private readonly redis: WithScript;
  private readonly instance = randomUUID();
  private seq = 0;

  constructor(url: string) {
    // A stalled server fails the reservation after the stall guard (store.ts) instead of holding its requests.
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, commandTimeout: STORE_TIMEOUT_MS }) as WithScript;
    // Connection errors reach the caller through the command; an unhandled 'error' event would crash.
    this.redis.on('error', () => {});
    // The number of keys is the first argument: one call reserves for a whole batch.
    this.redis.defineCommand('svcRateReserve', { lua: RESERVE });
  }

  async reserve(requests: readonly Reservation[], windowMs: number): Promise<Grant[]> {
    const args: Array<string | number> = [requests.length, ...requests.map((r) => r.key), windowMs, `${this.instance}:${this.seq++}`];
    for (const r of requests) args.push(r.max, r.want);
    const flat = await this.redis.svcRateReserve(...args);
    return requests.map((_, i) => ({ granted: flat[2 * i]!, retryMs: flat[2 * i + 1]! }));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
