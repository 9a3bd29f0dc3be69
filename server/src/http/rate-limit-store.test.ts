import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisRateLimitStore, WindowCounter } from './rate-limit-store';

describe('rate-limit counters in Redis, in memory while Redis does not answer', () => {
  it('counts in Redis, falls back to memory on failure (reported once per outage), and returns to Redis', async () => {
    let answer: (() => Promise<unknown>) | null = null;
    const keys: string[] = [];
    const redis = {
      eval: (_script: string, _n: number, key: string) => {
        keys.push(key);
        return answer ? answer() : Promise.reject(new Error("Stream isn't writeable and enableOfflineQueue options is false"));
      },
    } as unknown as Redis;
    const fallbacks: unknown[] = [];
    const Store = redisRateLimitStore(new WindowCounter(redis, (err) => fallbacks.push(err)), 'enclave:rl:');
    const route = new Store({}).child({ routeInfo: { method: 'POST', url: '/api/keys/validate' } } as never);
    const incr = () =>
      new Promise<{ current: number; ttl: number }>((resolve, reject) =>
        route.incr('10.0.0.1', (err, result) => (err ? reject(err) : resolve(result!)), 60_000, 5),
      );

    answer = async () => [4, 59_000];
    expect(await incr()).toEqual({ current: 4, ttl: 59_000 });
    answer = null;
    expect((await incr()).current).toBe(1);
    expect((await incr()).current).toBe(2);
    expect(fallbacks).toHaveLength(1);
    answer = async () => [5, 58_000];
    expect(await incr()).toEqual({ current: 5, ttl: 58_000 });
    answer = null;
    expect((await incr()).current).toBe(3);
    expect(fallbacks).toHaveLength(2);
    // Keys as @fastify/rate-limit's own Redis store names them.
    expect(new Set(keys)).toEqual(new Set(['enclave:rl:POST/api/keys/validate-10.0.0.1']));
  });

  it('counts in memory without Redis, each key in its own window', async () => {
    const counter = new WindowCounter(undefined);
    expect((await counter.increment('a', 60_000)).current).toBe(1);
    expect((await counter.increment('a', 60_000)).current).toBe(2);
    expect((await counter.increment('b', 60_000)).current).toBe(1);
  });
});
