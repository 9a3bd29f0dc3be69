/** Sender keys and messages: bodies and answers of /api/conversations, /api/epochs and /api/messages. */
import { z } from 'zod';
import { ownChannelShareSchema } from './channel-keys';
import { GENERAL_CONVERSATION, limits } from './limits';
import {
  attachmentIdSchema,
  base64,
  base64Bytes,
  epochIdSchema,
  groupConversationIdSchema,
  isGroupConversation,
  isoDate,
  publicKeySchema,
  receiverIdSchema,
  shareKeySchema,
  userIdSchema,
} from './primitives';

/** Conversation id: 'general', 'dm:<lower user id>:<higher user id>' or 'group:<group id>'. */
export const conversationIdSchema = z.union([
  z.literal(GENERAL_CONVERSATION),
  groupConversationIdSchema,
  z.string().regex(/^dm:[0-9a-f-]{36}:[0-9a-f-]{36}$/, 'must be a conversation id'),
]);

/** The conversation a (sender, receiverId) pair talks in; the same on both sides of a DM, the group's own id for a group. */
export function conversationIdFor(senderId: string, receiverId: string): string {
  if (receiverId === 'all') return GENERAL_CONVERSATION;
  if (isGroupConversation(receiverId)) return receiverId;
  const [a, b] = [senderId, receiverId].sort();
  return `dm:${a}:${b}`;
}

/** `GET /api/conversations/members`: the conversation, named as a send names it ('all' or the peer's id). */
export const conversationMembersQuerySchema = z.strictObject({ receiverId: receiverIdSchema });

/** Who an epoch must be wrapped for, at which membership version (docs/security.md §4). */
export const conversationMembersResponseSchema = z.object({
  conversationId: conversationIdSchema,
  membershipVersion: z.number().int().nonnegative(),
  members: z.array(
    z.object({
      id: userIdSchema,
      encryptionPublicKey: publicKeySchema,
      /** Absent for a member whose client has not published one yet. */
      shareKey: shareKeySchema.optional(),
    }),
  ),
});
/** The answer of `GET /api/conversations/members`. */
export type ConversationMembersResponse = z.infer<typeof conversationMembersResponseSchema>;

/** A wrapped chain key for one recipient, signed by the sender. */
export const epochShareUploadSchema = z.strictObject({
  recipientId: userIdSchema,
  /** RSA-OAEP-2048 ciphertext of the 32-byte chain key: 344 base64 characters. */
  wrappedKey: base64(512).min(300, 'must be a wrapped key'),
  /** ECDSA P-256 signature (IEEE P1363, 64 bytes): 88 base64 characters. */
  signature: base64(128).min(80, 'must be a signature'),
});

/**
 * `POST /api/epochs`: a sender's new epoch, wrapped for every member of `membershipVersion`;
 * refused with `membership_changed` when that version is no longer current (docs/security.md §4).
 */
export const createEpochRequestSchema = z.strictObject({
  epochId: epochIdSchema,
  receiverId: receiverIdSchema,
  membershipVersion: z.number().int().nonnegative(),
  shares: z.array(epochShareUploadSchema).min(1).max(limits.epochMaxRecipients),
});
/** The body of `POST /api/epochs`. */
export type CreateEpochRequest = z.infer<typeof createEpochRequestSchema>;

/** `GET /api/epochs/shares?ids=a,b`: up to 100 epoch ids, comma-separated. */
export const sharesQuerySchema = z.strictObject({
  ids: z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(epochIdSchema).min(1).max(limits.sharesMaxEpochs)),
});

const epochFields = {
  epochId: epochIdSchema,
  conversationId: conversationIdSchema,
  senderId: userIdSchema,
  membershipVersion: z.number().int().nonnegative(),
};

/** A member's own wrapped chain key of one epoch, with the epoch's signed fields. */
export const wrappedEpochShareSchema = z.object({ ...epochFields, wrappedKey: z.string(), signature: z.string() });
/** The caller's RSA-wrapped share of one epoch. */
export type WrappedEpochShare = z.infer<typeof wrappedEpochShareSchema>;

/**
 * For a sender epoch whose chain is derived from the channel key: the generation it was made at,
 * and the caller's share of its channel epoch (at that generation or an earlier one).
 */
export const derivedEpochShareSchema = z.object({
  ...epochFields,
  channel: z.object({ generation: z.number().int().nonnegative(), share: ownChannelShareSchema }),
});
/** The caller's way into one derived sender epoch. */
export type DerivedEpochShare = z.infer<typeof derivedEpochShareSchema>;

/**
 * A derived sender epoch of the channel key in force that the caller, a member when it was made,
 * holds no share of yet: the share is on its way (a re-key's background wrap, or the next sender's),
 * and a `channel_share` frame says when it is stored.
 */
export const awaitedEpochShareSchema = z.object({ epochId: epochIdSchema, awaiting: z.literal(true) });

/** What opens one epoch for the caller: its own wrapped share, or its share of the channel key (or word that it is coming). */
export const epochShareSchema = z.union([derivedEpochShareSchema, wrappedEpochShareSchema, awaitedEpochShareSchema]);
/** The caller's share of one epoch. */
export type EpochShare = z.infer<typeof epochShareSchema>;

/** The caller's own share of each epoch asked for; epochs the caller has no share of are absent. */
export const sharesResponseSchema = z.object({ shares: z.array(epochShareSchema) });
/** The answer of `GET /api/epochs/shares`. */
export type SharesResponse = z.infer<typeof sharesResponseSchema>;

// ---------------------------------------------------------------- messages

/**
 * A stored message as the server hands it out (send's answer, `chat_message` frame, history):
 * ciphertext only, with what the reader needs to find its epoch's key.
 */
export const messageSchema = z.object({
  /** Server-assigned, strictly increasing: the cursor for history and catch-up. */
  id: z.number().int().positive(),
  conversationId: conversationIdSchema,
  senderId: userIdSchema,
  senderUsername: z.string(),
  epochId: epochIdSchema,
  index: z.number().int().nonnegative(),
  encryptedContent: z.string(),
  timestamp: isoDate,
  /**
   * When the message disappears (the conversation's timer when it was stored), or null: the server
   * erases it then, and clients drop it from view at that time by their own clock. Absent from
   * servers older than the timers (a mixed-version bus, docs/architecture.md §3): never.
   */
  expiresAt: isoDate.nullable().default(null),
  /**
   * The id the sender's client gave the send (`clientMessageId`), or null when it gave none: the
   * sender's client knows its own message by it when the message's frame comes before the send's
   * answer. A random id, no more telling than the message's own. Absent from servers older than
   * it (a mixed-version bus, docs/architecture.md §3): null.
   */
  clientMessageId: z.uuid().nullable().default(null),
  /**
   * The message a reaction or an edit annotates (its kind stays inside the ciphertext), or null for
   * a message of its own. Absent from servers older than annotations: null.
   */
  targetId: z.number().int().positive().nullable().default(null),
});
/** A stored message. */
export type Message = z.infer<typeof messageSchema>;

/** A conversation's disappearing-message timer in seconds; 0 is off. */
export const disappearingTimerSchema = z.literal([...limits.disappearingTimers], {
  message: `must be one of ${limits.disappearingTimers.join(', ')} (seconds)`,
});
/** 0, 3600, 86400 or 604800 seconds. */
export type DisappearingTimer = z.infer<typeof disappearingTimerSchema>;

/**
 * What a conversation's timeline holds besides messages, at its place in the id order (ids are
 * drawn from the messages' sequence): a member set the disappearing-message timer, or a sender
 * deleted their message for everyone (its id is the message's).
 */
export const timelineEventSchema = z.object({
  id: z.number().int().positive(),
  conversationId: conversationIdSchema,
  /** Who set the timer, or who sent (and deleted) the message. */
  actorId: userIdSchema,
  timestamp: isoDate,
  event: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('timer_set'), seconds: disappearingTimerSchema }),
    z.object({ kind: z.literal('message_deleted') }),
  ]),
});
/** A timer change or a deletion in a conversation's timeline. */
export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/**
 * `POST /api/conversations/disappearing`: sets a conversation's timer (the channel's: admins and
 * the creator's accounts; a direct message's: either member).
 */
export const setDisappearingRequestSchema = z.strictObject({
  receiverId: receiverIdSchema,
  seconds: disappearingTimerSchema,
});
/** The body of `POST /api/conversations/disappearing`. */
export type SetDisappearingRequest = z.infer<typeof setDisappearingRequestSchema>;

/** The `timer_set` event the change put in the timeline. */
export const setDisappearingResponseSchema = z.object({ event: timelineEventSchema });

/** `DELETE /api/messages/:id`: the message to erase for everyone. */
export const messageParamsSchema = z.strictObject({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/**
 * `POST /api/messages/send`: one encrypted message under the sender's epoch `epochId`, at `index`
 * (below 100, docs/security.md §4); `messageType` is always 'text' (docs/spec.md §3).
 */
export const sendMessageRequestSchema = z.strictObject({
  receiverId: receiverIdSchema,
  epochId: epochIdSchema,
  index: z.number().int().nonnegative().lt(limits.epochMaxMessages),
  encryptedContent: z.string().min(1, 'Message is empty').max(limits.envelopeMaxBytes, 'Message exceeds 500 characters'),
  messageType: z.literal('text'),
  /**
   * Attachments uploaded for this message (POST /api/attachments), linked to it when it is stored:
   * the sender's own, uploaded to this conversation, not linked to another message yet.
   */
  attachmentIds: z.array(attachmentIdSchema).min(1).max(limits.attachmentsPerMessage).optional(),
  /**
   * The sender's own id for this message, new for each message and kept for its resends: a
   * resend of a stored message answers that message instead of storing it twice. Optional for
   * clients that predate it.
   */
  clientMessageId: z.uuid({ message: 'must be a message id' }).toLowerCase().optional(),
  /**
   * For an annotation (a reaction or an edit, told apart only inside the ciphertext): the message of
   * the same conversation it annotates, still held. It is erased with its target, and never outlives it.
   */
  targetId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
/** The body of `POST /api/messages/send`. */
export type SendMessageRequest = z.infer<typeof sendMessageRequestSchema>;

/** The stored message (the one already stored, for a resend of the same `clientMessageId`). */
export const sendMessageResponseSchema = z.object({ message: messageSchema });

/** `GET /api/messages/:id`: one message the caller may read (a reply's quoted target). */
export const oneMessageResponseSchema = z.object({
  message: messageSchema,
  /** The caller's own share of its epoch, if one was wrapped for them. */
  shares: z.array(epochShareSchema),
});
/** The answer of `GET /api/messages/:id`. */
export type OneMessageResponse = z.infer<typeof oneMessageResponseSchema>;

const cursor = z.coerce.number().int().positive();
/** `GET /api/messages/recent`: the latest page, a page before `before`, or the catch-up after `after`. */
export const historyQuerySchema = z.strictObject({
  receiverId: receiverIdSchema,
  /** Page backwards from here (exclusive). */
  before: cursor.optional(),
  /** Catch up forwards from here (exclusive), oldest first. */
  after: cursor.optional(),
  limit: z.coerce.number().int().min(1).max(limits.historyMaxPageSize).default(limits.historyPageSize),
});
/** The query of `GET /api/messages/recent`, as a caller writes it (`limit` may be left out). */
export type HistoryQuery = z.input<typeof historyQuerySchema>;

/** A page of a conversation's timeline: messages, timeline events and the shares to read them. */
export const historyResponseSchema = z.object({
  /** Oldest first. */
  messages: z.array(messageSchema),
  /** Oldest first; with the messages, they fill the page (`limit` counts both). */
  events: z.array(timelineEventSchema),
  /** The conversation's disappearing-message timer now. */
  disappearingSeconds: disappearingTimerSchema,
  hasMore: z.boolean(),
  /**
   * The caller's own shares of the epochs of these messages (one round trip less before the page
   * can be read); an epoch without one here was not wrapped for the caller.
   */
  shares: z.array(epochShareSchema),
});
/** The answer of `GET /api/messages/recent`. */
export type HistoryResponse = z.infer<typeof historyResponseSchema>;

/** AES-GCM nonce. */
const envelopeIv = base64Bytes(12, 12);
/** ECDSA P-256 signature, IEEE P1363 form. */
const envelopeSig = base64Bytes(64, 64);

/**
 * The versioned, base64 envelope carried in `encryptedContent` (built by @enclave/crypto). v1
 * carries a text message, v2 a message body (attachments.ts); the version is bound into the
 * signed associated data, so the server cannot turn one into the other.
 */
export const messageEnvelopeSchema = z.discriminatedUnion('v', [
  z.strictObject({
    v: z.literal(1),
    iv: envelopeIv,
    /** Ciphertext and 16-byte tag of at most 500 UTF-16 code units (≤ 1,500 UTF-8 bytes). */
    ct: base64Bytes(16, limits.ciphertextMaxBytes),
    sig: envelopeSig,
  }),
  z.strictObject({
    v: z.literal(2),
    iv: envelopeIv,
    /** Ciphertext and 16-byte tag of a message body of at most 8,192 UTF-8 bytes. */
    ct: base64Bytes(16, limits.bodyCiphertextMaxBytes),
    sig: envelopeSig,
  }),
]);
/** A parsed `encryptedContent`: v1 or v2. */
export type MessageEnvelope = z.infer<typeof messageEnvelopeSchema>;
