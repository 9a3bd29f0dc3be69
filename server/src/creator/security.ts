/** The console's security panels, computed from the security_events table and this deployment. */
import path from 'node:path';
import { routes, type Compliance, type Heatmap, type Risk } from '@enclave/protocol';
import { and, count, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { accessKeys, securityEvents, users } from '../db/schema';
import { defaultRateLimits, SECURITY_EVENT_RETENTION_DAYS as DEFAULT_RETENTION_DAYS } from '../config';
import { lastBackup, type BackupRecord } from '../backup/backup';
import { lastRestore, type RestoreRecord } from '../backup/restore-record';
import { eventCount, eventTypes } from '../security/events';
import { scoreSql, severityOfScore } from '../security/metrics';
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
  const { ip, userId, createdAt } = securityEvents;
  // Summed by the database, per member and per address (a row of `n` repeats scores n times, events.ts).
  const rows = await db
    .select({
      byMember: sql<number>`grouping(${userId})`.mapWith(Number),
      userId,
      ip,
      score: sql<number>`sum(${scoreSql} * ${eventCount()})::float8`.mapWith(Number),
      events: sql<number>`sum(${eventCount()})::float8`.mapWith(Number),
      worst: sql<number>`max(${scoreSql})`.mapWith(Number),
      lastSeen: sql<Date>`max(greatest(${createdAt}, (${securityEvents.details}->>'lastSeen')::timestamptz))`.mapWith(createdAt),
    })
    .from(securityEvents)
    // Audit entries (an admin or the creator acting) are not threats to score.
    .where(and(gt(createdAt, since), isNull(securityEvents.actor)))
    .groupBy(sql`grouping sets ((${userId}), (${ip}))`);
  const figures = (r: (typeof rows)[number]) => ({
    score: r.score,
    events: r.events,
    worst: severityOfScore.get(r.worst) ?? 'low',
    lastSeen: r.lastSeen.toISOString(),
  });
  const perMember = rows.filter((r) => r.byMember === 0 && r.userId !== null);
  const names = perMember.length
    ? new Map(
        (
          await db
            .select({ id: users.id, username: users.username })
            .from(users)
            .where(
              inArray(
                users.id,
                perMember.map((r) => r.userId!),
              ),
            )
        ).map((u) => [u.id, u.username]),
      )
    : new Map<string, string>();
  const byScore = (a: { score: number }, b: { score: number }) => b.score - a.score;
  return {
    members: perMember
      .flatMap((r) => (names.has(r.userId!) ? [{ userId: r.userId!, username: names.get(r.userId!)!, ...figures(r) }] : []))
      .sort(byScore),
    ips: rows.flatMap((r) => (r.byMember === 1 && r.ip !== null ? [{ ip: r.ip, ...figures(r) }] : [])).sort(byScore),
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

  // A rotation under way on this instance (docs/operations.md §6): whether the old key is still in use.
  if (config.masterKeyPrevious !== undefined) {
    const [used] = await db
      .select({ n: sql<number>`coalesce(sum(${eventCount()}), 0)::int` })
      .from(securityEvents)
      .where(
        and(eq(securityEvents.type, eventTypes.masterKeyPreviousUsed), gt(securityEvents.createdAt, new Date(now.getTime() - DAY_MS))),
      );
    checks.push({
      name: 'Master key rotation',
      status: 'warning',
      description:
        `MASTER_KEY_PREVIOUS is set: the old master key is still accepted beside MASTER_KEY, and was used ${used?.n ?? 0} times in the last 24 h (master_key_previous_used events). ` +
        'Once every instance runs with the new key and the creator uses it, restart every instance without MASTER_KEY_PREVIOUS (docs/operations.md §6).',
    });
  }

  // Ask ourselves, as a browser would, which headers a response really carries: from the peer and
  // with the forwarded headers of the creator's own request, so that HSTS is judged over its protocol.
  const forwarded = Object.fromEntries(
    ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'].flatMap((h) =>
      req.headers[h] === undefined ? [] : [[h, req.headers[h]!]],
    ),
  );
  const probe = await app.inject({
    method: routes.health.method,
    url: routes.health.path,
    headers: forwarded,
    remoteAddress: req.socket.remoteAddress,
  });
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
    description:
      missing.length === 0
        ? 'CSP with frame-ancestors none, nosniff and no-referrer are on every response.'
        : `Missing: ${missing.join(', ')}.`,
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
      `wrong master keys ${per(limits.masterKey)}, breach reports ${per(limits.breach)}, decoy hits ${per(limits.decoy)} per decoy; per member: sending ${per(limits.send)}, key rotations ${per(limits.epoch)}.` +
      (loosened.length === 0 ? '' : ` Looser than the defaults: ${loosened.join(', ')}.`),
  });

  // Events are kept for a bounded time (security/events.ts); the default is what docs/security.md §10 promises.
  const days = config.securityEventRetentionDays;
  checks.push({
    name: 'Security event retention',
    status: days <= DEFAULT_RETENTION_DAYS ? 'compliant' : 'warning',
    description:
      `Security events and audit entries older than ${days} days are deleted (SECURITY_EVENT_RETENTION_DAYS), checked every hour by each instance.` +
      (days <= DEFAULT_RETENTION_DAYS
        ? ''
        : ` Longer than the default of ${DEFAULT_RETENTION_DAYS} days: the addresses and headers they hold are kept that long.`),
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

  checks.push(backupCheck(await lastBackup(db), now, await lastRestore(db)));

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
    description:
      (canaries?.n ?? 0) > 0
        ? `${canaries?.n} canary keys would raise an alert if leaked keys were tried.`
        : 'No canary keys: generate a few to detect leaked key lists.',
  });

  const scored = checks.map((c) => ({ ...c, score: STATUS_SCORE[c.status] }));
  return { score: Math.round(scored.reduce((s, c) => s + c.score, 0) / scored.length), checks: scored };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Backups: the latest `npm run backup` (docs/operations.md §8) is at most a day old. After a
 * restore, the database held nothing but the archive, so what no backup holds is what was written
 * since the later of the last backup and the restore: that is the age judged, and the restore is
 * named (which archive, when it was taken and restored).
 */
export function backupCheck(last: BackupRecord | null, now: Date, restore: RestoreRecord | null = null): Check {
  const restoredAt = restore ? new Date(restore.restoredAt) : null;
  const restored = restore
    ? `Restored ${restore.restoredAt} (${hoursAgo(now.getTime() - restoredAt!.getTime())}) from ${path.basename(restore.archive)}, taken ${restore.takenAt}. `
    : '';
  if (!last && !restore) {
    return {
      name: 'Backups',
      status: 'warning',
      description: 'No backup recorded: run npm run backup, and schedule it daily (docs/operations.md §8).',
    };
  }
  const covered = Math.max(last?.createdAt.getTime() ?? 0, restoredAt?.getTime() ?? 0);
  const fresh = now.getTime() - covered < DAY_MS;
  const backup = last
    ? `Last backup ${last.createdAt.toISOString()} (${hoursAgo(now.getTime() - last.createdAt.getTime())}): ${path.basename(last.fileName)}, ${sizeOf(last.bytes)}, ` +
      `${last.kind === 'embedded' ? 'embedded database' : 'PostgreSQL'}.`
    : 'No backup recorded.';
  const since =
    restoredAt && (!last || last.createdAt < restoredAt) ? ' None since the restore: what was written after it is in no backup yet.' : '';
  return {
    name: 'Backups',
    status: fresh ? 'compliant' : 'warning',
    description:
      restored +
      backup +
      since +
      (fresh
        ? ''
        : restore && covered === restoredAt!.getTime()
          ? ' Over 24 hours since the restore: run npm run backup, and schedule it daily.'
          : ' Older than 24 hours: run npm run backup, and schedule it daily.'),
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
