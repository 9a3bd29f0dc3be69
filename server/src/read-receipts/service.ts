/**
 * Read receipts (docs/security.md §15): a member's read position in a DM, held only while they
 * opted in, never moved backwards, and shown to the peer only while the peer opted in too.
 */
import type { ReadPosition } from '@enclave/protocol';
import { and, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
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
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), sendsReceipts()))
    .limit(1);
  return row !== undefined;
}

/** `peerId`'s position in the conversation, only when both the viewer and the peer send read receipts. */
export async function peerPosition(db: Db, conversationId: string, viewerId: string, peerId: string): Promise<ReadPosition | null> {
  const [viewerSends, peerSends] = await Promise.all([sendsReadReceipts(db, viewerId), sendsReadReceipts(db, peerId)]);
  if (!viewerSends || !peerSends) return null;
  const [row] = await db
    .select({ messageId: readPositions.messageId, updatedAt: readPositions.updatedAt })
    .from(readPositions)
    .where(and(eq(readPositions.conversationId, conversationId), eq(readPositions.userId, peerId)))
    .limit(1);
  return row ? { userId: peerId, messageId: row.messageId, readAt: row.updatedAt.toISOString() } : null;
}
