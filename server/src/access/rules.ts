/**
 * Per-object rules: once the route table has let a caller in (policy.ts), who may act on whom.
 * Each rule is a pure function over the rows it needs, so that its whole table is tested
 * (rules.test.ts); the routes load the rows and throw what the rule answers. A rule a query also
 * applies has its SQL form declared beside it, and a test holds both to one table against a real
 * database (rules-in-sql.test.ts).
 */
import { conversationIdFor, errorCodes, GENERAL_CONVERSATION, isGroupConversation, type Role } from '@enclave/protocol';
import { and, eq } from 'drizzle-orm';
import { users } from '../db/schema';
import { HttpError } from '../http/errors';

/** Who is acting: the creator by master key, or a signed-in admin. */
export type Moderator = { kind: 'creator' } | { kind: 'admin'; id: string };

/** `bannedBy`: 'creator' or the banning admin's id; null on a ban of unknown origin (treated as the creator's). */
export type ModerationTarget = { role: Role; isCreatorAccount: boolean; isBanned: boolean; bannedBy: string | null };

/** What a ban records as its author (`users.banned_by`). */
export const bannedByOf = (actor: Moderator): string => (actor.kind === 'creator' ? 'creator' : actor.id);

/** A ban only the creator may lift or replace: the creator's own, or one whose origin is unknown. */
const creatorsBan = (target: ModerationTarget) => target.isBanned && (target.bannedBy === null || target.bannedBy === 'creator');

const adminsCannotActOnAdmins = () => new HttpError(403, errorCodes.forbidden, 'Administrators cannot ban other administrators');
const creatorsBanStands = () => new HttpError(403, errorCodes.forbidden, 'This member was banned by the network creator');
const onlyTheCreatorLifts = () => new HttpError(403, errorCodes.forbidden, 'Only the network creator can lift this ban');

/**
 * Who may ban whom: the creator anyone; an admin only members who are neither administrators nor
 * accounts the creator owns, and not over a ban of the creator's (banning again would make the
 * ban the admin's, hence liftable by admins).
 */
export function banRefusal(actor: Moderator, target: ModerationTarget): HttpError | null {
  if (actor.kind === 'creator') return null;
  if (target.role === 'admin' || target.isCreatorAccount) return adminsCannotActOnAdmins();
  if (creatorsBan(target)) return creatorsBanStands();
  return null;
}

/**
 * Who may lift a ban: the creator any; an admin a ban made by an admin (any admin, not only its
 * author: moderation is the admins' shared duty, and a ban must stay liftable when its author
 * is demoted or gone), never one of the creator's, and never on an administrator or an account
 * the creator owns. Lifting no ban is nobody's concern.
 */
export function unbanRefusal(actor: Moderator, target: ModerationTarget): HttpError | null {
  if (actor.kind === 'creator' || !target.isBanned) return null;
  if (creatorsBan(target) || target.role === 'admin' || target.isCreatorAccount) return onlyTheCreatorLifts();
  return null;
}

export type Peer = { id: string; isBanned: boolean; isCompromised: boolean };

/** A member others may write to and wrap keys for: neither banned nor wiped (`isCompromised`). */
export const isWritable = (peer: Pick<Peer, 'isBanned' | 'isCompromised'>): boolean => !peer.isBanned && !peer.isCompromised;

/** isWritable as a condition on `users`: the send's insert (messages/store.ts) and the key recipients (conversations/membership.ts). */
export const writableUser = () => and(eq(users.isBanned, false), eq(users.isCompromised, false));

/**
 * What a member does with a conversation: `read` its history, or `write` to it (fetch its members
 * to wrap an epoch for, upload an epoch, send a message).
 */
export type ConversationUse = 'read' | 'write';

/**
 * The conversation a member reads or writes with `receiverId` ('all' is the general channel),
 * refusing themselves and unknown members (`peer` undefined). A banned or wiped peer is refused
 * for writing only: the member keeps reading the history they already share with them (and their
 * own shares of its epochs, which are theirs whoever the sender was).
 */
export function conversationWith(me: string, receiverId: string, peer: Peer | undefined, use: ConversationUse): string {
  if (receiverId === 'all') return GENERAL_CONVERSATION;
  if (receiverId === me) throw new HttpError(400, errorCodes.invalidRequest, 'You cannot message yourself');
  if (!peer) throw new HttpError(404, errorCodes.notFound, 'No such member');
  if (use === 'write' && !isWritable(peer)) throw new HttpError(403, errorCodes.forbidden, 'This member is banned');
  return conversationIdFor(me, receiverId);
}

/**
 * A private group's conversation, to its members only (`member`: the caller's row in it, if any):
 * to anyone else it does not exist, so that group ids tell nothing.
 */
export function groupConversation(groupId: string, member: object | undefined): string {
  if (!member) throw new HttpError(404, errorCodes.notFound, 'No such group');
  return groupId;
}

/**
 * From when a member reads a conversation's messages: `since` null for all of it; null when they
 * read none of it. The general channel from the member's account's creation (no earlier key was
 * wrapped for them), a direct message of theirs whole, a group from when they were last added to
 * it (`groupAddedAt`, undefined when they are not in it).
 */
export type ReadWindow = { since: Date | null } | null;

export function readWindow(me: { id: string; createdAt: Date }, conversationId: string, groupAddedAt: Date | undefined): ReadWindow {
  if (conversationId === GENERAL_CONVERSATION) return { since: me.createdAt };
  if (isGroupConversation(conversationId)) return groupAddedAt ? { since: groupAddedAt } : null;
  return conversationId.split(':').slice(1).includes(me.id) ? { since: null } : null;
}

/** Whether a message stored at `createdAt` falls in the member's window. */
export const readsAt = (window: ReadWindow, createdAt: Date): boolean =>
  window !== null && (window.since === null || createdAt >= window.since);

/** A sender-key epoch may carry messages only of its own sender, in its own conversation. */
export function assertOwnEpoch<E extends { senderId: string; conversationId: string }>(
  me: string,
  conversationId: string,
  epoch: E | undefined,
): asserts epoch is E {
  if (!epoch || epoch.senderId !== me || epoch.conversationId !== conversationId) {
    throw new HttpError(400, errorCodes.invalidRequest, 'Unknown epoch for this conversation');
  }
}

/**
 * An attachment as the read rule sees it: `messageCreatedAt` is null until a message links it;
 * `messageErased` once that message expired or was deleted (its blob is on its way out).
 */
export type AttachmentAccess = { uploaderId: string; conversationId: string; messageCreatedAt: Date | null; messageErased: boolean };

/**
 * Who may download an attachment's ciphertext: before a message links it, its uploader alone;
 * then whoever may read that message (`window`: the caller's in the attachment's conversation,
 * readWindow); nobody once its message is erased. Everyone else is answered as if it did not exist.
 */
export function mayReadAttachment(me: string, window: ReadWindow, attachment: AttachmentAccess | undefined): boolean {
  if (!attachment || attachment.messageErased) return false;
  if (attachment.messageCreatedAt === null) return attachment.uploaderId === me;
  return readsAt(window, attachment.messageCreatedAt);
}

/** Who sets a conversation's disappearing-message timer: a signed-in member's role and standing. */
export type TimerSetter = { role: Role; isCreatorAccount: boolean };

/**
 * Who may set a conversation's disappearing-message timer: either party of a direct message and any
 * member of a group (the caller is one: conversationFor checked it); in the general channel, which it changes for everyone,
 * only administrators and the creator's own accounts.
 */
export function timerRefusal(actor: TimerSetter, conversationId: string): HttpError | null {
  if (conversationId !== GENERAL_CONVERSATION) return null;
  if (actor.role === 'admin' || actor.isCreatorAccount) return null;
  return new HttpError(403, errorCodes.forbidden, 'Only administrators can change disappearing messages in the general channel');
}

/** A stored message as deletion sees it; `erased` when its content is gone already. */
export type DeletionTarget = { senderId: string; conversationId: string; erased: boolean };

/**
 * Who may delete a message for everyone: its sender only. A message the caller cannot see (none,
 * erased, or in a conversation they are not a member of: `window` null) is unknown to them rather
 * than forbidden, so that ids do not tell what exists elsewhere.
 */
export function deletionRefusal(me: string, target: DeletionTarget | undefined, window: ReadWindow): HttpError | null {
  if (!target || target.erased || window === null) return new HttpError(404, errorCodes.notFound, 'No such message');
  if (target.senderId !== me) return new HttpError(403, errorCodes.forbidden, 'Only its sender can delete a message for everyone');
  return null;
}
