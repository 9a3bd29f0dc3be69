/** POST /api/generate-test-keys: keys to try the app with, for the creator, in development only. */
import { errorResponseSchema, errorTexts, routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { mintKeys } from './service';

describe.each([false, true])('test keys (production: %s)', (production) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  let anon: InstanceType<typeof TestMember.Anonymous>;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    server = await startServer(database, { config: { production, rateLimits: relaxedRateLimits } });
    anon = new TestMember.Anonymous(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it.runIf(!production)('gives the creator 1 or 10 keys that validate', async () => {
    for (const quantity of [1, 10] as const) {
      const { keys } = await anon.call(routes.generateTestKeys, { body: { quantity } }, creatorHeaders);
      expect(keys).toHaveLength(quantity);
      for (const { accessToken } of keys) {
        expect(await anon.call(routes.validateKey, { body: { inviteKey: accessToken } })).toMatchObject({ valid: true, reason: errorTexts.keyValid });
      }
    }
  });

  it.runIf(!production)('refuses other quantities, and everyone but the creator', async () => {
    // Quantity 5 is outside the route's types: sent raw.
    const five = await anon.request('POST', routes.generateTestKeys.path, { quantity: 5 }, creatorHeaders);
    expect(five.status).toBe(400);
    expect(errorResponseSchema.parse(five.body).error).toMatch(/^quantity: /);
    const member = await TestMember.join(server.url, (await mintKeys(database.db, { count: 1 }))[0]!, 'tester');
    expect((await member.attempt(routes.generateTestKeys, { body: { quantity: 1 } })).status).toBe(401);
  });

  it.runIf(production)('does not exist in production: 404, even for the creator', async () => {
    const res = await anon.attempt(routes.generateTestKeys, { body: { quantity: 1 } }, creatorHeaders);
    expect(res.status).toBe(404);
  });
});
