/**
 * Push subscriptions as stored: one per browser endpoint, bound to the session that made it. A
 * session is marked revoked rather than deleted, so the foreign key's cascade does not end its
 * subscriptions: every path that ends sessions (logout, revocations, the sessions cap, bans,
 * emergency shutdown, breach locks) calls {@link endPushOfSessions} or {@link endPushOfMembers},
 * and the sweep below takes those of expired sessions.
 */
import { PUSH_SUBSCRIPTIONS_PER_MEMBER, type PushSubscribeRequest } from '@enclave/protocol';
import { and, desc, eq, gt, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { pushSubscriptions, sessions, users } from '../db/schema';

/** Inside the caller's transaction: the subscriptions of these sessions (ids: the tokens' hashes) end. */
export async function endPushOfSessions(tx: Db, sessionIds: readonly string[]): Promise<void> {
  if (!sessionIds.length) return;
  await tx.delete(pushSubscriptions).where(sql`${pushSubscriptions.sessionId} = ANY(${sql.param([...sessionIds])}::text[])`);
}

/** Inside the caller's transaction: every subscription of these members ends (a ban, a lock). */
export async function endPushOfMembers(tx: Db, userIds: readonly string[]): Promise<void> {
  if (!userIds.length) return;
  await tx.delete(pushSubscriptions).where(sql`${pushSubscriptions.userId} = ANY(${sql.param([...userIds])}::uuid[])`);
}

/**
 * Keeps a browser's subscription for this session. The endpoint is the browser's: subscribing it
 * again (new keys, or another member signed in on that browser) replaces the row. Past
 * PUSH_SUBSCRIPTIONS_PER_MEMBER the member's oldest subscriptions are dropped.
 */
export async function saveSubscription(db: Db, userId: string, sessionId: string, sub: PushSubscribeRequest): Promise<void> {
  await db.transaction(async (tx) => {
    // A member's subscribes in turn, so that concurrent ones cannot both miss the cap.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
    await tx
      .insert(pushSubscriptions)
      .values({ userId, sessionId, endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth })
      .onConflictDoUpdate({
        target: pushSubscriptions.endpoint,
        set: { userId, sessionId, p256dh: sub.keys.p256dh, auth: sub.keys.auth, createdAt: sql`now()` },
      });
    const newest = tx
      .select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, userId))
      .orderBy(desc(pushSubscriptions.createdAt), desc(pushSubscriptions.id))
      .limit(PUSH_SUBSCRIPTIONS_PER_MEMBER);
    await tx.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), notInArray(pushSubscriptions.id, newest)));
  });
}

/** Forgets one of the member's subscriptions (another member's endpoint is left alone). */
export async function deleteSubscription(db: Db, userId: string, endpoint: string): Promise<void> {
  await db.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)));
}

/** A subscription the push service says is gone (404, 410). */
export async function deleteEndpoint(db: Db, endpoint: string): Promise<void> {
  await db.delete(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint));
}

/** Deletes the subscriptions whose session has ended (expired, or revoked by a path that missed them). */
export async function sweepEndedSubscriptions(db: Db): Promise<number> {
  const ended = db
    .select({ id: sessions.id })
    .from(sessions)
    .where(or(lte(sessions.expiresAt, sql`now()`), sql`${sessions.revokedAt} is not null`));
  const gone = await db
    .delete(pushSubscriptions)
    .where(sql`${pushSubscriptions.sessionId} in (${ended})`)
    .returning({ id: pushSubscriptions.id });
  return gone.length;
}

/** Live (open, unexpired) sessions, as a condition on `sessions`. */
export const openSession = () => and(isNull(sessions.revokedAt), gt(sessions.expiresAt, sql`now()`));
