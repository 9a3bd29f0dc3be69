/**
 * Private groups as the chat shows them: what a group is called, who may be picked for it, and
 * which conversation a message belongs to. Pure, so the rules are tested as tables.
 */
import { conversationIdFor, groupNameSchema, isGroupConversation, limits, type PublicUser } from '@enclave/protocol';
import { ApiError } from '../net/api-error';

/** A group whose sealed name this browser cannot open (no share for this member, or a bad signature). */
export const UNNAMED_GROUP = 'Unnamed group';

export const LEFT_GROUP_TEXT = 'You are no longer a member of this group';

export const groupTitle = (group: { name: string | null }): string => group.name ?? UNNAMED_GROUP;

/** Why this name cannot be a group's, or null when it can (the protocol's own rule, 1–64 characters once trimmed). */
export function groupNameProblem(name: string): string | null {
  if (groupNameSchema.safeParse(name).success) return null;
  return name.trim() ? `A group name has at most ${limits.groupNameMaxChars} characters` : 'Please enter a group name';
}

/**
 * The members a picker offers: not the member themself, not banned (the server refuses them), not
 * already in the group; those whose name contains `query` (case-insensitive), by name.
 */
export function pickableMembers(
  users: readonly PublicUser[],
  { selfId, exclude = [], query = '' }: { selfId: string; exclude?: readonly string[]; query?: string },
): PublicUser[] {
  const q = query.trim().toLowerCase();
  const excluded = new Set([selfId, ...exclude]);
  return users
    .filter((u) => !excluded.has(u.id) && !u.isBanned && u.username.toLowerCase().includes(q))
    .sort((a, b) => a.username.localeCompare(b.username));
}

/**
 * How a send names the conversation a message arrived in: a group's id, the sender for a DM
 * (a DM's conversation id is the pair's), 'all' for the general channel.
 */
export function receiverIdOf(message: { conversationId: string; senderId: string }, selfId: string): string {
  if (isGroupConversation(message.conversationId)) return message.conversationId;
  return conversationIdFor(selfId, message.senderId) === message.conversationId ? message.senderId : 'all';
}

/** What a refused group action says: the server's own words, else the client's (a changed key), else `fallback`. */
export function failureText(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.serverMessage ?? fallback;
  return error instanceof Error && error.message ? error.message : fallback;
}
