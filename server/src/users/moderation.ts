/**
 * Bans take effect at once everywhere (docs/security.md §4 and §6): sessions revoked, sockets told
 * and closed, and every conversation of the member moves to a new member set, so that no later
 * epoch is wrapped for them. Unbanning moves them again, to let the member back in. Each ban
 * records who made it, and who may lift it is decided by access/rules.ts.
 */
import { retireChannelKey } from '../conversations/channel-key';
import { GENERAL_CONVERSATION, errorCodes, type Role } from '@enclave/protocol';
import { and, eq, inArray, isNull, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Db } from '../db/client';
import { conversations, groupMembers, sessions, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { bannedByOf, banRefusal, unbanRefusal, type Moderator } from '../access/rules';
import { removeP2pOf } from '../p2p/registry';
import { announceConnection } from '../p2p/signaling';
import { eventTypes, recordEvent, type EventSource, type Severity } from '../security/events';
import { endSessionsEvent, membershipChanged, serverFrame, usersChanged } from '../realtime/publish';
import { endPushOfMembers } from '../push/subscriptions';
import { audienceOf } from '../conversations/membership';

export type BanChange = { banned: true; reason: string } | { banned: false };
export type MovedConversation = { id: string; membershipVersion: number };
/**
 * A ban's sockets closing as timed on the instance that made it (Gateway.endSessionsTimed), for the
 * ban's audit event: the security metrics' response time is the median of `socketsClosedMs`.
 */
export type BanTiming = { socketsClosed: number; socketsClosedMs?: number };

/** The audit details of a ban's timing: the ms only when this instance closed a socket. */
export const timingDetails = (t: { socketsClosed: number; ms: number } | null): BanTiming =>
  !t ? { socketsClosed: 0 } : t.socketsClosed > 0 ? { socketsClosed: t.socketsClosed, socketsClosedMs: t.ms } : { socketsClosed: 0 };

/**
 * Who acts, for the rules and the audit log: their rights (`moderator`), the actor its rows name
 * ('creator', an admin's id, 'operator' for the operator socket) and the request the action came
 * on (null for the operator socket, which has no address).
 */
export type Acting = { moderator: Moderator; actor: string | null; req: EventSource | null };

/** Bans one member and audits it: what the console's ban routes and the operator socket do. */
export async function banMember(ctx: AppContext, by: Acting, userId: string, reason: string): Promise<void> {
  const timing = await setBanned(ctx, by.moderator, [userId], { banned: true, reason });
  await recordEvent(ctx.db, by.req, {
    type: eventTypes.userBanned,
    severity: 'high',
    userId,
    actor: by.actor,
    details: { reason, ...timing },
  });
}

/** Lifts one member's ban and audits it. */
export async function unbanMember(ctx: AppContext, by: Acting, userId: string): Promise<void> {
  await setBanned(ctx, by.moderator, [userId], { banned: false });
  await recordEvent(ctx.db, by.req, { type: eventTypes.userUnbanned, severity: 'medium', userId, actor: by.actor });
}

/** What the creator changes of a member's standing: their role, or the mark of the creator's own account. */
export type Standing = { role: Role } | { isCreatorAccount: boolean };

/** Changes one member's standing, audits it, and tells every client to fetch that member again. */
export async function setStanding(ctx: AppContext, by: Acting, userId: string, patch: Standing): Promise<void> {
  const changed = await ctx.db.update(users).set(patch).where(eq(users.id, userId)).returning({ id: users.id });
  if (!changed.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
  const [type, severity]: [string, Severity] =
    'role' in patch ? [eventTypes.roleChanged, 'medium'] : [eventTypes.creatorAccountChanged, 'high'];
  await recordEvent(ctx.db, by.req, { type, severity, userId, actor: by.actor, details: patch });
  await usersChanged(ctx.gateway, [userId]);
}

/**
 * `column = ANY($1)`: the whole list travels as one array parameter. PostgreSQL takes at most
 * 65,535 bind parameters per statement, so a list of one parameter per member would fail at scale
 * (the emergency shutdown bans every member at once).
 */
const anyOf = (column: SQLWrapper, ids: readonly string[], type: 'uuid' | 'text'): SQL =>
  sql`${column} = ANY(${sql.param(ids)}::${sql.raw(type)}[])`;

/**
 * Bans or unbans members in one transaction, whatever their number: the rules are checked on
 * rows locked for the change, then flags, sessions and conversations move together, then the
 * sockets are told.
 */
export async function setBanned(ctx: AppContext, actor: Moderator, userIds: readonly string[], change: BanChange): Promise<BanTiming> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return { socketsClosed: 0 };
  const moved = await ctx.db.transaction(async (tx) => {
    const targets = await tx
      .select({ role: users.role, isCreatorAccount: users.isCreatorAccount, isBanned: users.isBanned, bannedBy: users.bannedBy })
      .from(users)
      .where(anyOf(users.id, ids, 'uuid'))
      .for('update');
    if (targets.length !== ids.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
    for (const target of targets) {
      const refused = change.banned ? banRefusal(actor, target) : unbanRefusal(actor, target);
      if (refused) throw refused;
    }
    return applyBans(tx, ids, change.banned ? { ...change, by: bannedByOf(actor) } : change);
  });
  return announceBans(ctx, ids, change, moved);
}

/**
 * Inside the caller's transaction: sets the ban state of these members (`by`: 'creator' or the
 * admin's id), revokes their sessions on a ban, and moves the general channel and each of their
 * direct messages to a new membership version. Returns the conversations moved.
 */
export async function applyBans(
  tx: Db,
  ids: readonly string[],
  change: { banned: true; reason: string; by: string } | { banned: false },
): Promise<MovedConversation[]> {
  await tx
    .update(users)
    .set(
      change.banned
        ? { isBanned: true, bannedReason: change.reason, bannedBy: change.by }
        : { isBanned: false, bannedReason: null, bannedBy: null },
    )
    .where(anyOf(users.id, ids, 'uuid'));
  if (change.banned) await revokeSessionsOf(tx, ids);
  return moveConversationsOf(tx, ids);
}

/** Inside the caller's transaction: revokes every live session of these members, and ends their push subscriptions. */
export async function revokeSessionsOf(tx: Db, ids: readonly string[]): Promise<void> {
  await tx
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(anyOf(sessions.userId, ids, 'uuid'), isNull(sessions.revokedAt)));
  await endPushOfMembers(tx, ids);
}

/**
 * Inside the caller's transaction: moves the general channel, each direct message and each group
 * of these members to a new membership version, so that the next epoch of each is wrapped for the
 * member set as it is now. Returns the conversations moved.
 */
export async function moveConversationsOf(tx: Db, ids: readonly string[]): Promise<MovedConversation[]> {
  await tx.insert(conversations).values({ id: GENERAL_CONVERSATION }).onConflictDoNothing();
  // A ban, an unban or a wipe: the channel's next key is made for the members as they are now.
  await retireChannelKey(tx);
  // Direct messages are named dm:<id>:<id>.
  return tx
    .update(conversations)
    .set({ membershipVersion: sql`${conversations.membershipVersion} + 1` })
    .where(
      or(
        eq(conversations.id, GENERAL_CONVERSATION),
        anyOf(sql`split_part(${conversations.id}, ':', 2)`, ids, 'text'),
        anyOf(sql`split_part(${conversations.id}, ':', 3)`, ids, 'text'),
        inArray(
          conversations.id,
          tx
            .select({ id: groupMembers.groupId })
            .from(groupMembers)
            .where(anyOf(groupMembers.userId, ids, 'uuid')),
        ),
      ),
    )
    .returning({ id: conversations.id, membershipVersion: conversations.membershipVersion });
}

/**
 * After the commit: closes the banned members' sockets (timed, see BanTiming) and tells everyone
 * the member sets moved.
 */
export async function announceBans(
  ctx: AppContext,
  ids: readonly string[],
  change: BanChange,
  moved: readonly MovedConversation[],
): Promise<BanTiming> {
  const { gateway } = ctx;
  const timing = change.banned
    ? await gateway.endSessionsTimed(
        endSessionsEvent(
          { userIds: [...ids] },
          serverFrame.session_ended('banned', `You have been banned from the network: ${change.reason}`),
        ),
      )
    : null;
  // A banned member hosts nothing and joins nothing: their node goes, their connections close.
  if (change.banned) for (const c of await removeP2pOf(ctx.db, ids, { joined: true })) await announceConnection(ctx, c, 'closed');
  await announceMoves(ctx, ids, moved);
  return timingDetails(timing);
}

/**
 * After the commit: every client fetches these members again, and the members of each moved
 * conversation rotate; the channel's members hear that its key left force (moveConversationsOf).
 */
export async function announceMoves(ctx: AppContext, ids: readonly string[], moved: readonly MovedConversation[]): Promise<void> {
  const { gateway } = ctx;
  await usersChanged(gateway, ids);
  for (const c of moved) {
    const keyRetired = c.id === GENERAL_CONVERSATION ? true : undefined;
    await membershipChanged(gateway, await audienceOf(ctx.db, c.id), c.id, c.membershipVersion, keyRetired);
  }
}
