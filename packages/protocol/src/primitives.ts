/** Building blocks of the wire schemas. */
import { z } from 'zod';
import { limits } from './limits';

/** 64 lowercase hexadecimal characters: a 32-byte value such as the login key. */
export const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hexadecimal characters');
/** Base64 text of at most `max` characters (padding optional, length not checked against bytes). */
export const base64 = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
/** Canonical padded base64 of `min`..`max` bytes, as @enclave/crypto writes and reads it. */
export const base64Bytes = (min: number, max: number) =>
  z
    .string()
    .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be canonical base64')
    .refine(
      (s) => {
        const bytes = (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
        return bytes >= min && bytes <= max;
      },
      min === max ? `must encode ${min} bytes` : `must encode ${min} to ${max} bytes`,
    );

/**
 * A member's share key (docs/scaling.md §6): the raw X25519 public key channel secrets are wrapped
 * to, and the member's ECDSA signature over it, both canonical base64.
 */
export const shareKeySchema = z.strictObject({ sharePublicKey: base64Bytes(32, 32), signature: base64Bytes(64, 64) });
/** A member's share key with their signature. */
export type ShareKey = z.infer<typeof shareKeySchema>;

/** Invite keys are case-sensitive: 64 lowercase hex characters. */
export const inviteKeySchema = z.string().regex(/^[0-9a-f]{64}$/, 'Please enter a valid 64-character access key');
/** HKDF output of the access token; what login sends instead of the token (docs/security.md §2). */
export const loginKeySchema = hex64;
/** Ids are compared as text (conversation ids are built from them): always lower case. */
export const userIdSchema = z.uuid({ message: 'must be a user id' }).toLowerCase();
/** Client-chosen id of a sender-key epoch. */
export const epochIdSchema = z.uuid({ message: 'must be an epoch id' }).toLowerCase();
/** Server-assigned id of an uploaded attachment. */
export const attachmentIdSchema = z.uuid({ message: 'must be an attachment id' }).toLowerCase();
/** What every group's conversation id starts with. */
export const GROUP_PREFIX = 'group:';
/** A private group's conversation id, also what a send or a history names as `receiverId`: `group:<uuid>`. */
export const groupConversationIdSchema = z
  .string()
  .toLowerCase()
  .regex(/^group:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be a group id');
/** Whether a conversation id or receiver id names a private group. */
export const isGroupConversation = (id: string): boolean => id.startsWith(GROUP_PREFIX);
/** 'all' is the general channel; a user id is a direct message with that member; a group id is that group. */
export const receiverIdSchema = z.union([z.literal('all'), userIdSchema, groupConversationIdSchema]);
/**
 * A username as the server accepts it: trimmed, 1 to 32 letters, digits, dots, dashes and
 * underscores (docs/spec.md §5).
 */
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
/** A member's role on the server; `admin` is granted by the creator (docs/security.md §7). */
export const roleSchema = z.enum(['member', 'admin']);
/** `member` or `admin`. */
export type Role = z.infer<typeof roleSchema>;
/** A timestamp as ISO 8601 text with its offset; every date on the wire is one. */
export const isoDate = z.iso.datetime({ offset: true });

/** The answer of a call that has nothing more to say. */
export const okResponseSchema = z.object({ ok: z.literal(true) });
