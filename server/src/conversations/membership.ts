/**
 * Who belongs to a conversation, and the version of that member set (docs/security.md §4). The
 * general channel holds every member who is not banned or wiped; a direct message holds its two.
 */
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { conversations, users } from '../db/schema';
import { conversationWith, writableUser, type ConversationUse } from '../access/rules';

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

/** Members of a conversation who may receive its keys now. */
export async function conversationMembers(db: Db, conversationId: string): Promise<{ id: string; encryptionPublicKey: string }[]> {
  const active = writableUser();
  const cols = { id: users.id, encryptionPublicKey: users.encryptionPublicKey };
  if (conversationId === GENERAL_CONVERSATION) return db.select(cols).from(users).where(active);
  const ids = conversationId.split(':').slice(1);
  return db
    .select(cols)
    .from(users)
    .where(and(active, inArray(users.id, ids)));
}

/**
 * The conversation `me` reads or writes with `receiverId`, after the per-object rule
 * (access/rules.ts) has looked at the peer for this use.
 */
export async function conversationFor(db: Db, me: string, receiverId: string, use: ConversationUse): Promise<string> {
  if (receiverId === 'all' || receiverId === me) return conversationWith(me, receiverId, undefined, use);
  const [peer] = await db
    .select({ id: users.id, isBanned: users.isBanned, isCompromised: users.isCompromised })
    .from(users)
    .where(eq(users.id, receiverId))
    .limit(1);
  return conversationWith(me, receiverId, peer, use);
}
