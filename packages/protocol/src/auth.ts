/** Invite keys, accounts and sessions: bodies and answers of /api/keys and /api/auth. */
import { z } from 'zod';
import {
  encryptedPrivateKeySchema,
  inviteKeySchema,
  isoDate,
  loginKeySchema,
  publicKeySchema,
  shareKeySchema,
  usernameSchema,
} from './primitives';
import { selfUserSchema } from './users';

/**
 * `POST /api/keys/validate`: any text up to 256 characters; a malformed key is answered `valid:
 * false` with its reason, not refused.
 */
export const validateKeyRequestSchema = z.strictObject({ inviteKey: z.string().max(256) });
/** The body of `POST /api/keys/validate`. */
export type ValidateKeyRequest = z.infer<typeof validateKeyRequestSchema>;

/**
 * Whether an invite key can be redeemed; `reason` is the specification's text (docs/spec.md §8:
 * `errorTexts.keyValid`, `keyUsed`, …) and `keyInfo` is given for a valid key only (null otherwise).
 */
export const validateKeyResponseSchema = z.object({
  valid: z.boolean(),
  reason: z.string(),
  keyInfo: z.object({ generatedAt: isoDate, expiresAt: isoDate.nullable(), salePrice: z.number().nullable() }).nullable(),
  /**
   * True in emergency mode: no key is valid then, whatever its own state, and `reason` says
   * registration is closed, so the member learns it before choosing a username.
   */
  registrationClosed: z.boolean().optional(),
});
/** The answer of `POST /api/keys/validate`. */
export type ValidateKeyResponse = z.infer<typeof validateKeyResponseSchema>;

/**
 * `POST /api/auth/register`: redeems an invite key with the member's username, login key (never the
 * token), both public keys and the sealed private-key bundle (docs/security.md §3).
 */
export const registerRequestSchema = z.strictObject({
  inviteKey: inviteKeySchema,
  username: usernameSchema,
  loginKey: loginKeySchema,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
  encryptedPrivateKey: encryptedPrivateKeySchema,
  /** The share key derived from the signing key; a client that leaves it out publishes it at sign-in. */
  shareKey: shareKeySchema.optional(),
});
/** The body of `POST /api/auth/register`. */
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/**
 * A random id the browser keeps (localStorage) so that the server counts its failed sign-ins
 * apart from other browsers behind the same address; not a secret, never stored by the server.
 */
export const browserIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hexadecimal characters');

/**
 * `POST /api/auth/login`: the login key derived from the access token, and the browser's id for
 * counting failed sign-ins.
 */
export const loginRequestSchema = z.strictObject({ loginKey: loginKeySchema, browserId: browserIdSchema.optional() });
/** The body of `POST /api/auth/login`. */
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** Registration creates the member; the browser then signs in with the new token. */
export const registerResponseSchema = z.object({ user: selfUserSchema });

/** Returned by login and /api/auth/me. The session itself travels as an HttpOnly cookie. */
export const sessionResponseSchema = z.object({
  user: selfUserSchema,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
  encryptedPrivateKey: encryptedPrivateKeySchema,
  /** Whether the member sends (and so sees) read receipts; absent from servers before them, read as off. */
  readReceipts: z.boolean().default(false),
});
/** The answer of login and `/api/auth/me`. */
export type SessionResponse = z.infer<typeof sessionResponseSchema>;
