/**
 * Rate-limit reservations in Redis (ioredis): one sorted set per key holding the window's
 * reservations, scored by the Redis server's clock, each member ending in its token count;
 * trimming, summing and adding run as one Lua script, so concurrent engines never both take the
 * last tokens. A window holds few members (one per lease, not per request), so summing is cheap.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Grant, RateStore } from './store.js';

// KEYS[1] key; ARGV: window ms, max, tokens wanted, a unique member prefix. Answers {granted, retry ms}.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local used = 0
for i = 1, #live, 2 do used = used + tonumber(string.match(live[i], ':(%d+)$')) end
local g = math.min(want, max - used)
if g < 0 then g = 0 end
if g > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. g)
  redis.call('PEXPIRE', KEYS[1], window)
end
local retry = window
if #live > 0 then retry = tonumber(live[2]) + window - now end
return {g, retry}
`;

type WithScript = Redis & { svcRateReserve(key: string, windowMs: number, max: number, want: number, member: string): Promise<[number, number]> };

export class RedisRateStore implements RateStore {
  private readonly redis: WithScript;
  private readonly instance = randomUUID();
  private seq = 0;

  constructor(url: string) {
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000 }) as WithScript;
    // Connection errors reach the caller through the command; an unhandled 'error' event would crash.
    this.redis.on('error', () => {});
    this.redis.defineCommand('svcRateReserve', { numberOfKeys: 1, lua: RESERVE });
  }

  async reserve(key: string, want: number, max: number, windowMs: number): Promise<Grant> {
    // Members must be unique per reservation: two in one millisecond are two.
    const [granted, retryMs] = await this.redis.svcRateReserve(key, windowMs, max, want, `${this.instance}:${this.seq++}`);
    return { granted, retryMs };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
