/**
 * News of what is already committed never fails the request that committed it: with every publish
 * failing (Redis away), sign-up, role change, ban, unban and logout are answered as usual, and
 * each failure is logged. Members catch up once the bus is back (resync.test.ts).
 */
import { routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { memoryBus } from './bus';

describe('a failed publish after a commit', () => {
  const suite = oneInstance('pglite', {
    config: { rateLimits: relaxedRateLimits },
    bus: {
      ...memoryBus(),
      publish: async () => {
        throw new Error('bus unavailable');
      },
    },
  });

  it('answers sign-up, role change, ban, unban and logout as usual, and logs each failure', async () => {
    const [alice, bob] = await suite.members('alice-nobus', 'bob-nobus');
    const creator = new TestMember.Anonymous(suite.server.url);
    const { logs } = suite.server;
    expect((await creator.attempt(routes.setRole, { body: { userId: alice.id, role: 'admin' } }, creatorHeaders)).status).toBe(200);
    expect((await alice.attempt(routes.adminBan, { body: { userId: bob.id, reason: 'test' } })).status).toBe(200);
    expect((await alice.attempt(routes.adminUnban, { body: { userId: bob.id } })).status).toBe(200);
    expect((await alice.attempt(routes.logout, {})).status).toBe(200);
    expect((await alice.attempt(routes.me, {})).status).toBe(401);
    expect(logs.filter((l) => l.includes('could not publish on the bus after a commit')).length).toBeGreaterThanOrEqual(6);
    expect(logs.filter((l) => l.includes('"statusCode":500'))).toEqual([]);
  });
});
