/**
 * The security monitor's figures (docs/security.md §10), each counted from stored rows: security
 * events (a coalesced row counts for its `count`), blocks, epochs, messages, and this deployment's
 * settings. Audit entries (an administrator or the creator acting) are records, not threats: they
 * are listed live but counted in no threat figure.
 */
import {
  routes,
  severityScores,
  type BehavioralProfile,
  type BreachPolicy,
  type LiveEvent,
  type MySecurity,
  type SecurityState,
  type Severity,
  type SeverityCounts,
  type ThreatSource,
} from '@enclave/protocol';
import { and, count, desc, eq, gt, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { epochs, messages, securityEvents, users } from '../db/schema';
import { emergencyState } from '../creator/emergency';
import { activeBlocks } from './blocks';
import { eventTypes, eventsOf, ipAnalysisOf, lastSeenOf } from './events';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const WEEK_MS = 7 * DAY_MS;
const MONTH_MS = 30 * DAY_MS;
/** docs/spec.md §9: the monitor keeps 50 events. */
export const LIVE_EVENTS_MAX = 50;
/** The member's own view lists their 20 latest. */
const OWN_EVENTS_MAX = 20;

/** The decoy routes of the route table (security/routes.ts serves each). */
export const decoyRoutes = Object.values(routes).filter((r) => r.path.startsWith('/api/decoy/'));

/** Ban audit types whose details carry `socketsClosedMs` (users/moderation.ts BanTiming). */
const BAN_TYPES = [eventTypes.userBanned, eventTypes.emergencyShutdown];

type Row = {
  id: number;
  type: string;
  severity: Severity;
  userId: string | null;
  username: string | null;
  actor: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  ipAnalysis: Record<string, unknown>;
  createdAt: Date;
};

const columns = {
  id: securityEvents.id,
  type: securityEvents.type,
  severity: securityEvents.severity,
  userId: securityEvents.userId,
  username: users.username,
  actor: securityEvents.actor,
  ip: securityEvents.ip,
  details: securityEvents.details,
  ipAnalysis: securityEvents.ipAnalysis,
  createdAt: securityEvents.createdAt,
};

/** A row as the monitor shows it; `count` and `lastSeen` live in fields, not in the details. */
export function liveEventOf(r: Row): LiveEvent {
  const { count: _count, lastSeen: _lastSeen, ...details } = r.details;
  return {
    id: r.id,
    type: r.type,
    severity: r.severity,
    timestamp: r.createdAt.toISOString(),
    lastSeen: lastSeenOf(r.details, r.createdAt).toISOString(),
    count: eventsOf(r.details),
    userId: r.userId,
    username: r.username,
    actor: r.actor,
    details,
    ipAnalysis: ipAnalysisOf(r.ipAnalysis, r.ip),
  };
}

export async function liveEvents(db: Db): Promise<LiveEvent[]> {
  const rows = await db
    .select(columns)
    .from(securityEvents)
    .leftJoin(users, eq(users.id, securityEvents.userId))
    .orderBy(desc(securityEvents.id))
    .limit(LIVE_EVENTS_MAX);
  return rows.map(liveEventOf);
}

/** Threat events (audit entries excluded) whose first event is after `since`. */
async function threatRows(db: Db, since: Date): Promise<Row[]> {
  return db
    .select(columns)
    .from(securityEvents)
    .leftJoin(users, eq(users.id, securityEvents.userId))
    .where(and(gt(securityEvents.createdAt, since), isNull(securityEvents.actor)))
    .orderBy(desc(securityEvents.id));
}

export function severityCounts(rows: readonly Row[]): SeverityCounts {
  const counts: SeverityCounts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };
  for (const r of rows) {
    const n = eventsOf(r.details);
    counts.total += n;
    counts[r.severity] += n;
  }
  return counts;
}

const scoreOf = (rows: readonly Row[]) => rows.reduce((s, r) => s + severityScores[r.severity] * eventsOf(r.details), 0);

type Aggregate = { events: number; score: number; worst: Severity; lastSeen: Date; types: Set<string> };

function aggregate(rows: readonly Row[], keyOf: (r: Row) => string | null): Map<string, Aggregate> {
  const map = new Map<string, Aggregate>();
  for (const r of rows) {
    const key = keyOf(r);
    if (key === null) continue;
    const n = eventsOf(r.details);
    const at = lastSeenOf(r.details, r.createdAt);
    const acc = map.get(key) ?? { events: 0, score: 0, worst: r.severity, lastSeen: at, types: new Set<string>() };
    acc.events += n;
    acc.score += severityScores[r.severity] * n;
    if (severityScores[r.severity] > severityScores[acc.worst]) acc.worst = r.severity;
    if (at > acc.lastSeen) acc.lastSeen = at;
    acc.types.add(r.type);
    map.set(key, acc);
  }
  return map;
}

const byScore = <T extends { score: number; events: number }>(a: T, b: T) => b.score - a.score || b.events - a.events;

/** The median of the ban timings of the last 7 days (ms from commit to sockets closed), or null. */
export async function banResponseMs(db: Db, now = new Date()): Promise<number | null> {
  const rows = await db
    .select({ details: securityEvents.details })
    .from(securityEvents)
    .where(and(inArray(securityEvents.type, BAN_TYPES), gt(securityEvents.createdAt, new Date(now.getTime() - WEEK_MS))));
  const ms = rows
    .map((r) => r.details.socketsClosedMs)
    .filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
    .sort((a, b) => a - b);
  if (ms.length === 0) return null;
  const mid = Math.floor(ms.length / 2);
  return ms.length % 2 ? ms[mid]! : (ms[mid - 1]! + ms[mid]!) / 2;
}

export async function securityMetrics(
  db: Db,
  opts: { breachPolicy: BreachPolicy; https: boolean },
  now = new Date(),
): Promise<{ threatIntelligence: ThreatSource[]; behavioralProfiles: BehavioralProfile[]; metrics: SecurityState }> {
  const day = await threatRows(db, new Date(now.getTime() - DAY_MS));
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  const hour = day.filter((r) => r.createdAt > hourAgo);
  const since = new Date(now.getTime() - DAY_MS);
  const [blocks, emergency, [keys], [msgs], responseTimeMs] = await Promise.all([
    activeBlocks(db, now),
    emergencyState(db),
    db.select({ n: count() }).from(epochs).where(gt(epochs.createdAt, since)),
    db.select({ n: count() }).from(messages).where(gt(messages.createdAt, since)),
    banResponseMs(db, now),
  ]);
  const blocked = new Set(blocks.map((b) => b.ip));

  const threatIntelligence: ThreatSource[] = [
    ...[...aggregate(day, (r) => r.ip)].map(([ip, a]) => ({ kind: 'ip' as const, key: ip, blocked: blocked.has(ip), ...figures(a) })),
    ...[...aggregate(day, (r) => r.type)].map(([type, a]) => ({ kind: 'type' as const, key: type, blocked: false, ...figures(a) })),
  ].sort(byScore);

  const names = new Map(day.filter((r) => r.userId && r.username).map((r) => [r.userId!, r.username!]));
  const perMember = aggregate(day, (r) => (r.userId && r.username ? r.userId : null));
  const activity = perMember.size
    ? await db.select({ id: users.id, lastActivity: users.lastActivity }).from(users).where(inArray(users.id, [...perMember.keys()]))
    : [];
  const lastActivity = new Map(activity.map((u) => [u.id, u.lastActivity]));
  const behavioralProfiles: BehavioralProfile[] = [...perMember]
    .map(([userId, a]) => ({
      userId,
      username: names.get(userId) ?? '',
      ...figures(a),
      types: [...a.types].sort(),
      lastActivity: lastActivity.get(userId)?.toISOString() ?? null,
    }))
    .sort(byScore);

  const eventsOfType = (rows: readonly Row[], type: string) => rows.filter((r) => r.type === type).reduce((s, r) => s + eventsOf(r.details), 0);
  const rateLimited = eventsOfType(hour, eventTypes.rateLimited);
  const decoyHits = eventsOfType(day, eventTypes.decoyHit);
  const countermeasures = [
    rateLimited > 0 ? 'rate_limiting' : null,
    blocks.length > 0 ? 'ip_blocking' : null,
    emergency.active ? 'emergency_lockdown' : null,
    decoyHits > 0 ? 'decoy_endpoints' : null,
    opts.breachPolicy === 'lock' ? 'breach_policy_lock' : opts.breachPolicy === 'wipe' ? 'breach_policy_wipe' : null,
  ].filter((c): c is string => c !== null);
  const hourCounts = severityCounts(hour);

  return {
    threatIntelligence,
    behavioralProfiles,
    metrics: {
      emergencyMode: emergency.active,
      breachPolicy: opts.breachPolicy,
      counts: severityCounts(day),
      threatScore: scoreOf(hour),
      activeThreats: hourCounts.high + hourCounts.critical,
      blockedIPs: blocks.length,
      tamperReports: eventsOfType(day, eventTypes.breachReport),
      decoyEndpoints: decoyRoutes.length,
      decoyHits,
      dynamicKeys: keys?.n ?? 0,
      messageKeys: msgs?.n ?? 0,
      // AES-GCM content and the RSA-OAEP-wrapped sender key always; TLS when this request came over HTTPS.
      encryptionLayers: 2 + (opts.https ? 1 : 0),
      responseTimeMs,
      countermeasures,
    },
  };
}

function figures(a: Aggregate): { events: number; score: number; worst: Severity; lastSeen: string } {
  return { events: a.events, score: a.score, worst: a.worst, lastSeen: a.lastSeen.toISOString() };
}

/** A member's own events of the last 30 days (audit entries about them included: they are theirs to see). */
export async function mySecurity(db: Db, userId: string, breachPolicy: BreachPolicy, now = new Date()): Promise<MySecurity> {
  const rows: Row[] = await db
    .select(columns)
    .from(securityEvents)
    .leftJoin(users, eq(users.id, securityEvents.userId))
    .where(and(eq(securityEvents.userId, userId), gt(securityEvents.createdAt, new Date(now.getTime() - MONTH_MS))))
    .orderBy(desc(securityEvents.id));
  return {
    counts: severityCounts(rows),
    events: rows.slice(0, OWN_EVENTS_MAX).map((r) => {
      const e = liveEventOf(r);
      return { id: e.id, type: e.type, severity: e.severity, timestamp: e.timestamp, lastSeen: e.lastSeen, count: e.count };
    }),
    breachPolicy,
  };
}

