/**
 * Read receipts: opt-in and reciprocal. A position is stored only for a member who opted in, never
 * moves backwards, and is seen (on request or as a `read_position` frame) only while both members
 * of the DM opted in; opting out deletes the member's positions. Nobody reads or writes positions
 * of a DM they are not part of, and the general channel has none.
 */
import { conversationIdFor, routes, type ServerFrame } from '@enclave/protocol';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readPositions, users } from '../db/schema';
import { backends, relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

const readFrames = (socket: TestSocket) => socket.frames.filter((f) => f.type === 'read_position');
const chatFrom = (id: number) => (f: ServerFrame) => f.type === 'chat_message' && f.message.id === id;

describe.each(backends)('read receipts (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });

  const sent = async (from: TestMember, to: TestMember, text: string) => {
    const { body } = await from.send(to.id, text);
    if (!body) throw new Error('the message was not stored');
    return body.message.id;
  };
  const optIn = (m: TestMember, enabled: boolean) => m.call(routes.setReadReceipts, { body: { enabled } });
  const markRead = (m: TestMember, peer: TestMember, messageId: number) =>
    m.call(routes.markRead, { body: { receiverId: peer.id, messageId } });
  const positionOf = async (viewer: TestMember, peer: TestMember) =>
    (await viewer.call(routes.readPosition, { query: { receiverId: peer.id } })).positions[0] ?? null;
  const storedRows = (m: TestMember) => suite.database.db.select().from(readPositions).where(eq(readPositions.userId, m.id));
  /**
   * Sends a message from `from` to `to` and waits for it on `socket`: frames published before it
   * (a read position relayed by an earlier answered call) would have come first.
   */
  const settle = async (from: TestMember, to: TestMember, socket: TestSocket) => socket.waitFor(chatFrom(await sent(from, to, 'sync')));

  it('stores and shows positions only while both members opted in, live and after a reload', async () => {
    const [alice, bob] = await suite.members('alice-rr', 'bob-rr');
    const [aliceSocket, bobSocket] = await Promise.all([alice.connect(), bob.connect()]);
    const dm = conversationIdFor(alice.id, bob.id);
    const b1 = await sent(bob, alice, 'one');
    const b2 = await sent(bob, alice, 'two');
    const a1 = await sent(alice, bob, 'three');

    // Off by default, and said so by /api/auth/me.
    expect((await alice.call(routes.me, {})).readReceipts).toBe(false);

    // Only Alice opted in: her position is stored, but Bob, who sends none, sees none.
    expect(await optIn(alice, true)).toEqual({ enabled: true });
    expect((await alice.call(routes.me, {})).readReceipts).toBe(true);
    expect(await markRead(alice, bob, b2)).toEqual({ stored: true });
    expect(await positionOf(bob, alice)).toBeNull();
    // Bob's own read is not stored while he is off, so Alice sees nothing either.
    expect(await markRead(bob, alice, a1)).toEqual({ stored: false });
    expect(await storedRows(bob)).toEqual([]);
    expect(await positionOf(alice, bob)).toBeNull();
    await settle(alice, bob, bobSocket);
    expect(readFrames(bobSocket)).toEqual([]);

    // Both opted in: each sees the other's position, on request and live.
    await optIn(bob, true);
    expect(await positionOf(bob, alice)).toMatchObject({ userId: alice.id, messageId: b2 });
    expect(await markRead(bob, alice, a1)).toEqual({ stored: true });
    expect(await aliceSocket.waitFor((f) => f.type === 'read_position')).toEqual({
      type: 'read_position',
      conversationId: dm,
      userId: bob.id,
      messageId: a1,
    });
    const seen = await positionOf(alice, bob);
    expect(seen).toMatchObject({ userId: bob.id, messageId: a1 });
    expect(Number.isNaN(Date.parse(seen!.readAt))).toBe(false);

    // Never backwards: an older message leaves the position where it was, and relays nothing.
    expect(await markRead(alice, bob, b1)).toEqual({ stored: false });
    expect((await storedRows(alice)).map((r) => r.messageId)).toEqual([b2]);
    // Reading the same message again moves nothing either.
    expect(await markRead(bob, alice, a1)).toEqual({ stored: false });
    await settle(bob, alice, aliceSocket);
    expect(readFrames(aliceSocket)).toHaveLength(1);
    expect(readFrames(bobSocket)).toEqual([]);

    // Bob turns it off: his positions are deleted, and he no longer sees Alice's, nor she his.
    expect(await optIn(bob, false)).toEqual({ enabled: false });
    expect(await storedRows(bob)).toEqual([]);
    expect(await positionOf(alice, bob)).toBeNull();
    expect(await positionOf(bob, alice)).toBeNull();
    const b3 = await sent(bob, alice, 'four');
    expect(await markRead(alice, bob, b3)).toEqual({ stored: true });
    await settle(alice, bob, bobSocket);
    expect(readFrames(bobSocket)).toEqual([]);
    aliceSocket.close();
    bobSocket.close();
  });

  it('refuses a DM the caller is not part of, the general channel, and messages of another conversation', async () => {
    const [ann, ben, cat] = await suite.members('ann-rr', 'ben-rr', 'cat-rr');
    await Promise.all([optIn(ann, true), optIn(ben, true), optIn(cat, true)]);
    const m = await sent(ann, ben, 'between us');
    expect(await markRead(ben, ann, m)).toEqual({ stored: true });

    // Cat names Ann: that is Cat's own DM with Ann, where Ann and Ben's message is not.
    const foreign = await cat.attempt(routes.markRead, { body: { receiverId: ann.id, messageId: m } });
    expect(foreign.status).toBe(404);
    expect(await storedRows(cat)).toEqual([]);
    // Nor does Cat see Ben's position in Ann and Ben's DM: hers with Ben holds none.
    expect(await positionOf(cat, ben)).toBeNull();
    expect(await positionOf(cat, ann)).toBeNull();

    // The general channel, oneself, an unknown member, a message that does not exist.
    const general = await cat.request('POST', routes.markRead.path, { receiverId: 'all', messageId: m });
    expect(general.status).toBe(400);
    expect((await cat.request('GET', `${routes.readPosition.path}?receiverId=all`)).status).toBe(400);
    expect((await cat.attempt(routes.markRead, { body: { receiverId: cat.id, messageId: m } })).status).toBe(400);
    expect((await cat.attempt(routes.markRead, { body: { receiverId: randomUUID(), messageId: m } })).status).toBe(404);
    expect((await ben.attempt(routes.markRead, { body: { receiverId: ann.id, messageId: m + 1_000_000 } })).status).toBe(404);
    expect((await cat.attempt(routes.readPosition, { query: { receiverId: randomUUID() } })).status).toBe(404);
  });

  it('shows nothing of a banned member, who can send none', async () => {
    const [dan, eve] = await suite.members('dan-rr', 'eve-rr');
    await Promise.all([optIn(dan, true), optIn(eve, true)]);
    const m = await sent(dan, eve, 'hello');
    expect(await markRead(eve, dan, m)).toEqual({ stored: true });
    expect(await positionOf(dan, eve)).toMatchObject({ messageId: m });

    await suite.database.db.update(users).set({ isBanned: true }).where(eq(users.id, eve.id));
    expect(await positionOf(dan, eve)).toBeNull();
    const refused = await eve.attempt(routes.markRead, { body: { receiverId: dan.id, messageId: m } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });
});

describe('read positions past the rate limit', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: { ...relaxedRateLimits, readPosition: { max: 3, windowMs: 60_000 } } } });

  it('refuses a member’s read positions past the limit with 429; another member is still served', async () => {
    const [fay, gus] = await suite.members('fay-rr', 'gus-rr');
    await fay.call(routes.setReadReceipts, { body: { enabled: true } });
    const { body } = await gus.send(fay.id, 'hi');
    const messageId = body!.message.id;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fay.attempt(routes.markRead, { body: { receiverId: gus.id, messageId } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await fay.attempt(routes.markRead, { body: { receiverId: gus.id, messageId } });
    expect(refused.error).toMatchObject({ code: 'rate_limited' });
    expect((await gus.attempt(routes.markRead, { body: { receiverId: fay.id, messageId } })).status).toBe(200);
  });
});
