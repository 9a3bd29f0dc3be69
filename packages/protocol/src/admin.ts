/** Key administration and moderation: bodies and answers of /api/admin/*. */
import { z } from 'zod';
import { limits } from './limits';
import { isoDate, userIdSchema as userId } from './primitives';

/** An invite key's state: active until redeemed (used), revoked, or past its expiry (expired). */
export const keyStatusSchema = z.enum(['active', 'used', 'revoked', 'expired']);
/** `active`, `used`, `revoked` or `expired`. */
export type KeyStatus = z.infer<typeof keyStatusSchema>;

/**
 * An invite key as key administration lists it (docs/spec.md §3, Access key); `isCanary` marks a
 * tripwire key.
 */
export const accessKeySchema = z.object({
  id: z.uuid(),
  key: z.string(),
  purchaseId: z.string().nullable(),
  salePrice: z.number().nullable(),
  status: keyStatusSchema,
  isCanary: z.boolean(),
  generatedAt: isoDate,
  expiresAt: isoDate.nullable(),
  usedAt: isoDate.nullable(),
  /** The member who redeemed it. */
  username: z.string().nullable(),
});
/** An invite key as key administration lists it. */
export type AccessKey = z.infer<typeof accessKeySchema>;

/** `POST /api/admin/generate-keys`: the generate-keys form (docs/spec.md §5: quantity 1 to 1000). */
export const generateKeysRequestSchema = z.strictObject({
  quantity: z
    .number({ message: 'Quantity must be a number' })
    .int('Quantity must be a whole number')
    .min(limits.keyQuantityMin, `Quantity must be between ${limits.keyQuantityMin} and ${limits.keyQuantityMax}`)
    .max(limits.keyQuantityMax, `Quantity must be between ${limits.keyQuantityMin} and ${limits.keyQuantityMax}`),
  /** Left out when empty or zero: the keys never expire. */
  expirationDays: z.number().int('Expiration must be whole days').min(1).max(3650).optional(),
  purchaseId: z.string().trim().min(1).max(128).optional(),
  salePrice: z.number().min(0).max(1_000_000).optional(),
  /** Tripwire keys: never listed for sale; any use raises a critical security event. */
  canary: z.boolean().optional(),
});
/** The body of `POST /api/admin/generate-keys`. */
export type GenerateKeysRequest = z.infer<typeof generateKeysRequestSchema>;

/** The keys just created. */
export const generateKeysResponseSchema = z.object({ keys: z.array(accessKeySchema) });

/** `GET /api/admin/key-stats`: key counts, revenue and conversion (docs/spec.md §9). */
export const keyStatsSchema = z.object({
  total: z.number().int(),
  used: z.number().int(),
  unused: z.number().int(),
  /** Active, unused and unexpired: what can still be sold. */
  available: z.number().int(),
  revoked: z.number().int(),
  expired: z.number().int(),
  /** Sum of the sale prices of used keys, $50 for a key sold without one. */
  revenue: z.number(),
  /** Rounded used / total percentage. */
  conversionRate: z.number().int(),
});
/** The answer of `GET /api/admin/key-stats`. */
export type KeyStats = z.infer<typeof keyStatsSchema>;

/** `GET /api/admin/unused-keys`: the first 20 keys that can still be sold. */
export const keyListResponseSchema = z.object({ keys: z.array(accessKeySchema) });

/** Development mode only: keys to try the app with (docs/spec.md §7: quantity 1 or 10). */
export const testKeysRequestSchema = z.strictObject({ quantity: z.union([z.literal(1), z.literal(10)]) });
/** The access tokens of the test keys (development mode only). */
export const testKeysResponseSchema = z.object({ keys: z.array(z.object({ accessToken: z.string() })) });

/** `POST /api/admin/revoke-keys`: the ids of the keys to revoke. */
export const revokeKeysRequestSchema = z.strictObject({
  ids: z
    .array(z.uuid({ message: 'must be key ids' }).toLowerCase())
    .min(1, 'Choose at least one key')
    .max(limits.keyQuantityMax),
});
/** How many keys were revoked: only keys still active and unused are. */
export const revokeKeysResponseSchema = z.object({ revoked: z.number().int() });

/** `GET /api/admin/export-keys`: one sale batch by purchase ID, or all available keys without one. */
export const exportKeysQuerySchema = z.strictObject({ purchaseId: z.string().min(1).max(128).optional() });

/** `POST /api/admin/ban-user`: an admin bans a member who is not an administrator. */
export const banUserRequestSchema = z.strictObject({
  userId,
  reason: z.string().trim().min(1).max(200).default('Admin action'),
});
/** `POST /api/admin/unban-user` and `/api/super-admin/unban-user`: the member whose ban is lifted. */
export const unbanUserRequestSchema = z.strictObject({ userId });

/** The creator promotes members to admin and back (docs/security.md §7). */
export const setRoleRequestSchema = z.strictObject({ userId, role: z.enum(['member', 'admin']) });
