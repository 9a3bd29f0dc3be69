/** Clean-up for runs that give Redis a prefix of their own (REDIS_PREFIX): the e2e tests, the load bench. */
import { Redis } from 'ioredis';

/** Deletes every key under `prefix` (the rate-limit counters; the bus keeps none). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}
