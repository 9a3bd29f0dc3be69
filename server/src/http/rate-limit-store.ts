/**
 * Where the rate-limit counters live with REDIS_URL (docs/security.md §9): in Redis, shared by every
 * instance. While Redis does not answer (a restart, say) each instance counts in its own memory
 * instead, the limits then holding per instance, so that sign-ins and messages go on; it counts in
 * Redis again from its next answer. Without REDIS_URL @fastify/rate-limit's own memory store is used.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type Counted = { current: number; ttl: number };

/** One atomic step: count this request, start the window on the first, say what is left of it. */
const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) return {n, tonumber(ARGV[1])} end
return {n, redis.call('PTTL', KEYS[1])}`;

/** Beyond this many keys the memory fallback forgets the windows that have ended. */
const MEMORY_KEYS_BEFORE_SWEEP = 10_000;

class MemoryCounts {
  private readonly windows = new Map<string, { n: number; endsAt: number }>();

  increment(key: string, windowMs: number): Counted {
    const now = Date.now();
    if (this.windows.size > MEMORY_KEYS_BEFORE_SWEEP) {
      for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
    }
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) this.windows.set(key, (w = { n: 0, endsAt: now + windowMs }));
    w.n += 1;
    return { current: w.n, ttl: w.endsAt - now };
  }
}

type Shared = { redis: Redis; memory: MemoryCounts; onFallback: (err: unknown) => void; failing: boolean };

/** Counters of one route (`namespace`), keyed by address or member. */
class RouteCounts implements FastifyRateLimitStore {
  constructor(
    private readonly shared: Shared,
    private readonly namespace: string,
  ) {}

  incr(key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow: number): void {
    const shared = this.shared;
    const fullKey = `${this.namespace}${key}`;
    (shared.redis.eval(INCREMENT, 1, fullKey, timeWindow) as Promise<[number, number]>).then(
      ([current, ttl]) => {
        shared.failing = false;
        callback(null, { current, ttl });
      },
      (err: unknown) => {
        if (!shared.failing) shared.onFallback(err);
        shared.failing = true;
        callback(null, shared.memory.increment(fullKey, timeWindow));
      },
    );
  }

  /** @fastify/rate-limit passes the route as `routeInfo` (its typings say otherwise). */
  child(params: unknown): FastifyRateLimitStore {
    const { method, url } = (params as { routeInfo: { method: string; url: string } }).routeInfo;
    return new RouteCounts(this.shared, `${this.namespace}${method}${url}-`);
  }
}

/**
 * The store for @fastify/rate-limit's `store` option; keys are `<prefix><METHOD><url>-<key>`, as
 * its Redis store names them. `onFallback` hears the first count Redis fails after one it answered
 * (from then on counted in memory, until Redis answers again).
 */
export function redisRateLimitStore(redis: Redis, prefix: string, onFallback: (err: unknown) => void): FastifyRateLimitStoreCtor {
  const shared: Shared = { redis, memory: new MemoryCounts(), onFallback, failing: false };
  return class extends RouteCounts {
    constructor() {
      super(shared, prefix);
    }
  };
}
