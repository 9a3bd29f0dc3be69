/**
 * Private groups end to end through the real client (packages/client/src/groups.ts): the name
 * sealed for the members and opened by each, messages readable by exactly the members of the
 * moment, a removed member reading nothing later (checked with their real keys against the
 * database's own rows), additions reading from their addition on, bans moving the member set,
 * the admins' view without names, and the bounds.
 */
import { randomUUID } from 'node:crypto';
import { limits, routes, type EpochShare } from '@enclave/protocol';
import { and, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { epochShares, epochs, groupMembers, groups, messages, users } from '../db/schema';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** Rows of banned accounts (no keys anyone could use), to fill a group up to a bound without signing anyone up. */
const bannedAccounts = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    username: `${prefix}-${i}`,
    loginKeyHash: randomUUID(),
    encryptionPublicKey: 'A'.repeat(392),
    signingPublicKey: 'A'.repeat(124),
    encryptedPrivateKey: 'A'.repeat(64),
    isBanned: true,
  }));

describe.each(backends)('private groups (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;
  let dave: TestMember;

  beforeAll(async () => {
    [alice, bob, carol, dave] = await suite.members('alice', 'bob', 'carol', 'dave');
  });

  const texts = async (member: TestMember, groupId: string) => (await member.decrypt(await member.history(groupId))).map((m) => m.text);
  const sent = async (member: TestMember, groupId: string, text: string) => {
    const res = await member.send(groupId, text);
    expect(res.status).toBe(201);
    return res.body!.message;
  };
  /** What `member` opens of these messages with their real keys, given only the database's rows: their shares and the public keys. */
  const readFromDatabase = async (member: TestMember, ids: number[]) => {
    const { db } = suite.database;
    const rows = await db.select().from(messages).where(inArray(messages.id, ids));
    const shares: EpochShare[] = (
      await db
        .select()
        .from(epochShares)
        .innerJoin(epochs, eq(epochs.id, epochShares.epochId))
        .where(eq(epochShares.recipientId, member.id))
    ).map(({ epochs: e, epoch_shares: s }) => ({
      epochId: e.id,
      conversationId: e.conversationId,
      senderId: e.senderId,
      membershipVersion: e.membershipVersion,
      wrappedKey: s.wrappedKey,
      signature: s.signature,
    }));
    // The public keys as any member lists them (a banned member cannot ask).
    const publicUsers = (await alice.call(routes.users, {})).users;
    const asMessages = rows.map((r) => ({
      id: r.id,
      conversationId: r.conversationId,
      senderId: r.senderId,
      senderUsername: '',
      epochId: r.epochId,
      index: r.index,
      encryptedContent: r.encryptedContent!,
      timestamp: r.createdAt.toISOString(),
      expiresAt: null,
      clientMessageId: null,
      targetId: null,
    }));
    return (await member.decrypt(asMessages, { shares, users: publicUsers })).map((m) => m.text);
  };

  it('seals the name for its members, who each open it; the server holds no name and the admins see only that it exists', async () => {
    const group = await alice.client.groups.create('Project Falcon', [bob.id, carol.id]);
    expect(group.id).toMatch(/^group:/);
    for (const member of [alice, bob, carol]) {
      const [listed] = (await member.client.groups.list()).filter((g) => g.id === group.id);
      expect(listed?.name).toBe('Project Falcon');
      expect(listed?.members.map((m) => [m.username, m.isAdmin])).toEqual([
        ['alice', true],
        ['bob', false],
        ['carol', false],
      ]);
    }
    expect((await dave.client.groups.list()).map((g) => g.id)).not.toContain(group.id);

    const [row] = await suite.database.db.select().from(groups).where(eq(groups.id, group.id));
    expect(JSON.stringify(row)).not.toContain('Falcon');
    const admin = await new TestMember.Anonymous(suite.server.url).call(routes.adminGroups, {}, creatorHeaders);
    expect(admin.groups.find((g) => g.id === group.id)).toEqual({ id: group.id, memberCount: 3, createdAt: expect.any(String) });
    expect(JSON.stringify(admin)).not.toMatch(/Falcon|alice|bob|carol/);

    // A server that swaps in another group's sealed name gets "no name", never the other name.
    const other = await alice.client.groups.create('Another', [bob.id]);
    const [otherRow] = await suite.database.db.select().from(groups).where(eq(groups.id, other.id));
    await suite.database.db.update(groups).set({ encryptedName: otherRow!.encryptedName }).where(eq(groups.id, group.id));
    expect((await bob.client.groups.list()).find((g) => g.id === group.id)?.name).toBeNull();
    await suite.database.db.update(groups).set({ encryptedName: row!.encryptedName }).where(eq(groups.id, group.id));
  });

  it('carries messages to exactly its members; anyone else is told it does not exist', async () => {
    const group = await alice.client.groups.create('Three', [bob.id, carol.id]);
    await sent(alice, group.id, 'hello three');
    await sent(bob, group.id, 'hello from bob');
    for (const member of [alice, bob, carol]) expect(await texts(member, group.id)).toEqual(['hello three', 'hello from bob']);
    const stored = await suite.database.db.select().from(messages).where(eq(messages.conversationId, group.id));
    expect(JSON.stringify(stored)).not.toContain('hello');

    for (const outcome of [
      await dave.attempt(routes.history, { query: { receiverId: group.id } }),
      await dave.attempt(routes.conversationMembers, { query: { receiverId: group.id } }),
      await dave.attempt(routes.setDisappearing, { body: { receiverId: group.id, seconds: 3600 } }),
      await dave.attempt(routes.addGroupMembers, {
        body: { groupId: group.id, memberIds: [dave.id], name: (await sealedFor(group.id)).name },
      }),
    ]) {
      expect(outcome.status).toBe(404);
      expect(outcome.error?.error).toBe('No such group');
    }
    await expect(dave.send(group.id, 'let me in')).rejects.toMatchObject({ outcome: { status: 404 } });
  });

  it('relays typing and new messages to its members only', async () => {
    const group = await alice.client.groups.create('Typing', [bob.id]);
    const [aliceSocket, bobSocket, daveSocket] = await Promise.all([alice.connect(), bob.connect(), dave.connect()]);
    try {
      aliceSocket.send({ type: 'typing', conversationId: group.id });
      await bobSocket.waitFor((f) => f.type === 'typing' && f.conversationId === group.id && f.userId === alice.id);
      const message = await sent(alice, group.id, 'only for us');
      await bobSocket.waitFor((f) => f.type === 'chat_message' && f.message.id === message.id);
      // Dave's own DM after both: frames reach a socket in order, so had he been told of the group he would have been by now.
      const mark = await sent(alice, dave.id, 'mark');
      await daveSocket.waitFor((f) => f.type === 'chat_message' && f.message.id === mark.id);
      expect(daveSocket.frames.filter((f) => 'conversationId' in f && f.conversationId === group.id)).toEqual([]);
      expect(daveSocket.frames.filter((f) => f.type === 'chat_message' && f.message.conversationId === group.id)).toEqual([]);
    } finally {
      for (const socket of [aliceSocket, bobSocket, daveSocket]) socket.close();
    }
  });

  /** A well-formed (if unopenable) sealed name, for refusals that come before its shares are looked at. */
  const sealedFor = async (groupId: string) => ({
    groupId,
    name: {
      epochId: randomUUID(),
      membershipVersion: 2,
      shares: [{ recipientId: alice.id, wrappedKey: 'A'.repeat(344), signature: 'A'.repeat(88) }],
      encryptedName: '{}',
    },
  });

  it('a removed member gets no key of any later message, and cannot open one with their real keys', async () => {
    const group = await alice.client.groups.create('Removal', [bob.id, carol.id]);
    const before = await sent(alice, group.id, 'before removal');
    const carolSocket = await carol.connect();
    try {
      const told = carolSocket.waitFor((f) => f.type === 'membership_changed' && f.conversationId === group.id);
      await alice.client.groups.remove(group.id, carol.id);
      await told;
    } finally {
      carolSocket.close();
    }
    const after = await sent(alice, group.id, 'after removal');
    const fromBob = await sent(bob, group.id, 'bob after removal');

    expect(await texts(bob, group.id)).toEqual(['before removal', 'after removal', 'bob after removal']);
    expect((await carol.client.groups.list()).map((g) => g.id)).not.toContain(group.id);
    expect((await carol.attempt(routes.history, { query: { receiverId: group.id } })).status).toBe(404);
    // No share of a later epoch was wrapped for her: with her real keys and every row the database
    // holds, she opens what she could read before and nothing after.
    expect(await readFromDatabase(carol, [before.id, after.id, fromBob.id])).toEqual(['before removal', null, null]);
    const laterEpochs = [after.epochId, fromBob.epochId];
    const hers = await suite.database.db
      .select()
      .from(epochShares)
      .where(and(eq(epochShares.recipientId, carol.id), inArray(epochShares.epochId, laterEpochs)));
    expect(hers).toEqual([]);
  });

  it('only its admins remove others; anyone leaves; the eldest takes over from the last admin; the last one out erases it', async () => {
    const group = await alice.client.groups.create('Admins', [bob.id, carol.id]);
    const refused = await bob.attempt(routes.removeGroupMember, { body: { groupId: group.id, memberId: carol.id } });
    expect(refused.status).toBe(403);
    expect(refused.error?.error).toBe("Only the group's admins can remove members");
    await alice.client.groups.remove(group.id, alice.id);
    expect((await alice.attempt(routes.history, { query: { receiverId: group.id } })).status).toBe(404);
    const [left] = (await bob.client.groups.list()).filter((g) => g.id === group.id);
    const admins = left?.members.filter((m) => m.isAdmin) ?? [];
    expect(admins).toHaveLength(1);
    const [admin, other] = admins[0]!.id === bob.id ? [bob, carol] : [carol, bob];
    await sent(admin, group.id, 'the last words');
    await admin.client.groups.remove(group.id, other.id);
    expect((await admin.client.groups.list()).find((g) => g.id === group.id)?.members.map((m) => m.id)).toEqual([admin.id]);
    // The last one out: the group goes, and its messages are erased.
    await admin.client.groups.remove(group.id, admin.id);
    const { db } = suite.database;
    expect(await db.select().from(groups).where(eq(groups.id, group.id))).toEqual([]);
    const held = await db.select().from(messages).where(eq(messages.conversationId, group.id));
    expect(held.length).toBeGreaterThan(0);
    expect(held.map((m) => m.encryptedContent)).toEqual(held.map(() => null));
  });

  it('passes the admin mark to the eldest member in good standing, not to a banned one', async () => {
    const [gina, hank, ida] = await suite.members('gina', 'hank', 'ida');
    const group = await gina.client.groups.create('Standing', [hank.id]);
    await gina.client.groups.add({ id: group.id, name: 'Standing' }, [ida.id]);
    const creator = new TestMember.Anonymous(suite.server.url);
    await creator.call(routes.creatorBan, { body: { userId: hank.id, reason: 'spam' } }, creatorHeaders);
    await gina.client.groups.remove(group.id, gina.id);
    const rows = await suite.database.db.select().from(groupMembers).where(eq(groupMembers.groupId, group.id));
    expect(rows.filter((m) => m.isAdmin).map((m) => m.userId)).toEqual([ida.id]);
  });

  it('a member added later reads from their addition on, the name included', async () => {
    const group = await alice.client.groups.create('Later', [bob.id]);
    await sent(bob, group.id, 'before dave');
    await alice.client.groups.add({ id: group.id, name: 'Later' }, [dave.id]);
    await sent(bob, group.id, 'after dave');
    expect(await texts(dave, group.id)).toEqual(['after dave']);
    const [listed] = (await dave.client.groups.list()).filter((g) => g.id === group.id);
    expect(listed?.name).toBe('Later');
    const again = await alice.attempt(routes.addGroupMembers, { body: { ...(await sealedFor(group.id)), memberIds: [dave.id] } });
    expect(again.status).toBe(409);
  });

  it('a ban takes the member out of every later epoch, and an unban brings them back', async () => {
    const [erin] = await suite.members('erin');
    const group = await alice.client.groups.create('Ban', [erin.id, bob.id]);
    const creator = new TestMember.Anonymous(suite.server.url);
    await creator.call(routes.creatorBan, { body: { userId: erin.id, reason: 'spam' } }, creatorHeaders);
    const during = await sent(alice, group.id, 'while erin is banned');
    const members = await alice.call(routes.conversationMembers, { query: { receiverId: group.id } });
    expect(members.members.map((m) => m.id)).not.toContain(erin.id);
    expect(await readFromDatabase(erin, [during.id])).toEqual([null]);
    await creator.call(routes.creatorUnban, { body: { userId: erin.id } }, creatorHeaders);
    await erin.login();
    const after = await sent(alice, group.id, 'erin is back');
    expect(await readFromDatabase(erin, [after.id])).toEqual(['erin is back']);
  });

  it('shows read receipts to the members who send them, in groups of up to 32', async () => {
    const group = await alice.client.groups.create('Receipts', [bob.id, carol.id]);
    const message = await sent(alice, group.id, 'read me');
    for (const member of [alice, bob, carol]) await member.call(routes.setReadReceipts, { body: { enabled: member !== carol } });
    const aliceSocket = await alice.connect();
    try {
      const relayed = aliceSocket.waitFor((f) => f.type === 'read_position' && f.conversationId === group.id && f.userId === bob.id);
      expect(await bob.call(routes.markRead, { body: { receiverId: group.id, messageId: message.id } })).toEqual({ stored: true });
      await relayed;
    } finally {
      aliceSocket.close();
    }
    // Carol sends none: her read is not kept, and she sees nobody's.
    expect(await carol.call(routes.markRead, { body: { receiverId: group.id, messageId: message.id } })).toEqual({ stored: false });
    const seen = async (m: TestMember) =>
      (await m.call(routes.readPosition, { query: { receiverId: group.id } })).positions.map((p) => p.userId);
    expect(await seen(alice)).toEqual([bob.id]);
    expect(await seen(carol)).toEqual([]);
    expect((await dave.attempt(routes.readPosition, { query: { receiverId: group.id } })).status).toBe(404);

    // A larger group has none (banned fillers count as members).
    const { db } = suite.database;
    const fillers = bannedAccounts(limits.readReceiptsMaxGroupMembers - 2, 'reader');
    const ids = await db.insert(users).values(fillers).returning({ id: users.id });
    await db.insert(groupMembers).values(ids.map(({ id: userId }) => ({ groupId: group.id, userId })));
    expect(await alice.call(routes.markRead, { body: { receiverId: group.id, messageId: message.id } })).toEqual({ stored: false });
    expect(await seen(alice)).toEqual([]);
    for (const member of [alice, bob]) await member.call(routes.setReadReceipts, { body: { enabled: false } });
  });

  it('refuses what would pass its bounds', async () => {
    const tooMany = Array.from({ length: limits.groupMaxMembers }, () => randomUUID());
    const big = await alice.attempt(routes.createGroup, {
      body: { ...(await sealedFor(`group:${randomUUID()}`)), memberIds: tooMany },
    });
    expect(big.status).toBe(400);
    const withSelf = await alice.attempt(routes.createGroup, {
      body: { ...(await sealedFor(`group:${randomUUID()}`)), memberIds: [alice.id] },
    });
    expect(withSelf.status).toBe(400);
    // A member's groups are bounded: rows made directly, then one more refused.
    const { db } = suite.database;
    const [frank] = await suite.members('frank');
    const filler = Array.from({ length: limits.groupsPerMember }, () => `group:${randomUUID()}`);
    await db.insert(groups).values(filler.map((id) => ({ id, nameEpochId: randomUUID(), nameSenderId: frank.id, encryptedName: 'x' })));
    await db.insert(groupMembers).values(filler.map((groupId) => ({ groupId, userId: frank.id })));
    await expect(alice.client.groups.create('One too many', [frank.id])).rejects.toMatchObject({
      outcome: { status: 409, error: { error: `A member may belong to at most ${limits.groupsPerMember} groups` } },
    });
    await db.delete(groups).where(inArray(groups.id, filler));
    // ...and so are its members, counted under the group's lock (banned fillers: no share is owed them).
    const group = await alice.client.groups.create('Full', [bob.id]);
    const fillers = bannedAccounts(limits.groupMaxMembers - 2, 'filler');
    const ids = await db.insert(users).values(fillers).returning({ id: users.id });
    await db.insert(groupMembers).values(ids.map(({ id: userId }) => ({ groupId: group.id, userId })));
    const full = await alice.attempt(routes.addGroupMembers, { body: { ...(await sealedFor(group.id)), memberIds: [dave.id] } });
    expect(full.status).toBe(409);
    expect(full.error?.error).toBe(`A group holds at most ${limits.groupMaxMembers} members`);
  });
});
