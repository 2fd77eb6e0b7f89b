/**
 * Rate-limit counters in Redis (ioredis): one sorted set per key holding the window's hits, scored
 * by the Redis server's clock; trimming, counting and adding run as one Lua script, so concurrent
 * engines never both take the last slot.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { RateCounter } from './counter.js';

const SLIDING_WINDOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1
`;

type WithScript = Redis & { svcSlidingWindow(key: string, windowMs: number, max: number, member: string): Promise<number> };

export class RedisRateCounter implements RateCounter {
  private readonly redis: WithScript;
  private readonly instance = randomUUID();
  private seq = 0;

  constructor(url: string) {
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000 }) as WithScript;
    // Connection errors reach the caller through the command; an unhandled 'error' event would crash.
    this.redis.on('error', () => {});
    this.redis.defineCommand('svcSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
  }

  async hit(key: string, max: number, windowMs: number): Promise<boolean> {
    // Members must be unique per hit: two hits in one millisecond are two hits.
    const member = `${this.instance}:${this.seq++}`;
    return (await this.redis.svcSlidingWindow(key, windowMs, max, member)) === 1;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
