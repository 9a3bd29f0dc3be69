/** The console's security panels, computed from the security_events table and this deployment. */
import path from 'node:path';
import { routes, severityScores, type Compliance, type Heatmap, type Risk, type Severity } from '@enclave/protocol';
import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { accessKeys, securityEvents, users } from '../db/schema';
import { defaultRateLimits } from '../config';
import { lastBackup, type BackupRecord } from '../backup/backup';
import { eventCount, eventsOf, lastSeenOf } from '../security/events';
import { getSetting } from './master-key';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export async function heatmap(db: Db, now = new Date()): Promise<Heatmap> {
  const from = new Date(now.getTime() - WEEK_MS);
  // Hours in UTC whatever the database session's time zone; the browser shows them in its own.
  // A row stands for `details.count` repeats of its event (security/events.ts): count events, not rows.
  // A row is placed in the hour of its first event.
  const hour = sql<Date>`date_trunc('hour', ${securityEvents.createdAt}, 'UTC')`;
  const rows = await db
    .select({ hour, type: securityEvents.type, count: sql<number>`sum(${eventCount()})::int` })
    .from(securityEvents)
    .where(gt(securityEvents.createdAt, from))
    .groupBy(hour, securityEvents.type)
    .orderBy(hour);
  return {
    from: from.toISOString(),
    to: now.toISOString(),
    cells: rows.map((r) => ({ hour: new Date(r.hour).toISOString(), type: r.type, count: r.count })),
  };
}

export async function risk(db: Db, now = new Date()): Promise<Risk> {
  const since = new Date(now.getTime() - WEEK_MS);
  const rows = await db
    .select({
      userId: securityEvents.userId,
      username: users.username,
      ip: securityEvents.ip,
      severity: securityEvents.severity,
      createdAt: securityEvents.createdAt,
      details: securityEvents.details,
    })
    .from(securityEvents)
    .leftJoin(users, eq(users.id, securityEvents.userId))
    // Audit entries (an admin or the creator acting) are not threats to score.
    .where(and(gt(securityEvents.createdAt, since), isNull(securityEvents.actor)));
  type Acc = { score: number; events: number; worst: Severity; lastSeen: Date };
  // The score is per event: a row of `n` repeats (security/events.ts) scores n times.
  const add = (map: Map<string, Acc>, key: string, severity: Severity, n: number, at: Date) => {
    const acc = map.get(key) ?? { score: 0, events: 0, worst: 'low', lastSeen: at };
    acc.score += severityScores[severity] * n;
    acc.events += n;
    if (severityScores[severity] > severityScores[acc.worst]) acc.worst = severity;
    if (at > acc.lastSeen) acc.lastSeen = at;
    map.set(key, acc);
  };
  const members = new Map<string, Acc>();
  const names = new Map<string, string>();
  const ips = new Map<string, Acc>();
  for (const r of rows) {
    const n = eventsOf(r.details);
    const at = lastSeenOf(r.details, r.createdAt);
    if (r.userId && r.username) {
      add(members, r.userId, r.severity, n, at);
      names.set(r.userId, r.username);
    }
    if (r.ip) add(ips, r.ip, r.severity, n, at);
  }
  const rank = (map: Map<string, Acc>) =>
    [...map.entries()]
      .sort((a, b) => b[1].score - a[1].score)
      .map(([key, a]) => ({ key, score: a.score, events: a.events, worst: a.worst, lastSeen: a.lastSeen.toISOString() }));
  return {
    members: rank(members).map(({ key, ...a }) => ({ userId: key, username: names.get(key) ?? '', ...a })),
    ips: rank(ips).map(({ key, ...a }) => ({ ip: key, ...a })),
  };
}

const STATUS_SCORE = { compliant: 100, warning: 50, non_compliant: 0 } as const;
type Check = { name: string; status: keyof typeof STATUS_SCORE; description: string };

/** Real checks of this deployment, each with the reason for its verdict. */
export async function compliance(app: FastifyInstance, db: Db, config: Config, req: FastifyRequest, now = new Date()): Promise<Compliance> {
  const checks: Check[] = [];

  const https = req.protocol === 'https';
  checks.push({
    name: 'HTTPS in front',
    status: https ? 'compliant' : 'non_compliant',
    description: https
      ? 'This request reached the server over HTTPS through the trusted proxy.'
      : 'This request reached the server over plain HTTP: put a TLS-terminating proxy in front, have it set X-Forwarded-Proto, and set TRUST_PROXY to its hop count or address.',
  });

  const source = await getSetting(db, 'master_key_source');
  checks.push({
    name: 'Master key configured',
    status: source === 'configured' ? 'compliant' : 'warning',
    description:
      source === 'configured'
        ? 'The master key comes from the MASTER_KEY setting of this deployment.'
        : 'The master key was generated at first start and sits in a file in the data directory: move it to MASTER_KEY and delete the file.',
  });

  // Ask ourselves, as a browser would, which headers a response really carries: from the peer and
  // with the forwarded headers of the creator's own request, so that HSTS is judged over its protocol.
  const forwarded = Object.fromEntries(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'].flatMap((h) => (req.headers[h] === undefined ? [] : [[h, req.headers[h]!]])));
  const probe = await app.inject({ method: routes.health.method, url: routes.health.path, headers: forwarded, remoteAddress: req.socket.remoteAddress });
  const csp = String(probe.headers['content-security-policy'] ?? '');
  const missing = [
    csp.includes("frame-ancestors 'none'") && !csp.includes("script-src 'self' 'unsafe-inline'") ? null : 'Content-Security-Policy',
    probe.headers['x-content-type-options'] === 'nosniff' ? null : 'X-Content-Type-Options',
    probe.headers['referrer-policy'] === 'no-referrer' ? null : 'Referrer-Policy',
    !https || probe.headers['strict-transport-security'] ? null : 'Strict-Transport-Security',
  ].filter((h): h is string => h !== null);
  checks.push({
    name: 'Security headers served',
    status: missing.length === 0 ? 'compliant' : 'non_compliant',
    description: missing.length === 0 ? 'CSP with frame-ancestors none, nosniff and no-referrer are on every response.' : `Missing: ${missing.join(', ')}.`,
  });

  // Any limit looser than its default (more attempts, or a shorter window such as RATE_LIMIT_WINDOW_MS) is a warning.
  const limits = config.rateLimits;
  const loosened = (Object.keys(defaultRateLimits) as (keyof typeof defaultRateLimits)[]).filter(
    (name) => limits[name].max > defaultRateLimits[name].max || limits[name].windowMs < defaultRateLimits[name].windowMs,
  );
  const per = (l: { max: number; windowMs: number }) => `${l.max} per ${l.windowMs / 1000} s`;
  checks.push({
    name: 'Rate limits on',
    status: loosened.length === 0 ? 'compliant' : 'warning',
    description:
      `Wrong tokens: ${per(limits.login)} per browser, ${per(limits.loginPerAddress)} per address; ` +
      `per address: sign-ins ${per(limits.loginRequests)}, key validation ${per(limits.validateKey)}, registration ${per(limits.register)}, ` +
      `wrong master keys ${per(limits.masterKey)}, breach reports ${per(limits.breach)}; per member: sending ${per(limits.send)}, key rotations ${per(limits.epoch)}.` +
      (loosened.length === 0 ? '' : ` Looser than the defaults: ${loosened.join(', ')}.`),
  });

  // DISAPPEARING_TIMER_CAP_MS makes every disappearing message vanish within the cap: a testing aid.
  if (config.disappearingCapMs !== undefined) {
    checks.push({
      name: 'Disappearing timers',
      status: 'warning',
      description: `DISAPPEARING_TIMER_CAP_MS: every disappearing message expires after at most ${config.disappearingCapMs / 1000} s, whatever its conversation's timer (a testing aid, not for production).`,
    });
  }

  const open = and(eq(accessKeys.status, 'active'), isNull(accessKeys.usedAt), eq(accessKeys.isCanary, false));
  const [keys] = await db
    .select({ total: count(), withExpiry: sql<number>`count(${accessKeys.expiresAt})::int` })
    .from(accessKeys)
    .where(open);
  const total = keys?.total ?? 0;
  const withExpiry = keys?.withExpiry ?? 0;
  checks.push({
    name: 'Keys with expiry',
    status: withExpiry === total ? 'compliant' : withExpiry === 0 ? 'non_compliant' : 'warning',
    description: total === 0 ? 'No unused keys are outstanding.' : `${withExpiry} of ${total} unused keys expire.`,
  });

  checks.push(backupCheck(await lastBackup(db), now));

  const policy = config.breachPolicy;
  checks.push({
    name: 'Breach policy',
    status: policy === 'log' ? 'warning' : 'compliant',
    description:
      policy === 'log'
        ? "BREACH_POLICY=log: a member's own breach report is only logged; set lock or wipe to act on the reporter's account."
        : policy === 'lock'
          ? "BREACH_POLICY=lock: a member's own breach report locks their account until the creator unlocks it."
          : "BREACH_POLICY=wipe: a member's own breach report deletes their sealed keys and shares and ends their sessions.",
  });

  const [canaries] = await db.select({ n: count() }).from(accessKeys).where(eq(accessKeys.isCanary, true));
  checks.push({
    name: 'Canary keys planted',
    status: (canaries?.n ?? 0) > 0 ? 'compliant' : 'warning',
    description: (canaries?.n ?? 0) > 0 ? `${canaries?.n} canary keys would raise an alert if leaked keys were tried.` : 'No canary keys: generate a few to detect leaked key lists.',
  });

  const scored = checks.map((c) => ({ ...c, score: STATUS_SCORE[c.status] }));
  return { score: Math.round(scored.reduce((s, c) => s + c.score, 0) / scored.length), checks: scored };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Backups: the latest `npm run backup` (docs/operations.md §8) is at most a day old. */
export function backupCheck(last: BackupRecord | null, now: Date): Check {
  if (!last) {
    return {
      name: 'Backups',
      status: 'warning',
      description: 'No backup recorded: run npm run backup, and schedule it daily (docs/operations.md §8).',
    };
  }
  const age = now.getTime() - last.createdAt.getTime();
  const fresh = age < DAY_MS;
  return {
    name: 'Backups',
    status: fresh ? 'compliant' : 'warning',
    description:
      `Last backup ${last.createdAt.toISOString()} (${hoursAgo(age)}): ${path.basename(last.fileName)}, ${sizeOf(last.bytes)}, ` +
      `${last.kind === 'embedded' ? 'embedded database' : 'PostgreSQL'}.` +
      (fresh ? '' : ' Older than 24 hours: run npm run backup, and schedule it daily.'),
  };
}

function hoursAgo(ms: number): string {
  const hours = Math.floor(Math.max(0, ms) / 3_600_000);
  if (hours < 1) return 'less than an hour ago';
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

function sizeOf(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
