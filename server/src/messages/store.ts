/**
 * Storing a sent message in one statement, one round trip to the database (docs/scaling.md): the
 * checks a send needs (the session still live, the peer still writable, the epoch the sender's own
 * for this conversation and its member set current) are conditions of the insert itself, and the
 * conversation's row is locked by the same statement. Only when nothing was stored does the route
 * ask, off the hot path, which of them failed (messages/routes.ts).
 */
import { GENERAL_CONVERSATION, GROUP_PREFIX } from '@enclave/protocol';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { writableUser } from '../access/rules';
import { liveSession } from '../auth/sessions';
import type { Db } from '../db/client';
import { dbBigint, dbTimestamp, rowsOf } from '../db/rows';
import { messages, sessions, users } from '../db/schema';

/** A message as stored; the sender's name comes from `users`. */
export const storedColumns = {
  id: messages.id,
  conversationId: messages.conversationId,
  senderId: messages.senderId,
  epochId: messages.epochId,
  index: messages.index,
  encryptedContent: messages.encryptedContent,
  createdAt: messages.createdAt,
  expiresAt: messages.expiresAt,
  clientMessageId: messages.clientMessageId,
  targetId: messages.targetId,
};
/** A stored message with its sender's name (a join on `users`): what history and one-message answers select. */
export const messageColumns = { ...storedColumns, senderUsername: users.username };

export type StoredRow = {
  id: number;
  conversationId: string;
  senderId: string;
  epochId: string;
  index: number;
  /** Null once erased (expired or deleted for everyone): the row stays as a tombstone. */
  encryptedContent: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  clientMessageId: string | null;
  /** The message this annotation (a reaction or an edit) annotates; null for a message of its own. */
  targetId: number | null;
};

export type NewMessage = {
  /** The session the request came with (the token's hash): a revoked one stores nothing. */
  sessionId: string;
  senderId: string;
  conversationId: string;
  /** The other member of a direct message; null on the channel. */
  peerId: string | null;
  epochId: string;
  index: number;
  encryptedContent: string;
  clientMessageId: string | null;
  /** An annotation's target: held, in the same conversation, readable by the sender, not an annotation itself. */
  targetId?: number | null;
  /** DISAPPEARING_TIMER_CAP_MS, the testing aid's ceiling on a message's time to live; null without it. */
  disappearingCapMs: number | null;
};

/**
 * Inserts the message if every condition holds, else nothing: a session revoked or a member
 * banned, wiped or locked since the request's session was read, a peer banned or wiped, an epoch
 * that is not the sender's in this conversation or was made for another member set, and a taken
 * (epoch, index) or client id (ON CONFLICT) all leave it unstored, and the caller finds out why.
 *
 * The conversation's row is locked (NO KEY UPDATE, as a membership change takes it) before the
 * row's id is drawn from the sequence and held until the statement commits, so ids commit in
 * order within a conversation: a catch-up `after=<id>` cannot pass over a message still being
 * stored. A membership change that commits while the statement waits for that lock is seen by it
 * (PostgreSQL reads the locked row again), so such an epoch stores nothing. Epoch creation
 * inserts the conversation's row (conversations/routes.ts): an epoch always has one to lock.
 *
 * The expiry comes from the conversation's disappearing timer read under that lock, in the
 * database's clock (the one the sweep and the history compare with): a timer change commits
 * before or after the message, never during (messages/disappearing.ts).
 *
 * An annotation's target is locked (FOR SHARE) by the same statement: an erase of the target
 * commits before it (then nothing is stored) or after it (then the erase sees the annotation and
 * erases it too, disappearing.ts), and the annotation expires no later than its target.
 */
export async function insertMessage(db: Db, message: NewMessage): Promise<StoredRow | undefined> {
  const m = { ...message, targetId: message.targetId ?? null };
  const peerWritable = m.peerId ? sql`AND EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${m.peerId} AND ${writableUser()})` : sql``;
  const targetHeld =
    m.targetId === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM tgt) AND e.conversation_id = (SELECT conversation_id FROM tgt)`;
  const result = await db.execute(sql`
    WITH conv AS (
      SELECT membership_version, disappearing_seconds FROM conversations WHERE id = ${m.conversationId} FOR NO KEY UPDATE
    ), tgt AS (
      SELECT t.conversation_id, t.expires_at FROM messages t
      WHERE t.id = ${m.targetId}::bigint AND ${readableTarget(m.senderId)}
      FOR SHARE
    )
    INSERT INTO messages (conversation_id, sender_id, epoch_id, "index", encrypted_content, client_message_id, target_id, expires_at)
    SELECT e.conversation_id, e.sender_id, e.id, ${m.index}::int, ${m.encryptedContent}::text, ${m.clientMessageId}::uuid,
      ${m.targetId}::bigint,
      LEAST(
        CASE WHEN conv.disappearing_seconds > 0
          THEN now() + make_interval(secs => LEAST(conv.disappearing_seconds::float8, ${m.disappearingCapMs}::float8 / 1000))
        END,
        (SELECT expires_at FROM tgt)
      )
    FROM epochs e JOIN conv ON conv.membership_version = e.membership_version
    WHERE e.id = ${m.epochId} AND e.sender_id = ${m.senderId} AND e.conversation_id = ${m.conversationId}
      ${targetHeld}
      AND EXISTS (
        SELECT 1 FROM ${sessions} JOIN ${users} ON ${users.id} = ${sessions.userId}
        WHERE ${sessions.id} = ${m.sessionId} AND ${users.id} = ${m.senderId} AND ${liveSession()}
      )
      ${peerWritable}
    ON CONFLICT DO NOTHING
    RETURNING id, conversation_id, sender_id, epoch_id, "index", encrypted_content, created_at, expires_at`);
  const [row] = rowsOf(result, insertedRowSchema);
  return row && { ...row, clientMessageId: m.clientMessageId, targetId: m.targetId };
}

/**
 * The conditions on a message `t` that `readerId` may annotate: held and not expired, not an
 * annotation itself, and in its read window (access/rules.ts readWindow): in the general channel
 * not older than the reader's account, in a group not older than the reader's addition to it (no
 * key of it was wrapped for them). The conversation is compared by the caller.
 */
export const readableTarget = (readerId: string) => sql`
  t.encrypted_content IS NOT NULL AND t.target_id IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
  AND (t.conversation_id <> ${GENERAL_CONVERSATION} OR t.created_at >= (SELECT u.created_at FROM users u WHERE u.id = ${readerId}))
  AND (t.conversation_id NOT LIKE ${`${GROUP_PREFIX}%`} OR t.created_at >= (
    SELECT gm.added_at FROM group_members gm WHERE gm.group_id = t.conversation_id AND gm.user_id = ${readerId}))`;

/** The insert's RETURNING row, as either driver gives it (db/rows.ts). */
const insertedRowSchema = z
  .object({
    id: dbBigint,
    conversation_id: z.string(),
    sender_id: z.string(),
    epoch_id: z.string(),
    index: z.number().int(),
    encrypted_content: z.string().nullable(),
    created_at: dbTimestamp,
    expires_at: dbTimestamp.nullable(),
  })
  .transform((r) => ({
    id: r.id,
    conversationId: r.conversation_id,
    senderId: r.sender_id,
    epochId: r.epoch_id,
    index: r.index,
    encryptedContent: r.encrypted_content,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  }));
