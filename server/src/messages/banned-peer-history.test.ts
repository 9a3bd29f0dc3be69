/**
 * A member keeps their direct-message history with someone who was later banned or wiped: reading
 * it (and one's own shares of its epochs) is allowed, writing to them (members, epochs, send) is not
 * (access/rules.ts).
 */
import { randomUUID } from 'node:crypto';
import { routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe.each(backends)('direct messages with a banned or wiped member (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;

  beforeAll(async () => {
    [alice, bob, carol] = await suite.members('alice', 'bob', 'carol');
    // Conversations held while everyone was in good standing.
    expect((await alice.send(bob.id, 'hello bob')).status).toBe(201);
    expect((await bob.send(alice.id, 'hello alice')).status).toBe(201);
    expect((await alice.send(carol.id, 'hello carol')).status).toBe(201);
    // Bob is banned by the creator; Carol's account is wiped.
    await new TestMember.Anonymous(suite.server.url).call(routes.creatorBan, { body: { userId: bob.id, reason: 'spam' } }, creatorHeaders);
    await suite.database.db.update(users).set({ isCompromised: true }).where(eq(users.id, carol.id));
  });

  it.each([
    ['banned', () => bob, ['hello bob', 'hello alice']],
    ['wiped', () => carol, ['hello carol']],
  ] as const)('lets the other member read and decrypt their history with a %s member', async (_state, peer, texts) => {
    const res = await alice.attempt(routes.history, { query: { receiverId: peer().id, limit: 50 } });
    expect(res.status).toBe(200);
    const messages = res.body!.messages;
    expect(messages).toHaveLength(texts.length);
    // Her own shares of those epochs come too, and the messages open.
    const shares = await alice.call(routes.epochShares, { query: { ids: [...new Set(messages.map((m) => m.epochId))].join(',') } });
    expect(shares.shares.length).toBeGreaterThan(0);
    expect((await alice.decrypt(messages)).map((m) => m.text)).toEqual(texts);
    // Catching up after a cursor is reading too.
    const after = await alice.attempt(routes.history, { query: { receiverId: peer().id, after: messages[0]!.id, limit: 50 } });
    expect(after.status).toBe(200);
  });

  it.each([
    ['banned', () => bob],
    ['wiped', () => carol],
  ] as const)('still refuses writing to a %s member: members, epoch, message', async (_state, peer) => {
    const receiverId = peer().id;
    const members = await alice.attempt(routes.conversationMembers, { query: { receiverId } });
    expect([members.status, members.error?.error]).toEqual([403, 'This member is banned']);
    const epoch = await alice.attempt(routes.createEpoch, {
      body: {
        epochId: randomUUID(),
        receiverId,
        membershipVersion: 1,
        shares: [{ recipientId: alice.id, wrappedKey: 'A'.repeat(344), signature: 'A'.repeat(88) }],
      },
    });
    expect([epoch.status, epoch.error?.error]).toEqual([403, 'This member is banned']);
    // Her epoch from before is still current on her side: the message itself is refused.
    const send = await alice.send(receiverId, 'are you there?');
    expect([send.status, send.error?.error]).toEqual([403, 'This member is banned']);
  });

  it('still answers 404 for a member who does not exist', async () => {
    const res = await alice.attempt(routes.history, { query: { receiverId: randomUUID(), limit: 50 } });
    expect(res.status).toBe(404);
  });
});
