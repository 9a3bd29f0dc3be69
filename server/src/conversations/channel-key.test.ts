/**
 * The general channel's key over the server (server/src/conversations/channel-key.ts), driven with
 * the members' real keys and @enclave/crypto: a removal takes the key out of force and one client's
 * claim makes the next, uploaded in batches; a join costs the senders no wrap (one share for the
 * newcomer), and the newcomer reads from their generation on and nothing before; a removed member
 * gets no share of the next epoch and cannot open a later message with their real keys.
 */
import {
  advanceChannelSecret,
  decryptMessage,
  encryptMessage,
  newChannelSecret,
  openChannelShare,
  senderChainKey,
  startWrap,
  wrapShares,
  importPublicIdentity,
  type ChannelSecret,
  type SignedShareRecipient,
} from '@enclave/crypto';
import { routes, type ChannelKeyState, type ChannelWrapHeader } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { channelShares, channelWraps, conversations, epochShares } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe.each(backends)("the general channel's key (%s)", (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const creator = () => new TestMember.Anonymous(suite.server.url);

  const byId = new Map<string, TestMember>();
  /** A new member, registered with their share key as the web app does. */
  const join = async (name: string) => {
    const member = await TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
    byId.set(member.id, member);
    return member;
  };
  /** Takes the key in force out of force, as any removal does: the creator bans a member who joined for it. */
  const removeSomeone = async () => {
    if ((await state(alice)).epoch)
      await creator().call(routes.creatorBan, { body: { userId: (await join(`removed${byId.size}`)).id } }, creatorHeaders);
  };
  const state = (m: TestMember): Promise<ChannelKeyState> => m.call(routes.channelKey, {});
  /** The member as a wrapper takes them: their share key with their signature over it, and their signing key. */
  const self = (m: TestMember): SignedShareRecipient => ({
    id: m.id,
    sharePublicKey: m.identity.share.sharePublicKey,
    signature: m.identity.share.signature,
    signingPublicKey: m.identity.publicIdentity.signingPublicKey,
  });

  /** What a member's client does after a removal: claim, wrap for every member in `batch`-sized uploads, activate. */
  async function rekey(by: TestMember, batch = 2): Promise<ChannelSecret> {
    const secret = await newChannelSecret('general', crypto.randomUUID());
    expect((await by.attempt(routes.claimChannelEpoch, { body: { epochId: secret.epochId } })).status).toBe(200);
    const { members } = await by.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    const recipients = members.flatMap((m) => (m.shareKey ? [self(byId.get(m.id)!)] : []));
    const { header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: by.id, signKey: by.identity.signKey });
    const shares = await wrapShares({ header, secret, ephemeralPrivateKey, recipients });
    for (let i = 0; i < shares.length; i += batch) {
      expect((await by.attempt(routes.uploadChannelShares, { body: { header, shares: shares.slice(i, i + batch) } })).status).toBe(200);
    }
    expect((await by.attempt(routes.activateChannelEpoch, { body: { epochId: secret.epochId } })).status).toBe(200);
    return secret;
  }

  /** A member's channel secret at the current generation (or `generation`), from their own share as the server gives it. */
  async function secretOf(m: TestMember, generation?: number): Promise<ChannelSecret> {
    const { epoch, membershipVersion } = await state(m);
    const own = epoch?.ownShare;
    if (!epoch || !own) throw new Error(`${m.user.username} has no share`);
    const { verifyKey } = await importPublicIdentity(byId.get(own.header.wrapperId)!.identity.publicIdentity);
    const opened = await openChannelShare({
      header: own.header,
      wrappedKey: own.wrappedKey,
      self: self(m),
      sharePrivateKey: m.identity.share.privateKey,
      wrapperVerifyKey: verifyKey,
    });
    return advanceChannelSecret(opened, generation ?? membershipVersion - epoch.baseVersion);
  }

  /** Sends `text` on a sender epoch derived from `secret`; the server's answer status. */
  async function sendDerived(m: TestMember, secret: ChannelSecret, text: string) {
    const { epoch, membershipVersion } = await state(m);
    const epochId = crypto.randomUUID();
    const made = await m.attempt(routes.createSenderEpoch, {
      body: { epochId, channelEpochId: epoch?.id ?? secret.epochId, membershipVersion },
    });
    if (made.status !== 201) return { status: made.status, code: made.error?.code };
    const chainKey = await senderChainKey(secret, m.id, epochId);
    const senderEpoch = { epochId, conversationId: 'general', senderId: m.id, membershipVersion, chainKey };
    const encryptedContent = await encryptMessage({ epoch: senderEpoch, index: 0, plaintext: text, signKey: m.identity.signKey });
    const sent = await m.attempt(routes.sendMessage, {
      body: { receiverId: 'all', epochId, index: 0, encryptedContent, messageType: 'text' },
    });
    return { status: sent.status, code: sent.error?.code, message: sent.body?.message };
  }

  /** Whether `reader`, holding `secret`, opens `text`'s message from `sender` (its chain derived from the reader's secret). */
  async function opens(secret: ChannelSecret, sender: TestMember, sent: { epochId: string; index: number; encryptedContent: string }) {
    try {
      const chainKey = await senderChainKey(secret, sender.id, sent.epochId);
      const { verifyKey } = await importPublicIdentity(sender.identity.publicIdentity);
      const epoch = { epochId: sent.epochId, conversationId: 'general', senderId: sender.id, membershipVersion: 0, chainKey };
      return (await decryptMessage({ epoch, index: sent.index, encryptedContent: sent.encryptedContent, senderVerifyKey: verifyKey }))
        .plaintext;
    } catch {
      return null;
    }
  }

  let alice: TestMember;
  let bob: TestMember;

  beforeAll(async () => {
    alice = await join('alice');
    bob = await join('bob');
  });

  it('has no key in force at first; one claim makes it, a second claim is refused, and only the claimer uploads', async () => {
    await removeSomeone();
    expect((await state(alice)).epoch).toBeNull();

    const secret = await newChannelSecret('general', crypto.randomUUID());
    expect((await alice.attempt(routes.claimChannelEpoch, { body: { epochId: secret.epochId } })).status).toBe(200);
    const other = await bob.attempt(routes.claimChannelEpoch, { body: { epochId: crypto.randomUUID() } });
    expect(other.status).toBe(409);
    expect((await state(bob)).rekey).toMatchObject({ by: alice.id, epochId: secret.epochId });

    // Bob cannot upload into Alice's epoch, even under a header of his own.
    const bobs = await startWrap({ secret, wrapperId: bob.id, signKey: bob.identity.signKey });
    const intruding = await wrapShares({ ...bobs, secret, recipients: [self(bob)] });
    expect((await bob.attempt(routes.uploadChannelShares, { body: { header: bobs.header, shares: intruding } })).status).toBe(409);
    expect((await bob.attempt(routes.activateChannelEpoch, { body: { epochId: secret.epochId } })).status).toBe(409);
    // Nor can anyone claim a header that names someone else as its wrapper.
    const forged: ChannelWrapHeader = { ...bobs.header, wrapperId: alice.id };
    expect((await bob.attempt(routes.uploadChannelShares, { body: { header: forged, shares: intruding } })).status).toBe(400);
  });

  it('gives every member one share in batches, and a sender epoch derived from it sends and reads with no wrap', async () => {
    await removeSomeone();
    const secret = await rekey(alice, 1);
    const after = await state(bob);
    expect(after.epoch?.id).toBe(secret.epochId);
    expect(after.pending).toEqual([]);
    expect(after.rekey).toBeNull();

    const mine = await secretOf(bob);
    const sent = await sendDerived(alice, await advanceChannelSecret(secret, mine.generation), 'under the channel key');
    expect(sent.status).toBe(201);
    expect(await opens(mine, alice, sent.message!)).toBe('under the channel key');
    // The sender epoch has no shares: joining cost nobody a wrap.
    expect(await suite.database.db.select().from(epochShares).where(eq(epochShares.epochId, sent.message!.epochId))).toEqual([]);
  });

  it('lets a newcomer read from their join on, not before: the first sender wraps one share for them, the others none', async () => {
    if (!(await state(alice)).epoch) await rekey(alice);
    const before = await sendDerived(alice, await secretOf(alice), 'before carol');
    expect(before.status).toBe(201);

    const carol = await join('carol');
    // The join moved the version: Alice's epoch is stale, and no sender epoch is taken while Carol has no share.
    const stale = await alice.attempt(routes.sendMessage, {
      body: {
        receiverId: 'all',
        epochId: before.message!.epochId,
        index: 1,
        encryptedContent: before.message!.encryptedContent,
        messageType: 'text',
      },
    });
    expect(stale.error?.code).toBe('membership_changed');
    const pending = await state(bob);
    expect(pending.pending.map((p) => p.id)).toEqual([carol.id]);
    // Carol is to be given the generation she joined at, the current one.
    expect(pending.pending[0]!.generation).toBe(pending.membershipVersion - pending.epoch!.baseVersion);
    const bobSecret = await secretOf(bob);
    expect(await sendDerived(bob, bobSecret, 'too early')).toMatchObject({ status: 409, code: 'membership_changed' });

    // Bob, the first sender, wraps the current generation for Carol alone: one share.
    const { header, ephemeralPrivateKey } = await startWrap({ secret: bobSecret, wrapperId: bob.id, signKey: bob.identity.signKey });
    const shares = await wrapShares({ header, secret: bobSecret, ephemeralPrivateKey, recipients: [self(carol)] });
    // A share of a generation before she joined is refused (it would open what came before), and
    // so is one of a generation still to come.
    const at = (generation: number) =>
      startWrap({ secret: { ...bobSecret, generation }, wrapperId: bob.id, signKey: bob.identity.signKey });
    const earlier = await bob.attempt(routes.uploadChannelShares, {
      body: { header: (await at(bobSecret.generation - 1)).header, shares },
    });
    expect(earlier).toMatchObject({ status: 400, error: { error: 'header.generation: earlier than a recipient joined' } });
    const later = await bob.attempt(routes.uploadChannelShares, { body: { header: (await at(bobSecret.generation + 1)).header, shares } });
    expect(later.status).toBe(409);
    expect((await bob.attempt(routes.uploadChannelShares, { body: { header, shares } })).status).toBe(200);
    // The same upload again stores nothing, not even its header: Carol keeps the share she has.
    const wraps = async () => (await suite.database.db.select().from(channelWraps)).length;
    const held = await wraps();
    expect((await bob.attempt(routes.uploadChannelShares, { body: { header, shares } })).status).toBe(200);
    expect(await wraps()).toBe(held);

    const afterBob = await sendDerived(bob, bobSecret, 'after carol, from bob');
    expect(afterBob.status).toBe(201);
    const afterAlice = await sendDerived(alice, await secretOf(alice), 'after carol, from alice');
    expect(afterAlice.status).toBe(201);

    const carolSecret = await secretOf(carol);
    expect(carolSecret.generation).toBe(bobSecret.generation);
    expect(await opens(carolSecret, bob, afterBob.message!)).toBe('after carol, from bob');
    expect(await opens(carolSecret, alice, afterAlice.message!)).toBe('after carol, from alice');
    expect(await opens(carolSecret, alice, before.message!)).toBeNull();
    await expect(advanceChannelSecret(carolSecret, carolSecret.generation - 1)).rejects.toMatchObject({ kind: 'malformed' });

    // Her shares, as history answers carry them: her share of the channel epoch for what came after her join, nothing before.
    const ids = [before, afterBob, afterAlice].map((m) => m.message!.epochId);
    const { shares: carols } = await carol.call(routes.epochShares, { query: { ids: ids.join(',') } });
    expect(carols.map((s) => s.epochId).sort()).toEqual([afterBob.message!.epochId, afterAlice.message!.epochId].sort());
    for (const share of carols) {
      expect(share).toMatchObject({ senderId: expect.any(String), channel: { generation: carolSecret.generation } });
      expect('channel' in share && share.channel.share.header.epochId).toBe(carolSecret.epochId);
    }
  });

  it('lets a newcomer no one has wrapped for make the next key, which takes the place of the one in force', async () => {
    if (!(await state(alice)).epoch) await rekey(alice);
    const old = (await state(alice)).epoch!.id;
    // Alice holds a share of the key in force: she has no reason to replace it.
    expect((await alice.attempt(routes.claimChannelEpoch, { body: { epochId: crypto.randomUUID() } })).status).toBe(409);

    const erin = await join('erin');
    expect((await state(erin)).epoch?.ownShare).toBeNull();
    const next = await rekey(erin);
    expect(next.epochId).not.toBe(old);
    expect((await state(alice)).epoch?.id).toBe(next.epochId);
    const sent = await sendDerived(erin, await secretOf(erin), 'from the newcomer');
    expect(sent.status).toBe(201);
    expect(await opens(await secretOf(alice), erin, sent.message!)).toBe('from the newcomer');
  });

  it("after a creator's ban: the key leaves force, the next epoch gives the banned member no share, and they open nothing later", async () => {
    if (!(await state(alice)).epoch) await rekey(alice);
    const dave = await join('dave');
    // Dave gets his share as a newcomer and can read the channel.
    const aliceSecret = await secretOf(alice);
    const { header, ephemeralPrivateKey } = await startWrap({ secret: aliceSecret, wrapperId: alice.id, signKey: alice.identity.signKey });
    const shares = await wrapShares({ header, secret: aliceSecret, ephemeralPrivateKey, recipients: [self(dave)] });
    await alice.call(routes.uploadChannelShares, { body: { header, shares } });
    const daveOld = await secretOf(dave);

    await creator().call(routes.creatorBan, { body: { userId: dave.id, reason: 'leaked' } }, creatorHeaders);
    expect((await state(alice)).epoch).toBeNull();
    expect(await sendDerived(alice, aliceSecret, 'after the ban, old key')).toMatchObject({ status: 409 });

    const next = await rekey(bob, 3);
    const rows = await suite.database.db.select().from(channelShares).where(eq(channelShares.channelEpochId, next.epochId));
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.map((r) => r.recipientId)).not.toContain(dave.id);

    const sent = await sendDerived(alice, await secretOf(alice), 'after the ban');
    expect(sent.status).toBe(201);
    expect(await opens(await secretOf(bob), alice, sent.message!)).toBe('after the ban');
    // Dave's real keys: his share of the old epoch, ratcheted any distance, opens nothing sent under the new one.
    for (const g of [0, 1, 5])
      expect(await opens(await advanceChannelSecret(daveOld, daveOld.generation + g), alice, sent.message!)).toBeNull();
  });

  it('activates a new key before every member has a share: sends go on, and a member reads once the claimer wraps for them', async () => {
    await removeSomeone();
    const carol = await join('carol2');
    const carolSocket = await carol.connect();
    const secret = await newChannelSecret('general', crypto.randomUUID());
    await alice.call(routes.claimChannelEpoch, { body: { epochId: secret.epochId } });
    const { pending } = await state(alice);
    expect(pending.map((p) => p.id)).toContain(carol.id);
    expect(pending.every((p) => p.generation === 0)).toBe(true);
    // Everyone but Carol first, as a claimer wraps the most recently signed in first; then activation.
    const first = pending.filter((p) => p.id !== carol.id).map((p) => self(byId.get(p.id)!));
    const wrap = async (generation: number, recipients: SignedShareRecipient[]) => {
      const at = await advanceChannelSecret(secret, generation);
      const { header, ephemeralPrivateKey } = await startWrap({ secret: at, wrapperId: alice.id, signKey: alice.identity.signKey });
      return { header, shares: await wrapShares({ header, secret: at, ephemeralPrivateKey, recipients }) };
    };
    await alice.call(routes.uploadChannelShares, { body: await wrap(0, first) });
    await alice.call(routes.activateChannelEpoch, { body: { epochId: secret.epochId } });

    // The claim holds on while Carol has no share: only Alice wraps for her, and Bob sends meanwhile.
    expect((await state(alice)).rekey).toMatchObject({ by: alice.id, epochId: secret.epochId });
    expect((await state(alice)).pending.map((p) => p.id)).toEqual([carol.id]);
    expect((await state(bob)).pending).toEqual([]);
    expect((await bob.attempt(routes.claimChannelEpoch, { body: { epochId: crypto.randomUUID() } })).status).toBe(409);
    const sent = await sendDerived(bob, await secretOf(bob), 'during the wrap');
    expect(sent.status).toBe(201);
    const ids = sent.message!.epochId;
    // Carol is told her share is coming, not that the message was not for her.
    expect(await carol.call(routes.epochShares, { query: { ids } })).toEqual({ shares: [{ epochId: ids, awaiting: true }] });

    // A newcomer during the wrap is to be given the generation they joined at, never an earlier one.
    const dave = await join('dave2');
    const { pending: left } = await state(alice);
    expect(left.map((p) => [p.id, p.generation])).toEqual(
      expect.arrayContaining([
        [carol.id, 0],
        [dave.id, 1],
      ]),
    );
    const early = await alice.attempt(routes.uploadChannelShares, { body: await wrap(0, [self(carol), self(dave)]) });
    expect(early).toMatchObject({ status: 400, error: { error: 'header.generation: earlier than a recipient joined' } });
    expect(await dave.call(routes.epochShares, { query: { ids } })).toEqual({ shares: [] });

    await alice.call(routes.uploadChannelShares, { body: await wrap(0, [self(carol)]) });
    expect(await carolSocket.waitFor((f) => f.type === 'channel_share')).toEqual({ type: 'channel_share', epochId: secret.epochId });
    expect(await opens(await secretOf(carol, 0), bob, sent.message!)).toBe('during the wrap');
    await alice.call(routes.uploadChannelShares, { body: await wrap(1, [self(dave)]) });
    // The last member reached: the claim ends, and Dave opens nothing from before he joined.
    expect((await state(alice)).rekey).toBeNull();
    expect(await opens(await secretOf(dave), bob, sent.message!)).toBeNull();
    carolSocket.close();
  });

  it("lets another member take over a claim that lapsed, the lapsed claim's epoch and shares deleted with it", async () => {
    await removeSomeone();
    const abandoned = await newChannelSecret('general', crypto.randomUUID());
    await alice.call(routes.claimChannelEpoch, { body: { epochId: abandoned.epochId } });
    const { header, ephemeralPrivateKey } = await startWrap({ secret: abandoned, wrapperId: alice.id, signKey: alice.identity.signKey });
    const shares = await wrapShares({ header, secret: abandoned, ephemeralPrivateKey, recipients: [self(alice), self(bob)] });
    await alice.call(routes.uploadChannelShares, { body: { header, shares: shares.slice(0, 1) } });
    expect((await bob.attempt(routes.claimChannelEpoch, { body: { epochId: crypto.randomUUID() } })).status).toBe(409);

    // Two minutes without an upload: the claim lapses.
    await suite.database.db
      .update(conversations)
      .set({ rekeyUntil: new Date(Date.now() - 1000) })
      .where(eq(conversations.id, 'general'));
    const next = crypto.randomUUID();
    expect((await bob.attempt(routes.claimChannelEpoch, { body: { epochId: next } })).status).toBe(200);
    expect(await suite.database.db.select().from(channelShares).where(eq(channelShares.channelEpochId, abandoned.epochId))).toEqual([]);
    expect((await alice.attempt(routes.uploadChannelShares, { body: { header, shares: shares.slice(1) } })).status).toBe(409);
    expect((await alice.attempt(routes.activateChannelEpoch, { body: { epochId: abandoned.epochId } })).status).toBe(409);
    expect((await state(alice)).rekey).toMatchObject({ by: bob.id, epochId: next });
  });

  it('lets concurrent claimers converge on one epoch: one claim holds, the others are refused', async () => {
    await removeSomeone();
    const claimers = [alice, bob, await join('claimer')];
    const ids = claimers.map(() => crypto.randomUUID());
    const answers = await Promise.all(claimers.map((m, i) => m.attempt(routes.claimChannelEpoch, { body: { epochId: ids[i]! } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.findIndex((a) => a.status === 200);
    expect((await state(alice)).rekey).toMatchObject({ by: claimers[winner]!.id, epochId: ids[winner] });
  });

  it('lets a removal during the wrap end the claim, so the next key is made without waiting for it', async () => {
    // The claims of the test before lapse.
    await suite.database.db
      .update(conversations)
      .set({ rekeyUntil: new Date(Date.now() - 1000) })
      .where(eq(conversations.id, 'general'));
    await removeSomeone();
    const secret = await newChannelSecret('general', crypto.randomUUID());
    await alice.call(routes.claimChannelEpoch, { body: { epochId: secret.epochId } });
    const { header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: alice.id, signKey: alice.identity.signKey });
    await alice.call(routes.uploadChannelShares, {
      body: { header, shares: await wrapShares({ header, secret, ephemeralPrivateKey, recipients: [self(alice)] }) },
    });
    await alice.call(routes.activateChannelEpoch, { body: { epochId: secret.epochId } });
    expect((await state(bob)).rekey).toMatchObject({ by: alice.id });
    const sent = await sendDerived(alice, secret, 'before the next removal');
    const ids = sent.message!.epochId;
    // Alice's wrap stopped and her claim lapsed: Bob's share is still to come, from the next sender.
    await suite.database.db
      .update(conversations)
      .set({ rekeyUntil: new Date(Date.now() - 1000) })
      .where(eq(conversations.id, 'general'));
    expect(await bob.call(routes.epochShares, { query: { ids } })).toEqual({ shares: [{ epochId: ids, awaiting: true }] });
    await removeSomeone();
    expect(await state(bob)).toMatchObject({ epoch: null, rekey: null });
    // Once that key is retired, no share of it ever comes.
    expect(await bob.call(routes.epochShares, { query: { ids } })).toEqual({ shares: [] });
    expect((await bob.attempt(routes.claimChannelEpoch, { body: { epochId: crypto.randomUUID() } })).status).toBe(200);
    // The retired key stays, shares and all: what was sent under it is still read by those who hold one.
    expect(await suite.database.db.select().from(channelShares).where(eq(channelShares.channelEpochId, secret.epochId))).toHaveLength(1);
  });
});
