/**
 * Private groups (docs/security.md §4): the server keeps who belongs, since when and who may remove
 * others; the name reaches it sealed for the members (an epoch of the sealer, stored as any epoch,
 * and the name's ciphertext). Every change of the member set moves the group's membership version
 * in the transaction that makes it, so no later epoch is wrapped for a member who left, and the
 * members (the removed one included) are told after the commit.
 */
import { errorCodes, limits, routes, type Group, type SealedGroupName, type WrappedEpochShare } from '@enclave/protocol';
import { and, asc, count, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { isWritable } from '../access/rules';
import { deleteMessageAttachments } from '../attachments/service';
import type { AppContext } from '../context';
import { audienceOf, conversationFor, groupMembership } from '../conversations/membership';
import { assertSharesCover, membershipChanged, perMember, sharesFor, storeEpoch } from '../conversations/routes';
import type { Db } from '../db/client';
import { conversations, groupMembers, groups, messages, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { membershipChanged as announceMembership } from '../realtime/publish';

const tooMany = () => new HttpError(409, errorCodes.conflict, `A group holds at most ${limits.groupMaxMembers} members`);

/** The caller's groups (or the one named), with their members in good standing and the caller's share of each name. */
async function groupsOf(db: Db, me: string, only?: string): Promise<Group[]> {
  const rows = await db
    .select({
      id: groups.id,
      createdAt: groups.createdAt,
      nameEpochId: groups.nameEpochId,
      nameSenderId: groups.nameSenderId,
      encryptedName: groups.encryptedName,
      membershipVersion: conversations.membershipVersion,
    })
    .from(groupMembers)
    .innerJoin(groups, eq(groups.id, groupMembers.groupId))
    .innerJoin(conversations, eq(conversations.id, groups.id))
    .where(and(eq(groupMembers.userId, me), only ? eq(groups.id, only) : undefined))
    .orderBy(desc(groups.createdAt));
  if (!rows.length) return [];
  const ids = rows.map((g) => g.id);
  const [members, shares] = await Promise.all([
    db
      .select({ groupId: groupMembers.groupId, id: users.id, username: users.username, isAdmin: groupMembers.isAdmin })
      .from(groupMembers)
      .innerJoin(users, eq(users.id, groupMembers.userId))
      .where(and(inArray(groupMembers.groupId, ids), eq(users.isBanned, false), eq(users.isCompromised, false)))
      .orderBy(desc(groupMembers.isAdmin), asc(groupMembers.addedAt), asc(users.username)),
    sharesFor(
      db,
      me,
      rows.map((g) => g.nameEpochId),
    ),
  ]);
  return rows.map((g) => ({
    id: g.id,
    membershipVersion: g.membershipVersion,
    createdAt: g.createdAt.toISOString(),
    members: members.filter((m) => m.groupId === g.id).map(({ groupId: _g, ...m }) => m),
    name: { epochId: g.nameEpochId, senderId: g.nameSenderId, encryptedName: g.encryptedName },
    nameShare: shares.find((s): s is WrappedEpochShare => s.epochId === g.nameEpochId && 'wrappedKey' in s) ?? null,
  }));
}

/**
 * Inside the caller's transaction: these members may join (they exist, are neither banned nor
 * wiped, and are in fewer than `groupsPerMember` groups), or the refusal.
 */
async function assertMayJoin(tx: Db, ids: readonly string[]): Promise<void> {
  const found = await tx
    .select({ id: users.id, isBanned: users.isBanned, isCompromised: users.isCompromised })
    .from(users)
    .where(inArray(users.id, [...ids]));
  if (found.length !== ids.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
  if (!found.every(isWritable)) throw new HttpError(403, errorCodes.forbidden, 'This member is banned');
  const full = await tx
    .select({ userId: groupMembers.userId })
    .from(groupMembers)
    .where(inArray(groupMembers.userId, [...ids]))
    .groupBy(groupMembers.userId)
    .having(sql`count(*) >= ${limits.groupsPerMember}`);
  if (full.length) throw new HttpError(409, errorCodes.conflict, `A member may belong to at most ${limits.groupsPerMember} groups`);
}

/** Inside the caller's transaction, the member set at `name.membershipVersion`: the sealed name replaces the group's. */
async function storeName(tx: Db, groupId: string, me: string, name: SealedGroupName): Promise<void> {
  await assertSharesCover(tx, groupId, name.shares);
  await storeEpoch(tx, { id: name.epochId, conversationId: groupId, senderId: me, membershipVersion: name.membershipVersion }, name.shares);
  await tx
    .update(groups)
    .set({ nameEpochId: name.epochId, nameSenderId: me, encryptedName: name.encryptedName })
    .where(eq(groups.id, groupId));
}

/** Inside the caller's transaction: the group's member set moves on; answers the new version. */
async function bump(tx: Db, groupId: string): Promise<number> {
  const [row] = await tx
    .update(conversations)
    .set({ membershipVersion: sql`${conversations.membershipVersion} + 1` })
    .where(eq(conversations.id, groupId))
    .returning({ v: conversations.membershipVersion });
  if (!row) throw new Error('group without a conversation');
  return row.v;
}

/** Inside the caller's transaction: the group's row goes, and its messages are erased (answered by id). */
async function eraseGroup(tx: Db, groupId: string): Promise<number[]> {
  await tx.delete(groups).where(eq(groups.id, groupId));
  const erased = await tx
    .update(messages)
    .set({ encryptedContent: null })
    .where(and(eq(messages.conversationId, groupId), isNotNull(messages.encryptedContent)))
    .returning({ id: messages.id });
  return erased.map((m) => m.id);
}

/** Inside the caller's transaction: the group's version, its row locked against any other change of its members. */
async function lockedVersion(tx: Db, groupId: string): Promise<number> {
  const [row] = await tx.select().from(conversations).where(eq(conversations.id, groupId)).for('update');
  if (!row) throw new HttpError(404, errorCodes.notFound, 'No such group');
  return row.membershipVersion;
}

export async function groupRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, gateway } = ctx;
  const changes = { rateLimit: rateLimit(ctx.config.rateLimits.groupChange, perMember) };
  // A creation or an addition seals the name for up to 1,000 members (~600 bytes a share).
  const sealing = { ...changes, bodyLimit: limits.groupMaxMembers * 700 };
  const announce = async (groupId: string, version: number, also: readonly string[] = []) => {
    const members = await audienceOf(db, groupId);
    await announceMembership(gateway, [...new Set([...members, ...also])], groupId, version);
  };
  const one = async (me: string, groupId: string) => {
    const [group] = await groupsOf(db, me, groupId);
    if (!group) throw new HttpError(404, errorCodes.notFound, 'No such group');
    return { group };
  };

  serve(app, routes.groups, async (req) => ({ groups: await groupsOf(db, requireAuth(req).user.id) }));

  serve(
    app,
    routes.createGroup,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { groupId, memberIds, name } = req.body;
      const ids = [...new Set(memberIds)].filter((id) => id !== me);
      if (ids.length !== memberIds.length)
        throw new HttpError(400, errorCodes.invalidRequest, 'memberIds: each member once, yourself not among them');
      if (name.membershipVersion !== 1) throw membershipChanged();
      await db.transaction(async (tx) => {
        const [created] = await tx.insert(conversations).values({ id: groupId, membershipVersion: 1 }).onConflictDoNothing().returning();
        if (!created) throw new HttpError(409, errorCodes.conflict, 'This group already exists');
        await assertMayJoin(tx, [me, ...ids]);
        await tx.insert(groups).values({ id: groupId, nameEpochId: name.epochId, nameSenderId: me, encryptedName: name.encryptedName });
        await tx.insert(groupMembers).values([{ groupId, userId: me, isAdmin: true }, ...ids.map((userId) => ({ groupId, userId }))]);
        await storeName(tx, groupId, me, name);
      });
      await announce(groupId, 1);
      return one(me, groupId);
    },
    sealing,
  );

  serve(
    app,
    routes.addGroupMembers,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { groupId, memberIds, name } = req.body;
      await conversationFor(db, me, groupId, 'write');
      const ids = [...new Set(memberIds)];
      const version = await db.transaction(async (tx) => {
        const current = await lockedVersion(tx, groupId);
        if (name.membershipVersion !== current + 1) throw membershipChanged();
        // Checked again under the lock: a removal may have committed since.
        if (!(await groupMembership(tx, groupId, me))) throw new HttpError(404, errorCodes.notFound, 'No such group');
        const [held] = await tx.select({ n: count() }).from(groupMembers).where(eq(groupMembers.groupId, groupId));
        if ((held?.n ?? 0) + ids.length > limits.groupMaxMembers) throw tooMany();
        await assertMayJoin(tx, ids);
        const added = await tx
          .insert(groupMembers)
          .values(ids.map((userId) => ({ groupId, userId })))
          .onConflictDoNothing()
          .returning();
        if (added.length !== ids.length) throw new HttpError(409, errorCodes.conflict, 'Already a member of this group');
        const next = await bump(tx, groupId);
        await storeName(tx, groupId, me, name);
        return next;
      });
      await announce(groupId, version);
      return one(me, groupId);
    },
    sealing,
  );

  serve(
    app,
    routes.removeGroupMember,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { groupId, memberId } = req.body;
      const mine = await groupMembership(db, groupId, me);
      if (!mine) throw new HttpError(404, errorCodes.notFound, 'No such group');
      if (memberId !== me && !mine.isAdmin) throw new HttpError(403, errorCodes.forbidden, "Only the group's admins can remove members");
      const outcome = await db.transaction(async (tx) => {
        await lockedVersion(tx, groupId);
        // Again under the lock: the caller may have been removed, or lost the admin mark, meanwhile.
        const still = await groupMembership(tx, groupId, me);
        if (!still) throw new HttpError(404, errorCodes.notFound, 'No such group');
        if (memberId !== me && !still.isAdmin) throw new HttpError(403, errorCodes.forbidden, "Only the group's admins can remove members");
        const [gone] = await tx
          .delete(groupMembers)
          .where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.userId, memberId)))
          .returning();
        if (!gone) throw new HttpError(404, errorCodes.notFound, 'No such member in this group');
        const left = await tx
          .select({
            userId: groupMembers.userId,
            isAdmin: groupMembers.isAdmin,
            isBanned: users.isBanned,
            isCompromised: users.isCompromised,
          })
          .from(groupMembers)
          .innerJoin(users, eq(users.id, groupMembers.userId))
          .where(eq(groupMembers.groupId, groupId))
          .orderBy(asc(groupMembers.addedAt));
        // A group keeps an admin while it has members: the longest-standing one in good standing
        // takes over (a banned or wiped member could act on nothing).
        const eldest = left.find(isWritable) ?? left[0];
        if (eldest && !left.some((m) => m.isAdmin)) {
          await tx
            .update(groupMembers)
            .set({ isAdmin: true })
            .where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.userId, eldest.userId)));
        }
        // The last one out: nobody can read the group any more, so it goes with its messages.
        const erased = eldest ? [] : await eraseGroup(tx, groupId);
        return { version: await bump(tx, groupId), erased };
      });
      if (outcome.erased.length) {
        ctx.scrubber.erased('messages');
        await deleteMessageAttachments(db, ctx.attachments, outcome.erased).catch((err: unknown) =>
          req.log.warn({ err }, 'attachments of a deleted group left for the sweep'),
        );
      }
      await announce(groupId, outcome.version, [memberId]);
      return { ok: true as const };
    },
    changes,
  );

  serve(app, routes.adminGroups, async () => {
    const rows = await db
      .select({ id: groups.id, createdAt: groups.createdAt, memberCount: count(groupMembers.userId) })
      .from(groups)
      .leftJoin(groupMembers, eq(groupMembers.groupId, groups.id))
      .groupBy(groups.id)
      .orderBy(desc(groups.createdAt));
    return { groups: rows.map((g) => ({ ...g, createdAt: g.createdAt.toISOString() })) };
  });
}
