/**
 * The built server started while its Redis is down: it starts and serves rather than exiting
 * ("Connection is closed"), warns in JSON, once per connection, retries with back-off, and its
 * readiness check answers 503 "redis" until Redis is up, then 200.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Instance, instanceEnv } from './support/instance';
import { freePort, plan, startRedis, type RedisServer } from './support/services';

const needs = plan({ redis: true });

describe.runIf(needs.run)('Redis down when an instance starts', () => {
  let redis: RedisServer;
  let instance: Instance;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-redis-down-'));

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    redis = await startRedis();
    await redis.stop();
  });
  afterAll(async () => {
    await instance?.kill();
    await redis?.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, serves, warns and says 503 "redis" until Redis answers, then 200', async () => {
    instance = await Instance.start(await freePort(), instanceEnv({ DATA_DIR: dataDir, REDIS_URL: redis.url, REDIS_PREFIX: 'redis-down' }));
    const ready = async () => {
      const res = await fetch(instance.url + routes.ready.path);
      return [res.status, ((await res.json()) as { reasons?: string[] }).reasons ?? []];
    };
    expect(await ready()).toEqual([503, ['redis']]);
    expect((await fetch(instance.url + routes.healthGet.path)).status).toBe(200);
    expect((await fetch(instance.url + routes.users.path)).status).toBe(401);

    await redis.start();
    await expect.poll(ready).toEqual([200, []]);
    // Every line JSON; the outage told at warn: once for the rate limits, once per bus connection.
    const lines = instance.lines.filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.msg.startsWith('Redis unreachable at start')).map((l) => l.level)).toEqual([40]);
    expect(lines.filter((l) => l.msg === 'bus error').map((l) => l.level)).toEqual([40, 40]);
    expect(instance.errors()).toEqual([]);
    instance.signal('SIGTERM');
    expect((await instance.exited).code).toBe(0);
  });
});
