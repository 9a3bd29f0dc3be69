/**
 * The wire: every HTTP body, response and WebSocket frame of Enclave, defined once and parsed on
 * both sides. Nothing here imports the server or the web app.
 */
import { z } from 'zod';
import { GENERAL_CONVERSATION, limits } from './limits';
import {
  base64,
  base64Bytes,
  encryptedPrivateKeySchema,
  epochIdSchema,
  inviteKeySchema,
  isoDate,
  loginKeySchema,
  publicKeySchema,
  receiverIdSchema,
  userIdSchema,
  usernameSchema,
} from './primitives';
import { selfUserSchema } from './users';

export { GENERAL_CONVERSATION, limits } from './limits';
export * from './primitives';
export * from './users';
export * from './errors';
export * from './admin';
export * from './creator';

/** Conversation id: 'general' or 'dm:<lower user id>:<higher user id>'. */
export const conversationIdSchema = z.union([
  z.literal(GENERAL_CONVERSATION),
  z.string().regex(/^dm:[0-9a-f-]{36}:[0-9a-f-]{36}$/, 'must be a conversation id'),
]);

/** The conversation a (sender, receiverId) pair talks in; the same on both sides of a DM. */
export function conversationIdFor(senderId: string, receiverId: string): string {
  if (receiverId === 'all') return GENERAL_CONVERSATION;
  const [a, b] = [senderId, receiverId].sort();
  return `dm:${a}:${b}`;
}

// ---------------------------------------------------------------- keys and auth

export const validateKeyRequestSchema = z.strictObject({ inviteKey: z.string().max(256) });
export type ValidateKeyRequest = z.infer<typeof validateKeyRequestSchema>;

export const validateKeyResponseSchema = z.object({
  valid: z.boolean(),
  reason: z.string(),
  keyInfo: z
    .object({ generatedAt: isoDate, expiresAt: isoDate.nullable(), salePrice: z.number().nullable() })
    .nullable(),
});
export type ValidateKeyResponse = z.infer<typeof validateKeyResponseSchema>;

export const registerRequestSchema = z.strictObject({
  inviteKey: inviteKeySchema,
  username: usernameSchema,
  loginKey: loginKeySchema,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
  encryptedPrivateKey: encryptedPrivateKeySchema,
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

export const loginRequestSchema = z.strictObject({ loginKey: loginKeySchema });
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** Registration creates the member; the browser then signs in with the new token. */
export const registerResponseSchema = z.object({ user: selfUserSchema });

/** Returned by login and /api/auth/me. The session itself travels as an HttpOnly cookie. */
export const sessionResponseSchema = z.object({
  user: selfUserSchema,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
  encryptedPrivateKey: encryptedPrivateKeySchema,
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

export const okResponseSchema = z.object({ ok: z.literal(true) });

// ---------------------------------------------------------------- sender keys

export const conversationMembersQuerySchema = z.strictObject({ receiverId: receiverIdSchema });

/** Who an epoch must be wrapped for, at which membership version (docs/security.md §4). */
export const conversationMembersResponseSchema = z.object({
  conversationId: conversationIdSchema,
  membershipVersion: z.number().int().nonnegative(),
  members: z.array(z.object({ id: userIdSchema, encryptionPublicKey: publicKeySchema })),
});
export type ConversationMembersResponse = z.infer<typeof conversationMembersResponseSchema>;

/** A wrapped chain key for one recipient, signed by the sender. */
export const epochShareUploadSchema = z.strictObject({
  recipientId: userIdSchema,
  /** RSA-OAEP-2048 ciphertext of the 32-byte chain key: 344 base64 characters. */
  wrappedKey: base64(512).min(300, 'must be a wrapped key'),
  /** ECDSA P-256 signature (IEEE P1363, 64 bytes): 88 base64 characters. */
  signature: base64(128).min(80, 'must be a signature'),
});

export const createEpochRequestSchema = z.strictObject({
  epochId: epochIdSchema,
  receiverId: receiverIdSchema,
  membershipVersion: z.number().int().nonnegative(),
  shares: z.array(epochShareUploadSchema).min(1).max(limits.epochMaxRecipients),
});
export type CreateEpochRequest = z.infer<typeof createEpochRequestSchema>;

export const sharesQuerySchema = z.strictObject({
  ids: z
    .string()
    .transform((s) => s.split(','))
    .pipe(z.array(epochIdSchema).min(1).max(limits.sharesMaxEpochs)),
});

/** The caller's own share of each epoch asked for; epochs the caller has no share of are absent. */
export const sharesResponseSchema = z.object({
  shares: z.array(
    z.object({
      epochId: epochIdSchema,
      conversationId: conversationIdSchema,
      senderId: userIdSchema,
      membershipVersion: z.number().int().nonnegative(),
      wrappedKey: z.string(),
      signature: z.string(),
    }),
  ),
});
export type SharesResponse = z.infer<typeof sharesResponseSchema>;
export type EpochShare = SharesResponse['shares'][number];

// ---------------------------------------------------------------- messages

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
});
export type Message = z.infer<typeof messageSchema>;

export const sendMessageRequestSchema = z.strictObject({
  receiverId: receiverIdSchema,
  epochId: epochIdSchema,
  index: z.number().int().nonnegative().lt(limits.epochMaxMessages),
  encryptedContent: z
    .string()
    .min(1, 'Message is empty')
    .max(limits.envelopeMaxBytes, 'Message exceeds 500 characters'),
  messageType: z.literal('text'),
});
export type SendMessageRequest = z.infer<typeof sendMessageRequestSchema>;

export const sendMessageResponseSchema = z.object({ message: messageSchema });

const cursor = z.coerce.number().int().positive();
export const historyQuerySchema = z.strictObject({
  receiverId: receiverIdSchema,
  /** Page backwards from here (exclusive). */
  before: cursor.optional(),
  /** Catch up forwards from here (exclusive), oldest first. */
  after: cursor.optional(),
  limit: z.coerce.number().int().min(1).max(limits.historyMaxPageSize).default(limits.historyPageSize),
});
export type HistoryQuery = z.input<typeof historyQuerySchema>;

export const historyResponseSchema = z.object({
  /** Oldest first. */
  messages: z.array(messageSchema),
  hasMore: z.boolean(),
});
export type HistoryResponse = z.infer<typeof historyResponseSchema>;

/** The versioned, base64 envelope carried in `encryptedContent` (built by @enclave/crypto). */
export const messageEnvelopeSchema = z.strictObject({
  v: z.literal(1),
  /** AES-GCM nonce. */
  iv: base64Bytes(12, 12),
  /** Ciphertext and 16-byte tag of at most 500 UTF-16 code units (≤ 1,500 UTF-8 bytes). */
  ct: base64Bytes(16, limits.ciphertextMaxBytes),
  /** ECDSA P-256 signature, IEEE P1363 form. */
  sig: base64Bytes(64, 64),
});
export type MessageEnvelope = z.infer<typeof messageEnvelopeSchema>;

// ---------------------------------------------------------------- WebSocket frames

/** The socket authenticates with the session cookie sent at upgrade; no secret crosses it. */
export const clientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('authenticate') }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

export const serverFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('authenticated'), userId: userIdSchema }),
  z.object({ type: z.literal('auth_failed'), message: z.string() }),
  z.object({ type: z.literal('chat_message'), message: messageSchema }),
  z.object({ type: z.literal('presence'), userId: userIdSchema, online: z.boolean() }),
  /** The member list changed (join, ban, unban): refetch it. */
  z.object({ type: z.literal('users_changed') }),
  z.object({
    type: z.literal('membership_changed'),
    conversationId: conversationIdSchema,
    membershipVersion: z.number().int().nonnegative(),
  }),
  /** The server ended this session (logout elsewhere, ban, shutdown); the socket closes after. */
  z.object({ type: z.literal('session_ended'), reason: z.string(), message: z.string() }),
  z.object({ type: z.literal('security_breach'), message: z.string() }),
  z.object({ type: z.literal('network_security_alert'), message: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({ type: z.literal('pong') }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
