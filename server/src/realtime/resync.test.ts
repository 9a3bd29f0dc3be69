/**
 * A `resync` from the bus (frames may have been lost while Redis was away): every open socket is
 * told to catch up with an `authenticated` frame, and a socket whose session ended meanwhile (its
 * `end_sessions` may be among what was lost) is closed instead.
 */
import { closeCodes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { relaxedRateLimits } from '../testing/harness';
import { oneInstance } from '../testing/one-instance';
import { memoryBus } from './bus';

describe('resync after a gap on the bus', () => {
  const bus = memoryBus();
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits }, bus });

  it('asks every open socket to catch up, and closes those whose session ended meanwhile', async () => {
    const [alice, bob] = await suite.members('alice-resync', 'bob-resync');
    const [aliceSocket, bobSocket] = [await alice.connect(), await bob.connect()];
    // Bob is banned, and the frame that would have closed his socket is lost.
    await suite.database.db.update(users).set({ isBanned: true }).where(eq(users.id, bob.id));

    await bus.publish({ kind: 'resync' });
    await expect.poll(() => aliceSocket.frames.filter((f) => f.type === 'authenticated')).toHaveLength(2);
    expect(await bobSocket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
    expect((await bobSocket.closed).code).toBe(closeCodes.sessionEnded);
    expect(bobSocket.frames.filter((f) => f.type === 'authenticated')).toHaveLength(1);
    aliceSocket.close();
  });
});
