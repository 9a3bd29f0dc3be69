/**
 * Replies, reactions and edits as the server sees them: ciphertext plus an annotation's
 * `targetId`, checked on send (same conversation, still held), erased with its target (deletion
 * and the expiry sweep, named in the frame), never outliving it; and `GET /api/messages/:id`.
 */
import { conversationIdFor, errorTexts, routes, type Annotation, type ServerFrame } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { messages } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { sweepExpired } from './disappearing';

const HOUR = 3600;
const deletedFrame = (ids: number[], reason: 'expired' | 'deleted') => (f: ServerFrame) =>
  f.type === 'messages_deleted' && f.reason === reason && ids.every((id) => f.ids.includes(id));

describe.each(backends)('replies, reactions and edits (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    server = await startServer(database, { config: { rateLimits: relaxedRateLimits } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  const join = async (name: string) => TestMember.join(server.url, (await mintKeys(database.db, { count: 1 }))[0]!, name);
  const pair = async (tag: string) => ({ alice: await join(`alice-${tag}`), bob: await join(`bob-${tag}`) });
  const stored = async (id: number) => (await database.db.select().from(messages).where(eq(messages.id, id)))[0];
  const sent = async (member: TestMember, receiverId: string, text: string, replyTo?: number) => {
    const res = await member.send(receiverId, replyTo === undefined ? { text } : { text, replyTo });
    expect(res.status).toBe(201);
    return res.body!.message;
  };
  const annotate = (member: TestMember, receiverId: string, targetId: number, annotation: Annotation) =>
    member.send(receiverId, { text: '', annotation, targetId });
  const annotated = async (member: TestMember, receiverId: string, targetId: number, annotation: Annotation) => {
    const res = await annotate(member, receiverId, targetId, annotation);
    expect(res.status).toBe(201);
    return res.body!.message;
  };
  const react = (emoji: '👍' | '❤️') => ({ kind: 'reaction', emoji }) as const;

  it('stores only ciphertext and the annotated id; the members read the reply, the reaction and the edit', async () => {
    const { alice, bob } = await pair('store');
    const target = await sent(alice, bob.id, 'the original secret');
    const reply = await sent(bob, alice.id, 'a secret reply', target.id);
    const reaction = await annotated(bob, alice.id, target.id, react('❤️'));
    const edit = await annotated(alice, bob.id, target.id, { kind: 'edit', text: 'the edited secret' });
    expect(reply.targetId).toBeNull();
    expect([reaction.targetId, edit.targetId]).toEqual([target.id, target.id]);

    const rows = await database.db
      .select()
      .from(messages)
      .where(eq(messages.conversationId, conversationIdFor(alice.id, bob.id)));
    expect(rows.map((r) => [r.id, r.targetId])).toEqual([
      [target.id, null],
      [reply.id, null],
      [reaction.id, target.id],
      [edit.id, target.id],
    ]);
    const raw = JSON.stringify(rows);
    for (const plain of ['secret', '❤️', 'reaction', 'replyTo', '"edit"']) expect(raw).not.toContain(plain);

    const read = await alice.decrypt(await alice.history(bob.id));
    expect(read.map(({ id, text, replyTo, annotation }) => ({ id, text, replyTo, annotation }))).toEqual([
      { id: target.id, text: 'the original secret', replyTo: undefined, annotation: undefined },
      { id: reply.id, text: 'a secret reply', replyTo: target.id, annotation: undefined },
      { id: reaction.id, text: '', replyTo: undefined, annotation: { kind: 'reaction', emoji: '❤️' } },
      { id: edit.id, text: '', replyTo: undefined, annotation: { kind: 'edit', text: 'the edited secret' } },
    ]);
  });

  it('refuses a target in another conversation, an annotation of an annotation, and an erased target', async () => {
    const { alice, bob } = await pair('refuse');
    const carol = await join('carol-refuse');
    const elsewhere = await sent(carol, alice.id, 'carol to alice');
    const theirs = await annotate(bob, alice.id, elsewhere.id, react('👍'));
    expect([theirs.status, theirs.error?.error]).toEqual([404, 'No such message']);
    // Alice can read it, but not annotate it from another conversation.
    const crossed = await annotate(alice, bob.id, elsewhere.id, react('👍'));
    expect([crossed.status, crossed.error?.error]).toEqual([404, 'No such message']);

    const target = await sent(alice, bob.id, 'hello');
    const reaction = await annotated(bob, alice.id, target.id, react('👍'));
    expect((await annotate(alice, bob.id, reaction.id, react('👍'))).status).toBe(400);

    expect((await alice.attempt(routes.deleteMessage, { params: { id: target.id } })).status).toBe(200);
    const late = await annotate(bob, alice.id, target.id, react('❤️'));
    expect([late.status, late.error?.error]).toEqual([404, errorTexts.messageDeleted]);
  });

  it('erases the annotations with their target, names them in the frame, and keeps them out of the history', async () => {
    const { alice, bob } = await pair('delete');
    const [aliceSocket, bobSocket] = await Promise.all([alice.connect(), bob.connect()]);
    const target = await sent(alice, bob.id, 'to be deleted');
    const reaction = await annotated(bob, alice.id, target.id, react('👍'));
    const edit = await annotated(alice, bob.id, target.id, { kind: 'edit', text: 'changed' });
    const kept = await sent(bob, alice.id, 'a reply stays', target.id);

    expect((await alice.attempt(routes.deleteMessage, { params: { id: target.id } })).status).toBe(200);
    for (const socket of [aliceSocket, bobSocket]) {
      const frame = await socket.waitFor(deletedFrame([target.id, reaction.id, edit.id], 'deleted'));
      expect(frame).toMatchObject({ ids: expect.not.arrayContaining([kept.id]) as unknown });
      socket.close();
    }
    for (const id of [target.id, reaction.id, edit.id]) expect((await stored(id))?.encryptedContent).toBeNull();
    expect((await stored(kept.id))?.encryptedContent).not.toBeNull();
    // The target leaves its "message deleted" note; its annotations leave nothing.
    const page = await bob.call(routes.history, { query: { receiverId: alice.id } });
    expect(page.messages.map((m) => m.id)).toEqual([kept.id]);
    expect(page.events.map((e) => [e.id, e.event.kind])).toEqual([[target.id, 'message_deleted']]);
  });

  it('removes a reaction by deleting it: its target stays', async () => {
    const { alice, bob } = await pair('unreact');
    const target = await sent(alice, bob.id, 'like me');
    const reaction = await annotated(bob, alice.id, target.id, react('👍'));
    // Only its sender removes it.
    expect((await alice.attempt(routes.deleteMessage, { params: { id: reaction.id } })).status).toBe(403);
    expect((await bob.attempt(routes.deleteMessage, { params: { id: reaction.id } })).status).toBe(200);
    expect((await stored(target.id))?.encryptedContent).not.toBeNull();
    expect((await alice.history(bob.id)).map((m) => m.id)).toEqual([target.id]);
  });

  it('never lets an annotation outlive its target, and the sweep erases them together', async () => {
    const { alice, bob } = await pair('expiry');
    const bobSocket = await bob.connect();
    const forever = await sent(alice, bob.id, 'no timer');
    await bob.attempt(routes.setDisappearing, { body: { receiverId: alice.id, seconds: HOUR } });
    const timed = await sent(alice, bob.id, 'an hour');
    await bob.attempt(routes.setDisappearing, { body: { receiverId: alice.id, seconds: 86_400 } });
    // The conversation's timer is a day now: the annotation of the hour-long message takes its expiry.
    const onTimed = await annotated(bob, alice.id, timed.id, react('👍'));
    expect(onTimed.expiresAt).toBe(timed.expiresAt);
    expect((await stored(onTimed.id))!.expiresAt!.getTime()).toBe((await stored(timed.id))!.expiresAt!.getTime());
    // A message without an expiry: the annotation follows the conversation's timer.
    const onForever = await annotated(bob, alice.id, forever.id, react('👍'));
    expect(Date.parse(onForever.expiresAt!) - Date.parse(onForever.timestamp)).toBe(86_400_000);

    // The target expires (moved into the past); its annotation goes with it in the same sweep.
    await database.db
      .update(messages)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(messages.id, timed.id));
    await sweepExpired({
      db: database.db,
      gateway: server.app.gateway,
      attachments: server.app.attachments,
      scrubber: server.app.scrubber,
    });
    await bobSocket.waitFor(deletedFrame([timed.id, onTimed.id], 'expired'));
    bobSocket.close();
    expect((await stored(onTimed.id))?.encryptedContent).toBeNull();
    expect((await stored(onForever.id))?.encryptedContent).not.toBeNull();
  });

  it('hands a reader one message by id, and nobody else', async () => {
    const { alice, bob } = await pair('one');
    const eve = await join('eve-one');
    const dm = await sent(alice, bob.id, 'quoted later');
    const got = await bob.call(routes.message, { params: { id: dm.id } });
    expect(got.message).toEqual(dm);
    expect(got.shares.map((s) => s.epochId)).toEqual([dm.epochId]);
    expect((await bob.decrypt([got.message]))[0]?.text).toBe('quoted later');

    const outsider = await eve.attempt(routes.message, { params: { id: dm.id } });
    expect([outsider.status, outsider.error?.error]).toEqual([404, 'No such message']);
    expect((await bob.attempt(routes.message, { params: { id: 999_999_999 } })).status).toBe(404);
    // The channel's messages from before a member joined are not theirs to read either.
    const early = await sent(alice, 'all', 'before dave');
    const dave = await join('dave-one');
    expect((await dave.attempt(routes.message, { params: { id: early.id } })).status).toBe(404);
    expect((await bob.call(routes.message, { params: { id: early.id } })).message.id).toBe(early.id);

    expect((await alice.attempt(routes.deleteMessage, { params: { id: dm.id } })).status).toBe(200);
    const erased = await bob.attempt(routes.message, { params: { id: dm.id } });
    expect([erased.status, erased.error?.error]).toEqual([404, errorTexts.messageDeleted]);
  });
});
