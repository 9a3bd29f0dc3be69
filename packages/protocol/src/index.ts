/**
 * The wire: every HTTP body, response and WebSocket frame of Enclave, defined once and parsed on
 * both sides. Nothing here imports the server or the web app.
 */
import { z } from 'zod';
import { GENERAL_CONVERSATION, limits } from './limits';

export { GENERAL_CONVERSATION, limits } from './limits';
export * from './errors';
export * from './admin';
export * from './creator';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters');
const base64 = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
/** Canonical padded base64 of `min`..`max` bytes, as @enclave/crypto writes and reads it. */
const base64Bytes = (min: number, max: number) =>
  z
    .string()
    .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be canonical base64')
    .refine((s) => {
      const bytes = (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
      return bytes >= min && bytes <= max;
    }, min === max ? `must encode ${min} bytes` : `must encode ${min} to ${max} bytes`);

/** Invite keys are case-sensitive: 64 lowercase hex characters. */
export const inviteKeySchema = z.string().regex(/^[0-9a-f]{64}$/, 'Please enter a valid 64-character access key');
/** HKDF output of the access token; what login sends instead of the token (DESIGN.md section 3). */
export const loginKeySchema = hex64;
/** Ids are compared as text (conversation ids are built from them): always lower case. */
export const userIdSchema = z.uuid({ message: 'must be a user id' }).toLowerCase();
/** Client-chosen id of a sender-key epoch. */
export const epochIdSchema = z.uuid({ message: 'must be an epoch id' }).toLowerCase();
/** 'all' is the general channel; a user id is a direct message with that member. */
export const receiverIdSchema = z.union([z.literal('all'), userIdSchema]);
export const usernameSchema = z
  .string()
  .trim()
  .min(1, 'Please enter a username')
  .max(limits.usernameMaxChars, `Username must be at most ${limits.usernameMaxChars} characters`)
  .regex(/^[A-Za-z0-9_.-]+$/, 'Username may contain letters, digits, dot, dash and underscore only');
/** SPKI public key, base64. RSA-2048 SPKI is 392 characters; P-256 SPKI is 124. */
export const publicKeySchema = base64(1024).min(64, 'must be a public key');
/** PBKDF2/AES-GCM private-key bundle, base64(salt ‖ iv ‖ ciphertext). */
export const encryptedPrivateKeySchema = base64(8192).min(64, 'must be an encrypted key bundle');
export const roleSchema = z.enum(['member', 'admin']);
const isoDate = z.iso.datetime({ offset: true });

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

// ---------------------------------------------------------------- users

export const selfUserSchema = z.object({
  id: userIdSchema,
  username: z.string(),
  role: roleSchema,
  isSuperAdmin: z.boolean(),
  joinedAt: isoDate,
});
export type SelfUser = z.infer<typeof selfUserSchema>;

export const publicUserSchema = z.object({
  id: userIdSchema,
  username: z.string(),
  role: roleSchema,
  isSuperAdmin: z.boolean(),
  isBanned: z.boolean(),
  bannedReason: z.string().nullable(),
  online: z.boolean(),
  lastActivity: isoDate.nullable(),
  joinedAt: isoDate,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
});
export type PublicUser = z.infer<typeof publicUserSchema>;

export const userListResponseSchema = z.object({ users: z.array(publicUserSchema) });
export type UserListResponse = z.infer<typeof userListResponseSchema>;

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

/** Who an epoch must be wrapped for, at which membership version (DESIGN.md section 4). */
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
