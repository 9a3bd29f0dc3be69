/**
 * Read receipts (docs/security.md §15): a member's read position in a DM or a small group, held
 * only while they opted in, never moved backwards, and shown to the other members only while they
 * opted in too.
 */
import { isGroupConversation, limits, type ReadPosition } from '@enclave/protocol';
import { and, eq, gt, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { messages, readPositions, users } from '../db/schema';
import { dbBigint, rowsOf } from '../db/rows';

/** A member who sends read receipts now: opted in and not banned (a banned member sends and sees none). */
const sendsReceipts = () => and(eq(users.readReceipts, true), eq(users.isBanned, false));

/**
 * Turns a member's read receipts on or off. Off deletes their positions in the same transaction,
 * after the flag's row lock: a position being stored at the same time waits for it (markRead's
 * FOR SHARE) and then sees the flag off, so none survives the opt-out.
 */
export async function setReadReceipts(db: Db, userId: string, enabled: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(users).set({ readReceipts: enabled }).where(eq(users.id, userId));
    if (!enabled) await tx.delete(readPositions).where(eq(readPositions.userId, userId));
  });
}

/** Whether `messageId` is a message of this conversation its members can still read (held, not expired). */
export async function isReadableMessage(db: Db, conversationId: string, messageId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: messages.id })
    .from(messages)
    .where(
      and(
        eq(messages.id, messageId),
        eq(messages.conversationId, conversationId),
        isNotNull(messages.encryptedContent),
        or(isNull(messages.expiresAt), gt(messages.expiresAt, sql`now()`)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * Stores `userId`'s position in a conversation if they send read receipts and it moves forwards;
 * true when it was stored. One statement: the member's flag is read under a share lock, so an
 * opt-out committing meanwhile (setReadReceipts) is seen.
 */
export async function storePosition(db: Db, conversationId: string, userId: string, messageId: number): Promise<boolean> {
  const result = await db.execute(sql`
    WITH me AS (
      SELECT ${users.id} FROM ${users} WHERE ${users.id} = ${userId} AND ${sendsReceipts()} FOR SHARE
    )
    INSERT INTO read_positions (conversation_id, user_id, message_id, updated_at)
    SELECT ${conversationId}::text, ${userId}::uuid, ${messageId}::bigint, now() FROM me
    ON CONFLICT (conversation_id, user_id) DO UPDATE SET message_id = excluded.message_id, updated_at = excluded.updated_at
      WHERE read_positions.message_id < excluded.message_id
    RETURNING message_id`);
  return rowsOf(result, z.object({ message_id: dbBigint })).length > 0;
}

/** Whether this member sends (and so sees) read receipts now. */
export async function sendsReadReceipts(db: Db, userId: string): Promise<boolean> {
  return (await whoSendReceipts(db, [userId])).length > 0;
}

/** Those of these members who send read receipts now. */
export async function whoSendReceipts(db: Db, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(inArray(users.id, [...ids]), sendsReceipts()));
  return rows.map((r) => r.id);
}

/**
 * The members other than `me` whose positions count in a conversation: a DM's peer, a group's
 * other members (`members`: the group's, `me` among them) while the group has at most
 * `limits.readReceiptsMaxGroupMembers`; null where there are no read receipts (a larger group).
 */
export function receiptPeers(conversationId: string, me: string, receiverId: string, members: readonly string[]): string[] | null {
  if (!isGroupConversation(conversationId)) return [receiverId];
  if (members.length > limits.readReceiptsMaxGroupMembers) return null;
  return members.filter((id) => id !== me);
}

/** The positions of these peers in the conversation, only those who send read receipts, and none unless the viewer does. */
export async function peerPositions(db: Db, conversationId: string, viewerId: string, peerIds: readonly string[]): Promise<ReadPosition[]> {
  if (!peerIds.length || !(await sendsReadReceipts(db, viewerId))) return [];
  const rows = await db
    .select({ userId: readPositions.userId, messageId: readPositions.messageId, updatedAt: readPositions.updatedAt })
    .from(readPositions)
    .innerJoin(users, eq(users.id, readPositions.userId))
    .where(and(eq(readPositions.conversationId, conversationId), inArray(readPositions.userId, [...peerIds]), sendsReceipts()));
  return rows.map((r) => ({ userId: r.userId, messageId: r.messageId, readAt: r.updatedAt.toISOString() }));
}
