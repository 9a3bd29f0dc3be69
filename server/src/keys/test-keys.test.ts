/** POST /api/generate-test-keys: keys to try the app with, for the creator, in development only. */
import { errorResponseSchema, errorTexts, routes } from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { mintKeys } from './service';

describe.each([false, true])('test keys (production: %s)', (production) => {
  const suite = oneInstance('pglite', { config: { production, rateLimits: relaxedRateLimits } });
  let anon: InstanceType<typeof TestMember.Anonymous>;

  beforeAll(async () => {
    anon = new TestMember.Anonymous(suite.server.url);
  });

  it.runIf(!production)('gives the creator 1 or 10 keys that validate', async () => {
    for (const quantity of [1, 10] as const) {
      const { keys } = await anon.call(routes.generateTestKeys, { body: { quantity } }, creatorHeaders);
      expect(keys).toHaveLength(quantity);
      for (const { accessToken } of keys) {
        expect(await anon.call(routes.validateKey, { body: { inviteKey: accessToken } })).toMatchObject({
          valid: true,
          reason: errorTexts.keyValid,
        });
      }
    }
  });

  it.runIf(!production)('refuses other quantities, and everyone but the creator', async () => {
    // Quantity 5 is outside the route's types: sent raw.
    const five = await anon.request('POST', routes.generateTestKeys.path, { quantity: 5 }, creatorHeaders);
    expect(five.status).toBe(400);
    expect(errorResponseSchema.parse(five.body).error).toMatch(/^quantity: /);
    const member = await TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, 'tester');
    expect((await member.attempt(routes.generateTestKeys, { body: { quantity: 1 } })).status).toBe(401);
  });

  it.runIf(production)('does not exist in production: 404, even for the creator', async () => {
    const res = await anon.attempt(routes.generateTestKeys, { body: { quantity: 1 } }, creatorHeaders);
    expect(res.status).toBe(404);
  });
});
