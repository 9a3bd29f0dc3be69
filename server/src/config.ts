import { isIP } from 'node:net';
import path from 'node:path';
import { breachPolicySchema, limits } from '@enclave/protocol';
import { z } from 'zod';
import { masterKeyRefusal } from './creator/master-key';
import { pushEndpointAllowEnv, pushSubjectEnv } from './push/config';
import type { SlowRequestLimits } from './http/slow-requests';
import { webDistDir } from './paths';

/**
 * Which peers' `X-Forwarded-*` headers are believed (TRUST_PROXY, docs/operations.md §5): none,
 * the last `hops` proxies (counted from the right of `X-Forwarded-For`; the server must be
 * reachable only through them), or the proxies at these addresses, CIDRs or `@fastify/proxy-addr`
 * names. Never every entry.
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const trustProxyEnv = z
  .string()
  .default('false')
  .transform((value, ctx): TrustProxy => {
    const v = value.trim();
    if (v === 'true') {
      ctx.addIssue({
        code: 'custom',
        message:
          'TRUST_PROXY=true is no longer accepted: it believes every X-Forwarded-For entry, which the client writes itself. ' +
          'Set TRUST_PROXY to the number of proxies in front of the server (usually 1) or to their addresses (e.g. 127.0.0.1 or 10.0.0.0/8).',
      });
      return z.NEVER;
    }
    if (v === 'false' || v === '0') return false;
    if (/^\d+$/.test(v)) return { hops: Number(v) };
    const addresses = v.split(',').map((a) => a.trim());
    if (!addresses.every(isProxyAddress)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'TRUST_PROXY must be false, a number of proxies, or a comma-separated list of proxy addresses or CIDRs (loopback, linklocal and uniquelocal are names for ranges)',
      });
      return z.NEVER;
    }
    return { addresses };
  });

/** PUBLIC_ORIGIN: comma-separated origins (scheme, host, port), normalised as browsers send them in `Origin`. */
const publicOriginEnv = z
  .string()
  .optional()
  .transform((value, ctx): string[] | undefined => {
    if (value === undefined) return undefined;
    const origins: string[] = [];
    for (const entry of value.split(',').map((o) => o.trim())) {
      let url: URL | null = null;
      try {
        url = new URL(entry);
      } catch {
        // refused below
      }
      const bare =
        url &&
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        url.pathname === '/' &&
        !url.search &&
        !url.hash &&
        !url.username &&
        !url.password;
      if (!url || !bare) {
        ctx.addIssue({
          code: 'custom',
          message: `PUBLIC_ORIGIN must list origins such as https://chat.example.org (scheme, host and port only); got "${entry}"`,
        });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/**
 * ICE_SERVERS: comma-separated STUN/TURN URLs for the web app's peer connections (RFC 7064/7065
 * syntax: stun:host[:port], turn:host[:port][?transport=udp|tcp], turns:…). Unset: none.
 */
const iceServersEnv = z
  .string()
  .optional()
  .transform((value, ctx): string[] => {
    const entries = (value ?? '')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    for (const entry of entries) {
      if (
        !/^(stun|stuns|turn|turns):[A-Za-z0-9.-]+(:\d{1,5})?(\?transport=(udp|tcp))?$|^(stun|stuns|turn|turns):\[[0-9A-Fa-f:.]+\](:\d{1,5})?(\?transport=(udp|tcp))?$/.test(
          entry,
        )
      ) {
        ctx.addIssue({
          code: 'custom',
          message: `ICE_SERVERS must list STUN/TURN URLs such as stun:stun.example.org:3478 or turn:turn.example.org?transport=udp; got "${entry}"`,
        });
        return z.NEVER;
      }
    }
    return entries;
  });

/** Security events and audit entries are deleted after this many days unless SECURITY_EVENT_RETENTION_DAYS says otherwise. */
export const SECURITY_EVENT_RETENTION_DAYS = 30;

/** A rate limit: `max` requests (sign-ins: failures) per `windowMs`. The server enforces them; the client's are a courtesy. */
export type RateLimit = { max: number; windowMs: number };

export const defaultRateLimits = {
  /**
   * Wrong tokens per browser (its id, or the address for a client without one); the right token is
   * never counted. docs/spec.md §5: five login attempts per 60 s, counted as failures (docs/security.md §9).
   */
  login: { max: limits.loginAttempts, windowMs: limits.loginWindowMs },
  /**
   * Wrong tokens per address, whichever browsers they come from: several browsers behind one
   * network (NAT, an office) each get their own five before this.
   */
  loginPerAddress: { max: limits.loginFailuresPerAddress, windowMs: limits.loginWindowMs },
  /**
   * Every sign-in request per address, right tokens too, checked before the token is looked up.
   * Each right token opens a session: this bounds the sign-ins one address can make, set far above
   * what members sharing a NAT ever reach (their wrong tokens are held back by the two above first).
   */
  loginRequests: { max: 100, windowMs: 60_000 },
  validateKey: { max: 30, windowMs: 60_000 },
  register: { max: 10, windowMs: 60_000 },
  send: { max: 30, windowMs: 10_000 },
  /** Epoch rotations: one writes a share per member, far rarer than messages. */
  epoch: { max: 20, windowMs: 60_000 },
  /** Uploads of channel-key shares: a new channel epoch for 100,000 members is 20 of them. */
  channelShares: { max: 60, windowMs: 60_000 },
  /** Group creations, additions and removals per member (each seals a name for up to 1,000 members, or moves a member set). */
  groupChange: { max: 20, windowMs: 60_000 },
  /** Disappearing-timer changes per member (each is a timeline event every member of the conversation sees). */
  timerChange: { max: 10, windowMs: 60_000 },
  /** Read positions and read-receipt setting changes per member: the web app posts a position at most once a second while reading. */
  readPosition: { max: 120, windowMs: 60_000 },
  /** P2P connection requests per member: one per node joined, and a few retries. */
  p2pConnect: { max: 20, windowMs: 60_000 },
  /**
   * P2P signaling frames (offers, answers, candidates, closes) per member, over every socket of
   * theirs: a connection's negotiation is an offer, an answer and a few dozen candidates each way.
   */
  p2pSignal: { max: 600, windowMs: 60_000 },
  /** Wrong master keys per address; counted in the security events, so it holds across instances. */
  masterKey: { max: 5, windowMs: 60_000 },
  /** Client breach reports (a public route): a client reports once per detection burst; more is a flood of the events table. */
  breach: { max: 10, windowMs: 60_000 },
  /** Attachment uploads per member (each up to 10 MiB): 30 a minute is already far more than a person sends. */
  attachmentUpload: { max: 30, windowMs: 60_000 },
  /** Attachment downloads per member (a page of history may show dozens of images). */
  attachmentDownload: { max: 600, windowMs: 60_000 },
  /**
   * Hits on each decoy route per address (an IPv6 address's /64); the login screen calls three
   * decoys per detection. Decoys are for attackers: an honest client calls each a few times
   * (web/src/net/security-api.ts).
   */
  decoy: { max: 10, windowMs: 60_000 },
} satisfies Record<string, RateLimit>;

/** Every rate limit the server enforces, by name. */
export type RateLimits = { [K in keyof typeof defaultRateLimits]: RateLimit };

/** Uploads no message linked are deleted after an hour, looked for every ten minutes. */
export const ATTACHMENT_ORPHAN_MS = 60 * 60 * 1000;
export const ATTACHMENT_SWEEP_MS = 10 * 60 * 1000;

/**
 * The limits with no window longer than `capMs` (RATE_LIMIT_WINDOW_MS): the same counts over a
 * shorter time, so tests of the limits need not wait out a real minute.
 */
export function rateLimitsWithWindowCap(limits: RateLimits, capMs: number | undefined): RateLimits {
  if (capMs === undefined) return limits;
  const capped = Object.entries(limits).map(([name, l]) => [name, { max: l.max, windowMs: Math.min(l.windowMs, capMs) }]);
  return Object.fromEntries(capped) as RateLimits;
}

/**
 * Where attachment ciphertext lives: files under DATA_DIR/attachments (one machine), or an
 * S3-compatible bucket every instance reaches. S3 credentials come from the AWS SDK's usual
 * sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role), never from
 * this configuration; tests pass theirs explicitly.
 */
export type AttachmentStoreConfig =
  | { kind: 'local' }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      endpoint?: string;
      prefix: string;
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

/**
 * The environment and what the server makes of it, in one schema: the variables with their
 * defaults and messages, then the Config they give (docs/operations.md §2).
 */
const configSchema = z
  .object({
    /** Set by npm: where the command was typed. */
    INIT_CWD: z.string().optional(),
    PORT: z.coerce.number().int().min(0).max(65535).default(5000),
    HOST: z.string().default('127.0.0.1'),
    DATA_DIR: z.string().default('./data'),
    DATABASE_URL: z.string().url().optional(),
    /** PostgreSQL connections of this instance (docs/operations.md §2). */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
    REDIS_URL: z.string().url().optional(),
    /** Set: Prometheus metrics at http://METRICS_HOST:METRICS_PORT/metrics, a listener apart from PORT (http/metrics.ts). */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** The metrics listener's address: loopback unless the scraper is elsewhere (never the public one). */
    METRICS_HOST: z.string().default('127.0.0.1'),
    /** Prefix of every Redis key and channel: deployments (and test runs) sharing a Redis stay apart. */
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
      .default('enclave'),
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Reverse proxies in front of us: a hop count or their addresses (see {@link TrustProxy}). */
    TRUST_PROXY: trustProxyEnv,
    /** Where browsers reach us, for the Origin check (app.ts); unset: http://HOST:PORT and the request's Host. */
    PUBLIC_ORIGIN: publicOriginEnv,
    /** The creator's master key, 128 lowercase hex; generated at the first start when absent. */
    MASTER_KEY: z.string().optional(),
    /** During a rotation only: the old master key, still accepted beside MASTER_KEY (docs/operations.md §6). */
    MASTER_KEY_PREVIOUS: z.string().optional(),
    /**
     * A testing aid: caps the window of every per-address limit at this many milliseconds, counts
     * unchanged, so a test waits seconds, not minutes, for a limit to lift. Unset in production.
     */
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().optional(),
    /**
     * A testing aid: a message of a conversation with a disappearing timer expires after at most this
     * many milliseconds, so an end-to-end test sees the server erase it. Unset in production.
     */
    DISAPPEARING_TIMER_CAP_MS: z.coerce.number().int().positive().optional(),
    /** What a signed-in member's own breach report does to their account (docs/security.md §10). */
    BREACH_POLICY: breachPolicySchema.default('log'),
    /** STUN/TURN servers the web app's peer connections use (P2P network); see docs/operations.md. */
    ICE_SERVERS: iceServersEnv,
    /** Attachment ciphertext each member may keep stored, in MiB (docs/operations.md §2). */
    ATTACHMENT_QUOTA_MB: z.coerce.number().int().min(1).max(1_000_000).default(500),
    /** Set: attachments go to this S3 bucket (several instances) instead of DATA_DIR/attachments. */
    ATTACHMENTS_S3_BUCKET: z.string().min(3).max(63).optional(),
    /** An S3-compatible service's URL (MinIO, Ceph, …); unset: AWS S3 itself. */
    ATTACHMENTS_S3_ENDPOINT: z.url({ message: 'ATTACHMENTS_S3_ENDPOINT must be a URL such as https://s3.example.org' }).optional(),
    ATTACHMENTS_S3_REGION: z.string().min(1).default('us-east-1'),
    /** Prepended to every object key, so that a bucket can be shared. */
    ATTACHMENTS_S3_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_./-]{0,128}$/, 'ATTACHMENTS_S3_PREFIX may hold letters, digits and _ . / - only')
      .default('attachments/'),
    /** coturn's static-auth-secret: members get short-lived credentials for the turn: URLs (p2p/turn.ts). */
    TURN_SECRET: z.string().min(16, 'TURN_SECRET must be at least 16 characters (coturn static-auth-secret)').optional(),
    /** Requests and socket tasks working on the database at once, past which this instance answers 503 (http/overload.ts). */
    MAX_IN_FLIGHT: z.coerce.number().int().positive().default(128),
    /** Longest an erased message or key stays in the embedded database's files, in seconds (db/erasure.ts). */
    ERASURE_SCRUB_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** More https origins Web Push may be sent to, beside the known push services (push/endpoints.ts). */
    PUSH_ENDPOINT_ALLOW: pushEndpointAllowEnv,
    /** A PEM file of extra certificate authorities trusted for push endpoints (a self-hosted push service's private CA). */
    PUSH_ENDPOINT_CA: z.string().min(1).optional(),
    /** The VAPID contact push services see: a mailto: or https: URL; unset: the first https PUBLIC_ORIGIN, else none given. */
    PUSH_SUBJECT: pushSubjectEnv,
    /** Security events and audit entries older than this many days are deleted (security/events.ts). */
    SECURITY_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(SECURITY_EVENT_RETENTION_DAYS),
  })
  .refine((e) => !e.TURN_SECRET || e.ICE_SERVERS.some((u) => /^turns?:/.test(u)), {
    path: ['TURN_SECRET'],
    message: 'TURN_SECRET is set but ICE_SERVERS lists no turn: or turns: URL to use it with',
  })
  .superRefine((e, ctx) => {
    // The rule is creator/master-key.ts's; its messages name the setting, never the key.
    const refusal = masterKeyRefusal(e.MASTER_KEY, e.MASTER_KEY_PREVIOUS);
    if (refusal)
      ctx.addIssue({
        code: 'custom',
        path: [refusal.startsWith('MASTER_KEY_PREVIOUS') ? 'MASTER_KEY_PREVIOUS' : 'MASTER_KEY'],
        message: refusal,
      });
  })
  .transform((e) => {
    const store: AttachmentStoreConfig = e.ATTACHMENTS_S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.ATTACHMENTS_S3_BUCKET,
          region: e.ATTACHMENTS_S3_REGION,
          endpoint: e.ATTACHMENTS_S3_ENDPOINT,
          prefix: e.ATTACHMENTS_S3_PREFIX,
        }
      : { kind: 'local' };
    return {
      port: e.PORT,
      host: e.HOST,
      // Relative to where the command was typed (npm runs workspace scripts inside server/).
      dataDir: path.resolve(e.INIT_CWD ?? process.cwd(), e.DATA_DIR),
      databaseUrl: e.DATABASE_URL,
      /** PostgreSQL connections at most (DATABASE_POOL_MAX); unused on the embedded database, so tests leave it out. */
      databasePoolMax: e.DATABASE_POOL_MAX as number | undefined,
      redisUrl: e.REDIS_URL,
      redisPrefix: e.REDIS_PREFIX,
      /** Prometheus metrics on their own listener (METRICS_PORT, METRICS_HOST); absent: none. */
      metrics: e.METRICS_PORT === undefined ? undefined : { port: e.METRICS_PORT, host: e.METRICS_HOST },
      production: e.NODE_ENV === 'production',
      logLevel: e.LOG_LEVEL,
      trustProxy: e.TRUST_PROXY,
      /**
       * The origins browsers use to reach us (PUBLIC_ORIGIN). Absent: the origin of http://HOST:PORT
       * and, whatever its scheme, the host the request itself names (local development).
       */
      publicOrigins: e.PUBLIC_ORIGIN,
      masterKey: e.MASTER_KEY,
      /** MASTER_KEY_PREVIOUS: the old key, accepted beside `masterKey` while a rotation is under way. */
      masterKeyPrevious: e.MASTER_KEY_PREVIOUS,
      /** Built web app to serve; absent in API-only tests. */
      webDist: webDistDir as string | undefined,
      /** log: an event only; lock: the reporter's account locked until the creator unlocks; wipe: their keys deleted. */
      breachPolicy: e.BREACH_POLICY,
      /** STUN/TURN URLs handed to members for WebRTC (GET /api/p2p/config). */
      iceServers: e.ICE_SERVERS,
      attachments: {
        store,
        /** Bytes of ciphertext a member may keep stored (linked or not). */
        quotaBytes: e.ATTACHMENT_QUOTA_MB * 1024 * 1024,
        /** An upload no message linked within this long is deleted by the sweep. */
        orphanAfterMs: ATTACHMENT_ORPHAN_MS,
        /** How often each instance sweeps. */
        sweepEveryMs: ATTACHMENT_SWEEP_MS,
      },
      /** Shared with the TURN server (coturn use-auth-secret) to mint members' short-lived credentials. */
      turnSecret: e.TURN_SECRET,
      /** Database work in flight at once (MAX_IN_FLIGHT), past which requests are refused with 503 and Retry-After. */
      maxInFlight: e.MAX_IN_FLIGHT,
      /** How soon after an erasure its table is scrubbed (ERASURE_SCRUB_SECONDS, db/erasure.ts). */
      erasureScrubMs: e.ERASURE_SCRUB_SECONDS * 1000,
      /** Days security events and audit entries are kept (SECURITY_EVENT_RETENTION_DAYS). */
      securityEventRetentionDays: e.SECURITY_EVENT_RETENTION_DAYS,
      rateLimits: rateLimitsWithWindowCap(defaultRateLimits, e.RATE_LIMIT_WINDOW_MS),
      /** PUSH_ENDPOINT_ALLOW: origins Web Push may go to beside the known push services. */
      pushEndpointAllow: e.PUSH_ENDPOINT_ALLOW,
      /** PUSH_ENDPOINT_CA: a PEM file of certificate authorities trusted for push endpoints, beside the usual ones. */
      pushEndpointCa: e.PUSH_ENDPOINT_CA,
      /** PUSH_SUBJECT: the VAPID `sub` claim (a contact for push services). */
      pushSubject: e.PUSH_SUBJECT,
      /** DISAPPEARING_TIMER_CAP_MS: the testing aid's ceiling on every message's time to live. */
      disappearingCapMs: e.DISAPPEARING_TIMER_CAP_MS,
      /**
       * Testing aid, no setting: shorter timeouts for slow requests (http/slow-requests.ts) and a
       * shorter "degraded" answer of the health check after a refusal (http/overload.ts).
       */
      requestLimits: undefined as Partial<SlowRequestLimits & { degradedForMs: number }> | undefined,
    };
  });

/** Keys whose value may be undefined become optional: a setting left out is absent. */
type AbsentOptional<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: T[K];
};

export type Config = AbsentOptional<z.output<typeof configSchema>>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  // One line per variable, naming it and what to set: the process stops with this message.
  if (!parsed.success) throw new Error(`Invalid configuration:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
