/** Members as the server shows them. */
import { z } from 'zod';
import { limits } from './limits';
import { isoDate, publicKeySchema, roleSchema, userIdSchema } from './primitives';

/**
 * The signed-in member as login, registration and `/api/auth/me` answer it (docs/spec.md §3,
 * Session user).
 */
export const selfUserSchema = z.object({
  id: userIdSchema,
  username: z.string(),
  role: roleSchema,
  isCreatorAccount: z.boolean(),
  joinedAt: isoDate,
});
/** The signed-in member. */
export type SelfUser = z.infer<typeof selfUserSchema>;

/**
 * A member as every other member sees them in the member list: moderation state, presence and the
 * public keys to pin (docs/spec.md §3, User).
 */
export const publicUserSchema = z.object({
  id: userIdSchema,
  username: z.string(),
  role: roleSchema,
  isCreatorAccount: z.boolean(),
  isBanned: z.boolean(),
  bannedReason: z.string().nullable(),
  /** Wiped by the breach policy: no keys left, no share of any later epoch. */
  isCompromised: z.boolean(),
  online: z.boolean(),
  lastActivity: isoDate.nullable(),
  joinedAt: isoDate,
  encryptionPublicKey: publicKeySchema,
  signingPublicKey: publicKeySchema,
});
/** A member of the member list. */
export type PublicUser = z.infer<typeof publicUserSchema>;

/** `GET /api/users/all`: every member. */
export const userListResponseSchema = z.object({ users: z.array(publicUserSchema) });
/** The answer of `GET /api/users/all`. */
export type UserListResponse = z.infer<typeof userListResponseSchema>;

/**
 * `POST /api/users/lookup`: the members with these ids, as the member list gives them. A POST
 * because a thousand ids do not fit a URL; it changes nothing.
 */
export const userLookupRequestSchema = z.strictObject({ ids: z.array(userIdSchema).min(1).max(limits.usersPerLookup) });
/** The body of `POST /api/users/lookup`. */
export type UserLookupRequest = z.infer<typeof userLookupRequestSchema>;
