/**
 * A stored message is never answered as an error, and resending it is idempotent by the client's
 * message id (docs/security.md §4): the same stored message comes back, not a duplicate, not a
 * replay refusal.
 */
import { randomUUID } from 'node:crypto';
import { createEpoch, encryptMessage } from '@enclave/crypto';
import { routes, type SendMessageRequest } from '@enclave/protocol';
import { count, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../db/schema';
import { mintKeys } from '../keys/service';
import { memoryBus } from '../realtime/bus';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe.each(backends)('sending survives a failed publish and resends are idempotent (%s)', (backend) => {
  /** Chat frames to refuse to publish, as a Redis that just went away would. */
  let failChatPublishes = 0;
  const inner = memoryBus();
  const suite = oneInstance(backend, {
    config: { rateLimits: relaxedRateLimits },
    bus: {
      ...inner,
      publish: async (event) => {
        if (event.kind === 'deliver' && event.frame.type === 'chat_message' && failChatPublishes > 0) {
          failChatPublishes -= 1;
          throw new Error('bus unavailable');
        }
        return inner.publish(event);
      },
    },
  });
  let alice: TestMember;
  let bob: TestMember;

  beforeAll(async () => {
    [alice, bob] = await suite.members('alice', 'bob');
  });

  const storedBy = async (m: TestMember) =>
    (await suite.database.db.select({ n: count() }).from(messages).where(eq(messages.senderId, m.id)))[0]!.n;

  /** A fresh epoch of Alice's in the general channel, and a body for its message `index`. */
  const aliceEpoch = async () => {
    const m = await alice.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    const { epoch, shares } = await createEpoch({
      conversationId: m.conversationId,
      senderId: alice.id,
      membershipVersion: m.membershipVersion,
      recipients: m.members,
      signKey: alice.identity.signKey,
    });
    await alice.call(routes.createEpoch, {
      body: { epochId: epoch.epochId, receiverId: 'all', membershipVersion: m.membershipVersion, shares },
    });
    return async (index: number, text: string, clientMessageId: string | undefined = randomUUID()): Promise<SendMessageRequest> => ({
      receiverId: 'all',
      epochId: epoch.epochId,
      index,
      encryptedContent: await encryptMessage({ epoch, index, plaintext: text, signKey: alice.identity.signKey }),
      messageType: 'text',
      ...(clientMessageId ? { clientMessageId } : {}),
    });
  };

  it('answers success for a stored message whose publish failed, stores it once, and logs the failure', async () => {
    const before = await storedBy(alice);
    failChatPublishes = 1;
    const sent = await alice.send('all', 'the bus is down');
    expect(sent.status, JSON.stringify(sent.error)).toBe(201);
    expect(failChatPublishes).toBe(0);
    expect(await storedBy(alice)).toBe(before + 1);
    expect(suite.server.logs.some((l) => l.includes('"level":50') && l.includes('could not publish on the bus after a commit'))).toBe(true);
    // Bob catches up from the database.
    const history = await bob.history('all');
    expect(history.filter((m) => m.id === sent.body!.message.id)).toHaveLength(1);
    expect((await bob.decrypt(history)).find((m) => m.id === sent.body!.message.id)?.text).toBe('the bus is down');
  });

  it('answers a resend with the same client message id with the stored message, once stored', async () => {
    const body = await (await aliceEpoch())(0, 'sent twice');
    const first = await alice.attempt(routes.sendMessage, { body });
    expect(first.status, JSON.stringify(first.error)).toBe(201);
    const before = await storedBy(alice);
    const again = await alice.attempt(routes.sendMessage, { body });
    expect(again.status, JSON.stringify(again.error)).toBe(201);
    expect(again.body!.message).toEqual(first.body!.message);
    expect(await storedBy(alice)).toBe(before);
  });

  it('publishes a resent message again: the instance that stored it may have died before publishing', async () => {
    const bobSocket = await bob.connect();
    try {
      const body = await (await aliceEpoch())(0, 'published on the resend');
      failChatPublishes = 1;
      const first = await alice.attempt(routes.sendMessage, { body });
      expect(first.status, JSON.stringify(first.error)).toBe(201);
      expect(failChatPublishes).toBe(0);
      const again = await alice.attempt(routes.sendMessage, { body });
      expect(again.body!.message.id).toBe(first.body!.message.id);
      await bobSocket.waitFor((f) => f.type === 'chat_message' && f.message.id === first.body!.message.id, 2000);
    } finally {
      bobSocket.close();
    }
  });

  it('stores a message sent twice at once a single time', async () => {
    const body = await (await aliceEpoch())(0, 'at once');
    const before = await storedBy(alice);
    const [a, b] = await Promise.all([alice.attempt(routes.sendMessage, { body }), alice.attempt(routes.sendMessage, { body })]);
    expect([a.status, b.status], JSON.stringify([a.error, b.error])).toEqual([201, 201]);
    expect(a.body!.message.id).toBe(b.body!.message.id);
    expect(await storedBy(alice)).toBe(before + 1);
  });

  it('answers the resend even when the members moved after the message was stored', async () => {
    const body = await (await aliceEpoch())(0, 'before a newcomer');
    const first = await alice.call(routes.sendMessage, { body });
    await TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, `newcomer${randomUUID().slice(0, 8)}`);
    const again = await alice.attempt(routes.sendMessage, { body });
    expect(again.status, JSON.stringify(again.error)).toBe(201);
    expect(again.body!.message.id).toBe(first.message.id);
  });

  it('gives the send its client message id back in the answer, the frame and history, so the sender knows its own message by it', async () => {
    const make = await aliceEpoch();
    const clientMessageId = randomUUID();
    const socket = await alice.connect();
    try {
      const { message } = await alice.call(routes.sendMessage, { body: await make(0, 'mine', clientMessageId) });
      expect(message.clientMessageId).toBe(clientMessageId);
      const frame = await socket.waitFor((f) => f.type === 'chat_message' && f.message.id === message.id);
      expect(frame.type === 'chat_message' && frame.message.clientMessageId).toBe(clientMessageId);
      expect((await alice.history('all')).find((m) => m.id === message.id)?.clientMessageId).toBe(clientMessageId);
      // A send without one has none.
      const { clientMessageId: _, ...plainBody } = await make(1, 'no id');
      const plain = await alice.call(routes.sendMessage, { body: plainBody });
      expect(plain.message.clientMessageId).toBeNull();
    } finally {
      socket.close();
    }
  });

  it('refuses another message under a client message id already used', async () => {
    const make = await aliceEpoch();
    const clientMessageId = randomUUID();
    const stored = await alice.call(routes.sendMessage, { body: await make(0, 'the original', clientMessageId) });
    const before = await storedBy(alice);
    for (const other of [await make(0, 'another text, same index', clientMessageId), await make(1, 'another index', clientMessageId)]) {
      const res = await alice.attempt(routes.sendMessage, { body: other });
      expect(res.status).toBe(409);
      expect(res.error).toEqual({ code: 'replay', error: 'This message id was already used for another message' });
    }
    expect(await storedBy(alice)).toBe(before);
    expect((await alice.history('all')).find((m) => m.id === stored.message.id)?.encryptedContent).toBe(stored.message.encryptedContent);
  });

  it('still refuses a replay of a stored message under another client message id, or none', async () => {
    const make = await aliceEpoch();
    const body = await make(0, 'once only');
    await alice.call(routes.sendMessage, { body });
    for (const clientMessageId of [randomUUID(), undefined]) {
      const { clientMessageId: _, ...rest } = body;
      const res = await alice.attempt(routes.sendMessage, { body: clientMessageId ? { ...rest, clientMessageId } : rest });
      expect(res.status).toBe(409);
      expect(res.error?.code).toBe('replay');
    }
  });

  it("does not answer one member's message to another member's resend", async () => {
    const body = await (await aliceEpoch())(0, "alice's own");
    await alice.call(routes.sendMessage, { body });
    // Bob reusing Alice's client id is a message of his: here on an epoch that is not his.
    const res = await bob.attempt(routes.sendMessage, { body });
    expect(res.status).toBe(400);
    expect(res.error?.error).toBe('Unknown epoch for this conversation');
  });
});
