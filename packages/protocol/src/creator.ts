/** The network creator's console: bodies and answers of /api/super-admin/*. */
import { z } from 'zod';
import { accessKeySchema, keyStatusSchema } from './admin';
import { limits } from './limits';
import { isoDate, userIdSchema as userId } from './primitives';
import { severitySchema } from './security';
import { publicUserSchema } from './users';

export const emergencyStateSchema = z.object({ active: z.boolean(), since: isoDate.nullable() });
export type EmergencyState = z.infer<typeof emergencyStateSchema>;

export const overviewSchema = z.object({
  totalUsers: z.number().int(),
  /** Members with a socket open right now. */
  onlineUsers: z.number().int(),
  /** Members not banned who were active (signed in or sent a message) in the last 24 hours. */
  activeUsers: z.number().int(),
  bannedUsers: z.number().int(),
  totalMessages: z.number().int(),
  emergency: emergencyStateSchema,
});
export type Overview = z.infer<typeof overviewSchema>;

/** A member as the creator monitors them: the public view, plus the invite key redeemed and its sale batch. */
export const monitoredUserSchema = publicUserSchema.omit({ encryptionPublicKey: true, signingPublicKey: true }).extend({
  /** Locked by the breach policy: no sign-in until the creator unlocks. */
  isLocked: z.boolean(),
  inviteKey: z.string().nullable(),
  purchaseId: z.string().nullable(),
});
export type MonitoredUser = z.infer<typeof monitoredUserSchema>;
export const monitoredUsersSchema = z.object({ users: z.array(monitoredUserSchema) });

export const creatorBanRequestSchema = z.strictObject({
  userId,
  reason: z.string().trim().min(1).max(200).default('Banned by network creator'),
});
export const unbanUsersRequestSchema = z.strictObject({ userIds: z.array(userId).min(1).max(10_000) });
export const setCreatorAccountRequestSchema = z.strictObject({ userId, isCreatorAccount: z.boolean() });

export const accessKeysQuerySchema = z.strictObject({
  status: keyStatusSchema.optional(),
  /** Matches a purchase ID or the username that redeemed the key. */
  q: z.string().trim().max(128).optional(),
  /** The page after this key (the last of the previous page), in the list's order: oldest first. */
  after: z.uuid({ message: 'must be a key id' }).toLowerCase().optional(),
  limit: z.coerce.number().int().min(1).max(limits.keyPageMaxSize).default(limits.keyPageSize),
});
export type AccessKeysQuery = z.input<typeof accessKeysQuerySchema>;

/** A page of the key database: `total` keys match the filter; `next` is the cursor of the page after, null at the end. */
export const keyPageResponseSchema = z.object({ keys: z.array(accessKeySchema), total: z.number().int(), next: z.uuid().nullable() });
export type KeyPage = z.infer<typeof keyPageResponseSchema>;

export const shutdownResponseSchema = z.object({ banned: z.number().int(), emergency: emergencyStateSchema });
export const liftEmergencyResponseSchema = z.object({ emergency: emergencyStateSchema });
export const unbanUsersResponseSchema = z.object({ unbanned: z.number().int() });

/** Security events counted per hour and type over the last 7 days. */
export const heatmapSchema = z.object({
  from: isoDate,
  to: isoDate,
  cells: z.array(z.object({ hour: isoDate, type: z.string(), count: z.number().int() })),
});
export type Heatmap = z.infer<typeof heatmapSchema>;

const riskEntry = z.object({
  score: z.number().int(),
  events: z.number().int(),
  worst: severitySchema,
  lastSeen: isoDate,
});
/** Risk from security events of the last 7 days: low 1, medium 3, high 7, critical 15 each. */
export const riskSchema = z.object({
  members: z.array(riskEntry.extend({ userId, username: z.string() })),
  ips: z.array(riskEntry.extend({ ip: z.string() })),
});
export type Risk = z.infer<typeof riskSchema>;

export const complianceSchema = z.object({
  score: z.number().int(),
  checks: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['compliant', 'warning', 'non_compliant']),
      score: z.number().int(),
      description: z.string(),
    }),
  ),
});
export type Compliance = z.infer<typeof complianceSchema>;
