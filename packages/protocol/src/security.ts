/**
 * Security monitoring (docs/security.md §10): the creator's live monitor and metrics, blocked
 * addresses, a member's own security view and sessions, client breach reports, and the decoys.
 * Every figure here is counted from stored security events or other rows, never made up.
 */
import { z } from 'zod';
import { isoDate, userIdSchema as userId } from './primitives';

/** How serious a security event is (docs/spec.md §3, Threat vector). */
export const severitySchema = z.enum(['low', 'medium', 'high', 'critical']);
/** `low`, `medium`, `high` or `critical`. */
export type Severity = z.infer<typeof severitySchema>;

/** What one event of a severity adds to a threat score (docs/spec.md §9: 1 / 3 / 7 / 15). */
export const severityScores: Readonly<Record<Severity, number>> = { low: 1, medium: 3, high: 7, critical: 15 };

/** An IPv4 or IPv6 address as text (IPv4-mapped IPv6 is stored as the IPv4 address). */
export const ipAddressSchema = z.union([z.ipv4(), z.ipv6()], { message: 'must be an IP address' });

/** What the server does when a member's own client reports a breach (config BREACH_POLICY). */
export const breachPolicySchema = z.enum(['log', 'lock', 'wipe']);
/** `log`, `lock` or `wipe`. */
export type BreachPolicy = z.infer<typeof breachPolicySchema>;

/** Events per severity. */
export const severityCountsSchema = z.object({
  total: z.number().int(),
  critical: z.number().int(),
  high: z.number().int(),
  medium: z.number().int(),
  low: z.number().int(),
});
/** Events per severity. */
export type SeverityCounts = z.infer<typeof severityCountsSchema>;

/**
 * The addresses behind an event. `clientIP`, `forwardedFor` and `headers` are what the server saw
 * (forwarded-for only through a trusted proxy; cookies and authorization never kept). The local,
 * public and WebRTC addresses are present only when the member's own client reported them in a
 * breach report; the server never guesses them.
 */
export const ipAnalysisSchema = z.object({
  clientIP: z.string().nullable(),
  forwardedFor: z.array(z.string()),
  classification: z.enum(['loopback', 'private', 'public', 'unknown']),
  localNetworkIP: z.string().nullable(),
  publicIP: z.string().nullable(),
  webrtcIPs: z.array(z.string()),
  headers: z.record(z.string(), z.string()),
});
/** The addresses behind an event. */
export type IpAnalysis = z.infer<typeof ipAnalysisSchema>;

/**
 * One row of security_events. Repeats of an event within a minute are one row: `count` events,
 * the first at `timestamp`, the last at `lastSeen`.
 */
export const liveEventSchema = z.object({
  id: z.number().int(),
  type: z.string(),
  severity: severitySchema,
  timestamp: isoDate,
  lastSeen: isoDate,
  count: z.number().int(),
  /** The member the event is about, when known. */
  userId: userId.nullable(),
  username: z.string().nullable(),
  /** Who acted (audit entries): a member id, or 'creator'. */
  actor: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  ipAnalysis: ipAnalysisSchema,
});
/** One row of security_events as the creator's monitor shows it. */
export type LiveEvent = z.infer<typeof liveEventSchema>;

/** Newest first, at most 50 (docs/spec.md §9). */
export const liveEventsResponseSchema = z.object({ events: z.array(liveEventSchema) });

const aggregate = {
  /** Events (a coalesced row counts for its `count`). */
  events: z.number().int(),
  /** Sum of severityScores over the events. */
  score: z.number().int(),
  worst: severitySchema,
  lastSeen: isoDate,
};

/** Per source address and per event type, over the last 24 hours. */
export const threatSourceSchema = z.object({
  kind: z.enum(['ip', 'type']),
  /** The address, or the event type. */
  key: z.string(),
  ...aggregate,
  /** For an address: whether it is blocked now. */
  blocked: z.boolean(),
});
/** One address or event type of the threat intelligence. */
export type ThreatSource = z.infer<typeof threatSourceSchema>;

/** Per member, over the last 24 hours: their events and score, and when they were last active. */
export const behavioralProfileSchema = z.object({
  userId,
  username: z.string(),
  ...aggregate,
  types: z.array(z.string()),
  lastActivity: isoDate.nullable(),
});
/** One member's profile over the last 24 hours. */
export type BehavioralProfile = z.infer<typeof behavioralProfileSchema>;

/**
 * The network's security state. Names the specification uses for things that do not exist as such
 * map to measured facts of this system (docs/security.md §10 lists each mapping).
 */
export const securityStateSchema = z.object({
  emergencyMode: z.boolean(),
  breachPolicy: breachPolicySchema,
  /** Events per severity in the last 24 hours (here and below, audit entries are not threats and are not counted). */
  counts: severityCountsSchema,
  /** Sum of severityScores over the events of the last hour. */
  threatScore: z.number().int(),
  /** Events of high or critical severity in the last hour. */
  activeThreats: z.number().int(),
  /** Addresses blocked now. */
  blockedIPs: z.number().int(),
  /** "Deobfuscation": client reports of tampering (modified natives, debugger, devtools) in the last 24 hours. */
  tamperReports: z.number().int(),
  /** "Decoys": decoy endpoints served, and their hits in the last 24 hours. */
  decoyEndpoints: z.number().int(),
  decoyHits: z.number().int(),
  /** "Dynamic keys": sender-key epochs created in the last 24 hours. */
  dynamicKeys: z.number().int(),
  /** "Polymorphism": messages stored in the last 24 hours, each under a key derived for it alone. */
  messageKeys: z.number().int(),
  /** "Layers": encryption layers a message crosses here (AES-GCM content, RSA-OAEP-wrapped sender key, TLS when served over HTTPS). */
  encryptionLayers: z.number().int(),
  /** "Response time": median ms from a ban to its sockets closing, last 7 days; null before any. */
  responseTimeMs: z.number().nullable(),
  /** Countermeasures in force now, named with underscores (rate_limiting, ip_blocking, emergency_lockdown, …). */
  countermeasures: z.array(z.string()),
});
/** The network's security state. */
export type SecurityState = z.infer<typeof securityStateSchema>;

/**
 * `GET /api/security/metrics`: the threat intelligence, the members' profiles and the security
 * state (docs/spec.md §3, Metrics response).
 */
export const securityMetricsSchema = z.object({
  threatIntelligence: z.array(threatSourceSchema),
  behavioralProfiles: z.array(behavioralProfileSchema),
  metrics: securityStateSchema,
});
/** The answer of `GET /api/security/metrics`. */
export type SecurityMetrics = z.infer<typeof securityMetricsSchema>;

// Blocked addresses (creator only).
/** A blocked address: every instance refuses its requests and socket upgrades. */
export const blockedIpSchema = z.object({
  ip: z.string(),
  reason: z.string(),
  createdAt: isoDate,
  /** Null: until unblocked. */
  expiresAt: isoDate.nullable(),
  /** Refused requests and socket upgrades since the block. */
  hits: z.number().int(),
});
/** A blocked address. */
export type BlockedIp = z.infer<typeof blockedIpSchema>;
/** `POST /api/security/block-ip`: blocks an address, for a while or until unblocked. */
export const blockIpRequestSchema = z.strictObject({
  ip: ipAddressSchema,
  reason: z.string().trim().min(1).max(200).default('Manual block from admin panel'),
  /** Left out: until unblocked. */
  expiresInMinutes: z.number().int().min(1).max(525_600).optional(),
});
/** The block as stored. */
export const blockIpResponseSchema = z.object({ block: blockedIpSchema });
/** `POST /api/security/unblock-ip`: the address whose block is lifted. */
export const unblockIpRequestSchema = z.strictObject({ ip: ipAddressSchema });
/** `GET /api/security/blocked-ips`: the addresses blocked now. */
export const blockedIpsResponseSchema = z.object({ blocked: z.array(blockedIpSchema) });

// A member's client reporting its own detection (docs/spec.md §7 POST /api/security/breach).
/** One detection in a breach report (docs/spec.md §3, Threat vector). */
export const threatVectorSchema = z.strictObject({
  type: z.string().regex(/^[a-z_]{1,64}$/, 'must be a lower-case type name'),
  severity: severitySchema,
  description: z.string().max(300),
  timestamp: isoDate,
  source: z.string().max(100).optional(),
});
/** One detection in a breach report. */
export type ThreatVector = z.infer<typeof threatVectorSchema>;
/**
 * `POST /api/security/breach`: a member's client reporting its own tamper detection (docs/spec.md
 * §7); the breach policy applies to the reporter's own account only.
 */
export const breachReportSchema = z.strictObject({
  reason: z.string().trim().min(1).max(300),
  timestamp: isoDate,
  threatVectors: z.array(threatVectorSchema).max(20),
  securityMetrics: z.strictObject({
    threatLevel: z.number().int().min(0).max(100),
    detections: z.number().int().min(0).max(1_000_000),
  }),
  /** Only what the member's own browser knows of its addresses; the web app sends none by default. */
  addresses: z
    .strictObject({
      localNetworkIP: ipAddressSchema.optional(),
      publicIP: ipAddressSchema.optional(),
      webrtcIPs: z.array(ipAddressSchema).max(8).optional(),
    })
    .optional(),
});
/** The body of `POST /api/security/breach`. */
export type BreachReport = z.infer<typeof breachReportSchema>;
/** What the server did: logged only (anonymous reports always), locked or wiped the reporter's own account. */
export const breachResponseSchema = z.object({ policy: breachPolicySchema, action: z.enum(['logged', 'locked', 'wiped']) });

// A member's own security view (/security).
/** One of a member's own security events, without the details and addresses the creator sees. */
export const ownEventSchema = liveEventSchema.pick({ id: true, type: true, severity: true, timestamp: true, lastSeen: true, count: true });
/** `GET /api/security/me`: the member's own security view (`/security`). */
export const mySecurityResponseSchema = z.object({
  /** The member's own events of the last 30 days, per severity. */
  counts: severityCountsSchema,
  /** Their 20 latest, newest first. */
  events: z.array(ownEventSchema),
  breachPolicy: breachPolicySchema,
});
/** The answer of `GET /api/security/me`. */
export type MySecurity = z.infer<typeof mySecurityResponseSchema>;

/** A session's public id: random, unrelated to the cookie's token or its hash. */
export const sessionIdSchema = z.uuid({ message: 'must be a session id' }).toLowerCase();
/** One sign-in of the member: a device (a browser on a system) in their device list. */
export const sessionInfoSchema = z.object({
  id: sessionIdSchema,
  /** The sign-in: when this device was first seen. */
  createdAt: isoDate,
  /** When the session was last used, to within a few minutes. */
  lastActiveAt: isoDate,
  expiresAt: isoDate,
  /** The browser's User-Agent at sign-in, cut to 200 characters; the web app names the device from it. */
  userAgent: z.string().nullable(),
  /** The session this request came with. */
  current: z.boolean(),
});
/** One of the member's sessions. */
export type SessionInfo = z.infer<typeof sessionInfoSchema>;
/** `GET /api/auth/sessions`: the member's active sessions. */
export const sessionsResponseSchema = z.object({ sessions: z.array(sessionInfoSchema) });
/** `POST /api/auth/sessions/:id/revoke`: the session to end. */
export const sessionParamsSchema = z.strictObject({ id: sessionIdSchema });
/** How many sessions were ended. */
export const revokedSessionsResponseSchema = z.object({ revoked: z.number().int() });

/** `POST /api/super-admin/unlock-user`: the member locked by the breach policy who may sign in again. */
export const unlockUserRequestSchema = z.strictObject({ userId });

// Decoys: honeypot answers of a plausible shape; nothing in them is real.
/** Any body, or none: the decoys answer whatever they are sent. */
export const decoyRequestSchema = z.unknown();
/** A decoy's fake sign-in: a made-up token and user. */
export const decoyAuthResponseSchema = z.object({
  success: z.literal(true),
  token: z.string(),
  user: z.object({ id: z.string(), username: z.string() }),
});
/** A decoy's fake key validation: always valid. */
export const decoyValidateResponseSchema = z.object({ valid: z.literal(true), reason: z.string() });
/** A decoy's fake decryption. */
export const decoyDecryptResponseSchema = z.object({ decrypted: z.string() });
/** Any other decoy path's answer. */
export const decoyAnyResponseSchema = z.object({ status: z.literal('ok'), id: z.string() });
/** The rest of a decoy's path (`/api/decoy/*`). */
export const decoyPathParamsSchema = z.strictObject({ '*': z.string().max(512) });
