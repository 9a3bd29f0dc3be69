/**
 * Disappearing messages and deletion for everyone: who sets the timer, the expiry each message
 * gets, the sweep that erases expired content and tells the members, deletion by the sender
 * only, and what the history and the replay refusal make of an erased message.
 */
import { conversationIdFor, routes, type DisappearingTimer, type ServerFrame } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { messages, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, makeDatabase, redisEnabled, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { twoInstances } from '../testing/two-instances';
import { sweepExpired } from './disappearing';

const HOUR = 3600;
/** The capped server's DISAPPEARING_TIMER_CAP_MS: its timed messages expire this soon. */
const CAP_MS = 300;
const deletedFrame = (id: number, reason: 'expired' | 'deleted') => (f: ServerFrame) =>
  f.type === 'messages_deleted' && f.reason === reason && f.ids.includes(id);

describe.each(backends)('disappearing messages and deletion (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  /** Real timers. */
  let server: TestServer;
  /** Timers capped at CAP_MS, for what happens at expiry. */
  let capped: TestServer;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    server = await startServer(database, { config: { rateLimits: relaxedRateLimits } });
    capped = await startServer(database, { config: { rateLimits: relaxedRateLimits, disappearingCapMs: CAP_MS } });
  });
  afterAll(async () => {
    await server?.close();
    await capped?.close();
    await database?.close();
    await drop?.();
  });

  const join = async (name: string, on = server) => TestMember.join(on.url, (await mintKeys(database.db, { count: 1 }))[0]!, name);
  const pair = async (tag: string, on = server) => ({ alice: await join(`alice-${tag}`, on), bob: await join(`bob-${tag}`, on) });
  const setTimer = (member: TestMember, receiverId: string, seconds: DisappearingTimer) =>
    member.attempt(routes.setDisappearing, { body: { receiverId, seconds } });
  const stored = async (id: number) => (await database.db.select().from(messages).where(eq(messages.id, id)))[0];
  const sent = async (member: TestMember, receiverId: string, text: string) => {
    const res = await member.send(receiverId, text);
    expect(res.status).toBe(201);
    return res.body!.message;
  };

  it('lets either party of a DM set its timer, announced to both and kept in the history', async () => {
    const { alice, bob } = await pair('dm-timer');
    const [aliceSocket, bobSocket] = await Promise.all([alice.connect(), bob.connect()]);
    const res = await setTimer(bob, alice.id, HOUR);
    expect(res.status).toBe(201);
    const event = res.body!.event;
    expect(event).toMatchObject({
      conversationId: conversationIdFor(alice.id, bob.id),
      actorId: bob.id,
      event: { kind: 'timer_set', seconds: HOUR },
    });
    for (const socket of [aliceSocket, bobSocket]) {
      await socket.waitFor((f) => f.type === 'timeline_event' && f.event.id === event.id);
      socket.close();
    }
    // Alice was told live; a member who was not sees it in the history, at its place.
    const before = await sent(alice, bob.id, 'before off');
    expect((await setTimer(alice, bob.id, 0)).status).toBe(201);
    const page = await bob.call(routes.history, { query: { receiverId: alice.id } });
    expect(page.disappearingSeconds).toBe(0);
    expect(page.events.map((e) => e.event)).toEqual([
      { kind: 'timer_set', seconds: HOUR },
      { kind: 'timer_set', seconds: 0 },
    ]);
    expect(page.events[0]!.id).toBeLessThan(before.id);
    expect(page.events[1]!.id).toBeGreaterThan(before.id);
  });

  it("refuses a member's change of the general channel's timer, and lets admins and the creator's account", async () => {
    const { alice, bob } = await pair('channel-timer');
    const refused = await setTimer(alice, 'all', HOUR);
    expect(refused.status).toBe(403);
    expect(refused.error?.error).toBe('Only administrators can change disappearing messages in the general channel');
    await database.db.update(users).set({ role: 'admin' }).where(eq(users.id, alice.id));
    await database.db.update(users).set({ isCreatorAccount: true }).where(eq(users.id, bob.id));
    expect((await setTimer(alice, 'all', HOUR)).status).toBe(201);
    expect((await setTimer(bob, 'all', 0)).status).toBe(201);
    const bad = await bob.request('POST', routes.setDisappearing.path, { receiverId: 'all', seconds: 120 });
    expect(bad.status).toBe(400);
  });

  it('stamps each message with its expiry from the timer when it is stored, whatever the sender says', async () => {
    const { alice, bob } = await pair('stamp');
    const plain = await sent(alice, bob.id, 'no timer');
    expect(plain.expiresAt).toBeNull();
    await setTimer(bob, alice.id, 86_400);
    const timed = await sent(alice, bob.id, 'a day');
    expect(Date.parse(timed.expiresAt!) - Date.parse(timed.timestamp)).toBe(86_400_000);
    expect((await stored(timed.id))!.expiresAt!.toISOString()).toBe(timed.expiresAt);
    // Readers get the same expiry.
    expect((await bob.history(alice.id)).find((m) => m.id === timed.id)?.expiresAt).toBe(timed.expiresAt);
    // A sender cannot smuggle a longer life in.
    const body = {
      receiverId: bob.id,
      epochId: timed.epochId,
      index: timed.index + 1,
      encryptedContent: timed.encryptedContent,
      messageType: 'text',
      expiresAt: null,
    };
    expect((await alice.request('POST', routes.sendMessage.path, body)).status).toBe(400);
  });

  it('shows the testing aid on the compliance panel, and only where it is set', async () => {
    const anonymous = (on: TestServer) => new TestMember.Anonymous(on.url);
    const checks = async (on: TestServer) => (await anonymous(on).call(routes.compliance, {}, creatorHeaders)).checks;
    expect((await checks(capped)).find((c) => c.name === 'Disappearing timers')).toMatchObject({ status: 'warning' });
    expect((await checks(server)).find((c) => c.name === 'Disappearing timers')).toBeUndefined();
  });

  it('erases expired content, tells both members, and leaves it out of the history', async () => {
    const { alice, bob } = await pair('expiry', capped);
    const [aliceSocket, bobSocket] = await Promise.all([alice.connect(), bob.connect()]);
    await setTimer(alice, bob.id, HOUR);
    const gone = await sent(alice, bob.id, 'this disappears');
    expect(Date.parse(gone.expiresAt!) - Date.parse(gone.timestamp)).toBe(CAP_MS);
    // Expired (by the database's clock): out of the history at once, before any sweep.
    await expect.poll(async () => (await bob.history(alice.id)).map((m) => m.id), { timeout: 10_000, interval: 50 }).not.toContain(gone.id);
    await sweepExpired({
      db: database.db,
      gateway: capped.app.gateway,
      attachments: capped.app.attachments,
      scrubber: capped.app.scrubber,
    });
    const row = await stored(gone.id);
    expect(row?.encryptedContent).toBeNull();
    for (const socket of [aliceSocket, bobSocket]) {
      await socket.waitFor(deletedFrame(gone.id, 'expired'));
      socket.close();
    }
    const page = await bob.call(routes.history, { query: { receiverId: alice.id } });
    expect(page.messages).toEqual([]);
    expect(page.events.map((e) => e.event.kind)).toEqual(['timer_set']);
    // Its (epoch, index) is still taken: the captured ciphertext cannot be stored again.
    const replay = await alice.attempt(routes.sendMessage, {
      body: {
        receiverId: bob.id,
        epochId: gone.epochId,
        index: gone.index,
        encryptedContent: gone.encryptedContent,
        messageType: 'text',
        clientMessageId: randomUUID(),
      },
    });
    expect(replay.status).toBe(409);
    expect(replay.error?.code).toBe('replay');
  });

  it('lets only the sender delete a message for everyone, leaving a note in its place', async () => {
    const { alice, bob } = await pair('delete');
    const eve = await join('eve-delete');
    const bobSocket = await bob.connect();
    const dm = await sent(alice, bob.id, 'regret this');
    const channel = await sent(alice, 'all', 'and this');
    const del = (member: TestMember, id: number) => member.attempt(routes.deleteMessage, { params: { id } });

    expect((await del(bob, dm.id)).status).toBe(403);
    expect((await del(bob, channel.id)).status).toBe(403);
    // Eve cannot see Alice's DM with Bob: it does not exist for her.
    expect((await del(eve, dm.id)).status).toBe(404);
    expect((await del(alice, 999_999_999)).status).toBe(404);

    expect((await del(alice, dm.id)).status).toBe(200);
    await bobSocket.waitFor(deletedFrame(dm.id, 'deleted'));
    bobSocket.close();
    expect((await stored(dm.id))?.encryptedContent).toBeNull();
    // Gone already: a second deletion finds nothing.
    expect((await del(alice, dm.id)).status).toBe(404);
    const page = await bob.call(routes.history, { query: { receiverId: alice.id } });
    expect(page.messages).toEqual([]);
    expect(page.events).toEqual([
      { id: dm.id, conversationId: dm.conversationId, actorId: alice.id, timestamp: dm.timestamp, event: { kind: 'message_deleted' } },
    ]);
    const replay = await alice.attempt(routes.sendMessage, {
      body: { receiverId: bob.id, epochId: dm.epochId, index: dm.index, encryptedContent: dm.encryptedContent, messageType: 'text' },
    });
    expect(replay.error?.code).toBe('replay');
  });

  it('pages messages and timeline events together by id', async () => {
    const { alice, bob } = await pair('paging');
    const first = await sent(alice, bob.id, 'one');
    await setTimer(alice, bob.id, HOUR);
    const third = await sent(alice, bob.id, 'three');
    // The newest two are the timer change and the third message; the first waits for the next page.
    const latest = await bob.call(routes.history, { query: { receiverId: alice.id, limit: 2 } });
    expect(latest.hasMore).toBe(true);
    expect(latest.messages.map((m) => m.id)).toEqual([third.id]);
    expect(latest.events.map((e) => e.event)).toEqual([{ kind: 'timer_set', seconds: HOUR }]);
    const older = await bob.call(routes.history, { query: { receiverId: alice.id, before: latest.events[0]!.id, limit: 2 } });
    expect(older.messages.map((m) => m.id)).toEqual([first.id]);
    expect(older.hasMore).toBe(false);
    const after = await bob.call(routes.history, { query: { receiverId: alice.id, after: first.id } });
    expect(after.events.map((e) => e.event)).toEqual([{ kind: 'timer_set', seconds: HOUR }]);
    expect(after.messages.map((m) => m.id)).toEqual([third.id]);
    expect(after.hasMore).toBe(false);
  });
});

describe.runIf(backends.includes('postgres') && redisEnabled)('deletion across two instances', () => {
  const servers = twoInstances({ rateLimits: relaxedRateLimits, disappearingCapMs: CAP_MS });

  it('reaches a member on the other instance, for a deletion and for an expiry', async () => {
    const { a, b, database } = servers;
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const onA = await TestMember.join(a.url, k1!, 'deleter-a');
    const onB = await TestMember.join(b.url, k2!, 'reader-b');
    const socketB = await onB.connect();
    const deleted = (await onA.send(onB.id, 'deleted soon')).body!.message;
    expect((await onA.attempt(routes.deleteMessage, { params: { id: deleted.id } })).status).toBe(200);
    await socketB.waitFor(deletedFrame(deleted.id, 'deleted'));

    await onA.call(routes.setDisappearing, { body: { receiverId: onB.id, seconds: HOUR } });
    const expiring = (await onA.send(onB.id, 'expires soon')).body!.message;
    // Expired (by the database's clock) once out of the history.
    await expect
      .poll(async () => (await onB.history(onA.id)).map((m) => m.id), { timeout: 10_000, interval: 50 })
      .not.toContain(expiring.id);
    // Instance A sweeps (both run the sweep; whichever takes the row, B's socket hears it).
    await sweepExpired({ db: database.db, gateway: a.app.gateway, attachments: a.app.attachments, scrubber: a.app.scrubber });
    await socketB.waitFor(deletedFrame(expiring.id, 'expired'));
    socketB.close();
  });
});
