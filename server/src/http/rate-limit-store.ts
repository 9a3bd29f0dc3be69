/**
 * Where the rate-limit counters live with REDIS_URL (docs/security.md §9): in Redis, shared by every
 * instance. While Redis does not answer (a restart, say) each instance counts in its own memory
 * instead, the limits then holding per instance, so that sign-ins and messages go on; it counts in
 * Redis again from its next answer. Without REDIS_URL @fastify/rate-limit's own memory store is used
 * for the per-route limits, and a {@link WindowCounter} in memory for the sign-in failures.
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

/**
 * Counts events per key in fixed windows: in Redis, shared by every instance, or in this instance's
 * memory without Redis and while Redis does not answer. `onFallback` hears the first count Redis
 * fails after one it answered.
 */
export class WindowCounter {
  private readonly memory = new MemoryCounts();
  private failing = false;

  constructor(
    private readonly redis: Redis | undefined,
    private readonly onFallback: (err: unknown) => void = () => undefined,
  ) {}

  async increment(key: string, windowMs: number): Promise<Counted> {
    if (!this.redis) return this.memory.increment(key, windowMs);
    try {
      const [current, ttl] = (await this.redis.eval(INCREMENT, 1, key, windowMs)) as [number, number];
      this.failing = false;
      return { current, ttl };
    } catch (err) {
      if (!this.failing) this.onFallback(err);
      this.failing = true;
      return this.memory.increment(key, windowMs);
    }
  }
}

/** Counters of one route (`namespace`), keyed by address or member. */
class RouteCounts implements FastifyRateLimitStore {
  constructor(
    private readonly counter: WindowCounter,
    private readonly namespace: string,
  ) {}

  incr(key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow: number): void {
    this.counter.increment(`${this.namespace}${key}`, timeWindow).then(
      (counted) => callback(null, counted),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** @fastify/rate-limit passes the route as `routeInfo` (its typings say otherwise). */
  child(params: unknown): FastifyRateLimitStore {
    const { method, url } = (params as { routeInfo: { method: string; url: string } }).routeInfo;
    return new RouteCounts(this.counter, `${this.namespace}${method}${url}-`);
  }
}

/**
 * The store for @fastify/rate-limit's `store` option over a Redis-backed counter; keys are
 * `<prefix><METHOD><url>-<key>`, as its Redis store names them.
 */
export function redisRateLimitStore(counter: WindowCounter, prefix: string): FastifyRateLimitStoreCtor {
  return class extends RouteCounts {
    constructor() {
      super(counter, prefix);
    }
  };
}
