/** A socket lives no longer than the session it authenticated with (docs/security.md §6). */
import { closeCodes } from '@enclave/protocol';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '../db/schema';
import { relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe('session expiry on open sockets', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;

  beforeAll(async () => {
    [alice, bob, carol] = await suite.members('alice', 'bob', 'carol');
  });

  /** Moves the end of a member's live sessions to `ms` from now. */
  const expireIn = (m: TestMember, ms: number) =>
    suite.database.db
      .update(sessions)
      .set({ expiresAt: sql`now() + make_interval(secs => ${ms / 1000})` })
      .where(and(eq(sessions.userId, m.id), isNull(sessions.revokedAt)));

  it('closes an authenticated socket when its session expires, with a session_ended frame', async () => {
    await expireIn(alice, 1500);
    const [session] = await suite.database.db
      .select({ expiresAt: sessions.expiresAt })
      .from(sessions)
      .where(and(eq(sessions.userId, alice.id), isNull(sessions.revokedAt)));
    const socket = await alice.connect();
    expect(socket.frames).toContainEqual({ type: 'authenticated', userId: alice.id });
    const ended = await socket.waitFor((f) => f.type === 'session_ended', 30_000);
    // Ended by the session's end, not before it.
    expect(Date.now()).toBeGreaterThanOrEqual(session!.expiresAt.getTime());
    expect(ended).toMatchObject({ type: 'session_ended', reason: 'expired' });
    expect((await socket.closed).code).toBe(closeCodes.sessionEnded);
    // The session is over for HTTP too.
    expect((await alice.request('GET', '/api/auth/me')).status).toBe(401);
  });

  it('leaves a socket whose session has its full 30 days open', async () => {
    const socket = await bob.connect();
    expect(socket.frames).toContainEqual({ type: 'authenticated', userId: bob.id });
    // A sweep after Bob's socket was tracked: the one that ends Carol's short session.
    await expireIn(carol, 1500);
    const carolSocket = await carol.connect();
    await carolSocket.waitFor((f) => f.type === 'session_ended', 30_000);
    // That sweep wrote to Bob's socket too, if at all: his pong comes after.
    const start = socket.frames.length;
    socket.send({ type: 'ping' });
    await socket.waitFor((f) => f.type === 'pong' && socket.frames.indexOf(f) >= start);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    expect(socket.frames.some((f) => f.type === 'session_ended')).toBe(false);
    socket.close();
  });
});
