/**
 * Bans take effect at once everywhere (docs/security.md §4 and §6): sessions revoked, sockets told
 * and closed, and every conversation of the member moves to a new member set, so that no later
 * epoch is wrapped for them. Unbanning moves them again, to let the member back in.
 */
import { GENERAL_CONVERSATION, errorCodes } from '@enclave/protocol';
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { conversations, sessions, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { banRefusal, type Moderator } from '../access/rules';

/**
 * Bans or unbans members in one transaction, whatever their number (an emergency shutdown bans
 * everyone): flags, sessions and every conversation they belong to move together, then the
 * sockets are told.
 */
export async function setBanned(
  ctx: AppContext,
  actor: Moderator,
  userIds: readonly string[],
  ban: { banned: true; reason: string } | { banned: false },
): Promise<void> {
  const { db, gateway } = ctx;
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const targets = await db.select({ role: users.role, isCreatorAccount: users.isCreatorAccount }).from(users).where(inArray(users.id, ids));
  if (targets.length !== ids.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
  if (ban.banned) {
    for (const target of targets) {
      const refused = banRefusal(actor, target);
      if (refused) throw refused;
    }
  }
  const moved = await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set(ban.banned ? { isBanned: true, bannedReason: ban.reason } : { isBanned: false, bannedReason: null })
      .where(inArray(users.id, ids));
    if (ban.banned) {
      await tx.update(sessions).set({ revokedAt: new Date() }).where(and(inArray(sessions.userId, ids), isNull(sessions.revokedAt)));
    }
    await tx.insert(conversations).values({ id: GENERAL_CONVERSATION }).onConflictDoNothing();
    // Direct messages are named dm:<id>:<id>.
    return tx
      .update(conversations)
      .set({ membershipVersion: sql`${conversations.membershipVersion} + 1` })
      .where(
        or(
          eq(conversations.id, GENERAL_CONVERSATION),
          inArray(sql`split_part(${conversations.id}, ':', 2)`, ids),
          inArray(sql`split_part(${conversations.id}, ':', 3)`, ids),
        ),
      )
      .returning({ id: conversations.id, membershipVersion: conversations.membershipVersion });
  });
  if (ban.banned) {
    await gateway.publish({
      kind: 'end_sessions',
      userIds: ids,
      frame: { type: 'session_ended', reason: 'banned', message: `You have been banned from the network: ${ban.reason}` },
    });
  }
  await gateway.publish({ kind: 'deliver', to: 'all', frame: { type: 'users_changed' } });
  for (const c of moved) {
    const to = c.id === GENERAL_CONVERSATION ? 'all' : c.id.split(':').slice(1);
    await gateway.publish({ kind: 'deliver', to, frame: { type: 'membership_changed', conversationId: c.id, membershipVersion: c.membershipVersion } });
  }
}
