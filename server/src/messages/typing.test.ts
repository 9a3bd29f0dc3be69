/**
 * Typing frames: relayed to the other members of their conversation only, across instances,
 * throttled per socket and conversation, and never stored.
 */
import { conversationIdFor, GENERAL_CONVERSATION, type ServerFrame } from '@enclave/protocol';
import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, redisEnabled, relaxedRateLimits } from '../testing/harness';
import { twoInstances } from '../testing/two-instances';
import { TestMember, type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { TYPING_THROTTLE_MS } from './typing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const typingIn = (conversationId: string, userId: string) => (f: ServerFrame) =>
  f.type === 'typing' && f.conversationId === conversationId && f.userId === userId;
const typingFrames = (socket: TestSocket, conversationId: string) =>
  socket.frames.filter((f) => f.type === 'typing' && f.conversationId === conversationId);

describe('typing indicators', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });

  const members = async (...names: string[]) => {
    const keys = await mintKeys(suite.database.db, { count: names.length });
    return Promise.all(names.map((name, i) => TestMember.join(suite.server.url, keys[i]!, name)));
  };

  it('relays a DM typing frame to its other member only, and a channel one to everyone', async () => {
    const [alice, bob, carol] = await members('alice-typing', 'bob-typing', 'carol-typing');
    const [aliceSocket, bobSocket, carolSocket] = await Promise.all([alice!.connect(), bob!.connect(), carol!.connect()]);
    const dm = conversationIdFor(alice!.id, bob!.id);
    const stored = async () => (await suite.database.db.select({ value: count() }).from(messages))[0]?.value;
    const storedBefore = await stored();

    aliceSocket.send({ type: 'typing', conversationId: dm });
    expect(await bobSocket.waitFor(typingIn(dm, alice!.id))).toEqual({ type: 'typing', conversationId: dm, userId: alice!.id });

    // Sent after the DM's: once Carol has it, the DM's would have come too.
    aliceSocket.send({ type: 'typing', conversationId: GENERAL_CONVERSATION });
    await carolSocket.waitFor(typingIn(GENERAL_CONVERSATION, alice!.id));
    await bobSocket.waitFor(typingIn(GENERAL_CONVERSATION, alice!.id));
    expect(typingFrames(carolSocket, dm)).toEqual([]);

    // A DM of others: Carol is not one of its members, so it goes nowhere.
    carolSocket.send({ type: 'typing', conversationId: dm });
    carolSocket.send({ type: 'typing', conversationId: GENERAL_CONVERSATION });
    // Dropped as it arrived, before any database work (receiverOf): gone before the channel's is read.
    await bobSocket.waitFor(typingIn(GENERAL_CONVERSATION, carol!.id));
    expect(typingFrames(bobSocket, dm).map((f) => f.type === 'typing' && f.userId)).toEqual([alice!.id]);
    expect(typingFrames(aliceSocket, dm)).toEqual([]);

    expect(await stored()).toBe(storedBefore);
    for (const s of [aliceSocket, bobSocket, carolSocket]) s.close();
  });

  it('relays at most one frame per socket and conversation in the throttle window', async () => {
    const [dave, erin] = await members('dave-typing', 'erin-typing');
    const [daveSocket, erinSocket] = await Promise.all([dave!.connect(), erin!.connect()]);
    const dm = conversationIdFor(dave!.id, erin!.id);
    for (let i = 0; i < 5; i++) daveSocket.send({ type: 'typing', conversationId: dm });
    // The channel has its own window.
    daveSocket.send({ type: 'typing', conversationId: GENERAL_CONVERSATION });
    await erinSocket.waitFor(typingIn(GENERAL_CONVERSATION, dave!.id));
    // The four over the throttle are dropped as they arrive: only the first can be on its way.
    await erinSocket.waitFor(typingIn(dm, dave!.id));
    expect(typingFrames(erinSocket, dm)).toHaveLength(1);

    // The throttle reads the real clock (its `now` is bound when the server starts): the window has to pass.
    await sleep(TYPING_THROTTLE_MS);
    daveSocket.send({ type: 'typing', conversationId: dm });
    await erinSocket.waitFor(() => typingFrames(erinSocket, dm).length === 2);
    daveSocket.close();
    erinSocket.close();
  });
});

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('typing across instances', () => {
  const servers = twoInstances({ rateLimits: relaxedRateLimits });

  it('reaches a DM member whose socket is on the other instance', async () => {
    const { a, b, database } = servers;
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const onA = await TestMember.join(a.url, k1!, 'typist-a');
    const onB = await TestMember.join(b.url, k2!, 'reader-b');
    const [socketA, socketB] = await Promise.all([onA.connect(), onB.connect()]);
    const dm = conversationIdFor(onA.id, onB.id);
    socketA.send({ type: 'typing', conversationId: dm });
    expect(await socketB.waitFor(typingIn(dm, onA.id))).toMatchObject({ userId: onA.id });
    socketA.close();
    socketB.close();
  });
});
