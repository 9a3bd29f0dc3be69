/**
 * Bans take effect at once everywhere (DESIGN.md sections 4 and 5): sessions revoked, sockets told
 * and closed, and every conversation of the member moves to a new member set, so that no later
 * epoch is wrapped for them. Unbanning moves them again, to let the member back in.
 */
import { GENERAL_CONVERSATION, errorCodes } from '@enclave/protocol';
import { eq, like, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { conversations, users } from '../db/schema';
import { revokeUserSessions } from '../auth/sessions';
import { HttpError } from '../http/errors';

export type BanActor = { kind: 'admin' | 'creator' };

export async function setBanned(
  ctx: AppContext,
  actor: BanActor,
  userId: string,
  ban: { banned: true; reason: string } | { banned: false },
): Promise<void> {
  const { db, gateway } = ctx;
  const [target] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!target) throw new HttpError(404, errorCodes.notFound, 'No such member');
  if (ban.banned && actor.kind === 'admin' && (target.role === 'admin' || target.isSuperAdmin)) {
    throw new HttpError(403, errorCodes.forbidden, 'Administrators cannot ban other administrators');
  }
  const moved = await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set(ban.banned ? { isBanned: true, bannedReason: ban.reason } : { isBanned: false, bannedReason: null })
      .where(eq(users.id, userId));
    await tx.insert(conversations).values({ id: GENERAL_CONVERSATION }).onConflictDoNothing();
    return tx
      .update(conversations)
      .set({ membershipVersion: sql`${conversations.membershipVersion} + 1` })
      .where(or(eq(conversations.id, GENERAL_CONVERSATION), like(conversations.id, `dm:%${userId}%`)))
      .returning({ id: conversations.id, membershipVersion: conversations.membershipVersion });
  });
  if (ban.banned) {
    await revokeUserSessions(db, userId);
    await gateway.publish({
      kind: 'end_sessions',
      userId,
      frame: { type: 'session_ended', reason: 'banned', message: `You have been banned from the network: ${ban.reason}` },
    });
  }
  await gateway.publish({ kind: 'deliver', to: 'all', frame: { type: 'users_changed' } });
  for (const c of moved) {
    const to = c.id === GENERAL_CONVERSATION ? 'all' : c.id.split(':').slice(1);
    await gateway.publish({ kind: 'deliver', to, frame: { type: 'membership_changed', conversationId: c.id, membershipVersion: c.membershipVersion } });
  }
}
