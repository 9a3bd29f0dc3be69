/**
 * Who belongs to a conversation, and the version of that member set (docs/security.md §4). The
 * general channel holds every member who is not banned or wiped; a direct message holds its two;
 * a private group the members its rows name, less the banned and wiped.
 */
import { GENERAL_CONVERSATION, isGroupConversation } from '@enclave/protocol';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { conversations, groupMembers, users } from '../db/schema';
import { conversationWith, groupConversation, readWindow, writableUser, type ConversationUse, type ReadWindow } from '../access/rules';
import type { Audience } from '../realtime/publish';

/** Moves a conversation to a new member-set version and returns it. */
export async function bumpMembership(db: Db, conversationId: string): Promise<number> {
  const [row] = await db
    .insert(conversations)
    .values({ id: conversationId, membershipVersion: 1 })
    .onConflictDoUpdate({
      target: conversations.id,
      set: { membershipVersion: sql`${conversations.membershipVersion} + 1` },
    })
    .returning({ v: conversations.membershipVersion });
  if (!row) throw new Error('membership bump returned no row');
  return row.v;
}

export async function membershipVersion(db: Db, conversationId: string): Promise<number> {
  const [row] = await db
    .select({ v: conversations.membershipVersion })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  return row?.v ?? 0;
}

/** A member as an epoch's upload is checked against: id and public keys (a share key once published). */
type ConversationMember = { id: string; encryptionPublicKey: string; sharePublicKey: string | null; shareKeySignature: string | null };

/** Members of a conversation who may receive its keys now. */
export async function conversationMembers(db: Db, conversationId: string): Promise<ConversationMember[]> {
  const active = writableUser();
  const cols = {
    id: users.id,
    encryptionPublicKey: users.encryptionPublicKey,
    sharePublicKey: users.sharePublicKey,
    shareKeySignature: users.shareKeySignature,
  };
  if (conversationId === GENERAL_CONVERSATION) return db.select(cols).from(users).where(active);
  if (isGroupConversation(conversationId)) {
    return db
      .select(cols)
      .from(groupMembers)
      .innerJoin(users, eq(users.id, groupMembers.userId))
      .where(and(eq(groupMembers.groupId, conversationId), active));
  }
  const ids = conversationId.split(':').slice(1);
  return db
    .select(cols)
    .from(users)
    .where(and(active, inArray(users.id, ids)));
}

/** The member's row in a group, if they are in it. */
export async function groupMembership(db: Db, groupId: string, userId: string): Promise<{ addedAt: Date; isAdmin: boolean } | undefined> {
  const [row] = await db
    .select({ addedAt: groupMembers.addedAt, isAdmin: groupMembers.isAdmin })
    .from(groupMembers)
    .where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.userId, userId)))
    .limit(1);
  return row;
}

/**
 * The conversation `me` reads or writes with `receiverId` (a member's id, 'all' or a group's id),
 * after the per-object rule (access/rules.ts) has looked at the peer, or at `me`'s place in the group.
 */
export async function conversationFor(db: Db, me: string, receiverId: string, use: ConversationUse): Promise<string> {
  if (isGroupConversation(receiverId)) return groupConversation(receiverId, await groupMembership(db, receiverId, me));
  if (receiverId === 'all' || receiverId === me) return conversationWith(me, receiverId, undefined, use);
  const [peer] = await db
    .select({ id: users.id, isBanned: users.isBanned, isCompromised: users.isCompromised })
    .from(users)
    .where(eq(users.id, receiverId))
    .limit(1);
  return conversationWith(me, receiverId, peer, use);
}

/** From when `me` reads the conversation (access/rules.ts readWindow): one look-up for a group, none otherwise. */
export async function readWindowOf(db: Db, me: { id: string; createdAt: Date }, conversationId: string): Promise<ReadWindow> {
  const addedAt = isGroupConversation(conversationId) ? (await groupMembership(db, conversationId, me.id))?.addedAt : undefined;
  return readWindow(me, conversationId, addedAt);
}

/** Who hears about a conversation: every socket for the channel, a DM's two members, a group's members. */
export async function audienceOf(db: Db, conversationId: string): Promise<Audience> {
  if (conversationId === GENERAL_CONVERSATION) return 'all';
  if (!isGroupConversation(conversationId)) return conversationId.split(':').slice(1);
  return groupMemberIds(db, conversationId);
}

/** Everyone in a group, banned members included (they hear nothing: their sockets are closed). */
export async function groupMemberIds(db: Db, groupId: string): Promise<string[]> {
  const rows = await db.select({ id: groupMembers.userId }).from(groupMembers).where(eq(groupMembers.groupId, groupId));
  return rows.map((r) => r.id);
}
