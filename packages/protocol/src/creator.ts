/** The network creator's console: bodies and answers of /api/super-admin/*. */
import { z } from 'zod';
import { accessKeySchema, keyStatusSchema } from './admin';
import { limits } from './limits';
import { isoDate, userIdSchema as userId } from './primitives';
import { severitySchema } from './security';
import { publicUserSchema } from './users';

/** Emergency mode: whether it is on, and since when (null while off). */
export const emergencyStateSchema = z.object({ active: z.boolean(), since: isoDate.nullable() });
/** Whether emergency mode is on, and since when. */
export type EmergencyState = z.infer<typeof emergencyStateSchema>;

/**
 * `GET /api/super-admin/overview`: the creator's figures (docs/spec.md §3, Creator overview), as
 * plain numbers.
 */
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
/** The answer of `GET /api/super-admin/overview`. */
export type Overview = z.infer<typeof overviewSchema>;

/** A member as the creator monitors them: the public view, plus the invite key redeemed and its sale batch. */
export const monitoredUserSchema = publicUserSchema.omit({ encryptionPublicKey: true, signingPublicKey: true }).extend({
  /** Locked by the breach policy: no sign-in until the creator unlocks. */
  isLocked: z.boolean(),
  inviteKey: z.string().nullable(),
  purchaseId: z.string().nullable(),
});
/** A member as the creator monitors them. */
export type MonitoredUser = z.infer<typeof monitoredUserSchema>;
/** `GET /api/super-admin/monitor/users`: every member. */
export const monitoredUsersSchema = z.object({ users: z.array(monitoredUserSchema) });

/** `POST /api/super-admin/ban-user`: the creator bans any member, administrators included. */
export const creatorBanRequestSchema = z.strictObject({
  userId,
  reason: z.string().trim().min(1).max(200).default('Banned by network creator'),
});
/** `POST /api/super-admin/unban-users`: the members whose bans are lifted. */
export const unbanUsersRequestSchema = z.strictObject({ userIds: z.array(userId).min(1).max(10_000) });
/**
 * `POST /api/super-admin/set-creator-account`: marks an account as the creator's own (spared by the
 * emergency shutdown), or unmarks it.
 */
export const setCreatorAccountRequestSchema = z.strictObject({ userId, isCreatorAccount: z.boolean() });

/** `GET /api/admin/access-keys`: a filtered page of the key database, canaries included. */
export const accessKeysQuerySchema = z.strictObject({
  status: keyStatusSchema.optional(),
  /** Matches a purchase ID or the username that redeemed the key. */
  q: z.string().trim().max(128).optional(),
  /** The page after this key (the last of the previous page), in the list's order: oldest first. */
  after: z.uuid({ message: 'must be a key id' }).toLowerCase().optional(),
  limit: z.coerce.number().int().min(1).max(limits.keyPageMaxSize).default(limits.keyPageSize),
});
/** The query of `GET /api/admin/access-keys`, as a caller writes it (`limit` may be left out). */
export type AccessKeysQuery = z.input<typeof accessKeysQuerySchema>;

/** A page of the key database: `total` keys match the filter; `next` is the cursor of the page after, null at the end. */
export const keyPageResponseSchema = z.object({ keys: z.array(accessKeySchema), total: z.number().int(), next: z.uuid().nullable() });
/** A page of the key database. */
export type KeyPage = z.infer<typeof keyPageResponseSchema>;

/** `POST /api/super-admin/emergency-shutdown`: how many members were banned, and the emergency state now. */
export const shutdownResponseSchema = z.object({ banned: z.number().int(), emergency: emergencyStateSchema });
/** `POST /api/super-admin/lift-emergency`: the emergency state now (the bans stay). */
export const liftEmergencyResponseSchema = z.object({ emergency: emergencyStateSchema });
/** How many bans were lifted. */
export const unbanUsersResponseSchema = z.object({ unbanned: z.number().int() });

/** Security events counted per hour and type over the last 7 days. */
export const heatmapSchema = z.object({
  from: isoDate,
  to: isoDate,
  cells: z.array(z.object({ hour: isoDate, type: z.string(), count: z.number().int() })),
});
/** The answer of `GET /api/super-admin/security/heatmap`. */
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
/** The answer of `GET /api/super-admin/security/risk`. */
export type Risk = z.infer<typeof riskSchema>;

/**
 * `GET /api/super-admin/security/compliance`: checks of this deployment's security settings, each
 * scored 100 (compliant), 50 (warning) or 0, and their rounded mean.
 */
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
/** The answer of `GET /api/super-admin/security/compliance`. */
export type Compliance = z.infer<typeof complianceSchema>;
