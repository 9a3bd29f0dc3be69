/** Members as the server shows them. */
import { z } from 'zod';
import { isoDate, publicKeySchema, roleSchema, userIdSchema } from './primitives';

export const selfUserSchema = z.object({
  id: userIdSchema,
  username: z.string(),
  role: roleSchema,
  isCreatorAccount: z.boolean(),
  joinedAt: isoDate,
});
export type SelfUser = z.infer<typeof selfUserSchema>;

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
export type PublicUser = z.infer<typeof publicUserSchema>;

export const userListResponseSchema = z.object({ users: z.array(publicUserSchema) });
export type UserListResponse = z.infer<typeof userListResponseSchema>;

