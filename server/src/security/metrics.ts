/**
 * The security monitor's figures (docs/security.md §10), each counted from stored rows: security
 * events (a coalesced row counts for its `count`), blocks, epochs, messages, and this deployment's
 * settings. Counted by the database (sums and groupings): a poll never loads the rows of a day. Audit entries (an administrator or the creator acting) are records, not threats: they
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
import { and, count, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { epochs, messages, securityEvents, users } from '../db/schema';
import { emergencyState } from '../creator/emergency-state';
import { activeBlocks } from './blocks';
import { eventCount, eventTypes, eventsOf, lastSeenOf } from './events';
import { ipAnalysisOf } from './ip-analysis';

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

type Aggregate = { events: number; score: number; worst: Severity; lastSeen: Date; types: Set<string> };

/** The grouping of threatAggregates' rows per address. */
const BY_IP = 0b0111;
/** The addresses of highest score the threat list carries (the monitor shows none of them beyond). */
export const THREAT_ADDRESSES_MAX = 100;

const byScore = <T extends { score: number; events: number }>(a: T, b: T) => b.score - a.score || b.events - a.events;

/** A severity's score in SQL (severityScores), and back. */
export const scoreSql = sql`case ${securityEvents.severity} ${sql.join(
  Object.entries(severityScores).map(([severity, score]) => sql`when ${severity} then ${score}::int`),
  sql` `,
)} end`;
export const severityOfScore = new Map(Object.entries(severityScores).map(([severity, score]) => [score, severity as Severity]));

/**
 * The threat events (audit entries excluded) whose first event is after `since`, summed in SQL in
 * one pass, never loaded row by row: per address, per type and severity (with the part of the last
 * hour), and per member and type. A row stands for its `details.count` events (events.ts).
 */
async function threatAggregates(db: Db, since: Date, hourAgo: Date) {
  const n = eventCount();
  const { ip, type, severity, userId, createdAt } = securityEvents;
  // Which grouping a row is (bits: ip, type, severity, user_id; 1 = summed over).
  const grouping = sql<number>`grouping(${ip}, ${type}, ${severity}, ${userId})`;
  const score = sql<number>`sum(${scoreSql} * ${n})`;
  const groups = db
    .select({
      grouping: grouping.as('grouping'),
      ip,
      type,
      severity,
      userId,
      events: sql<number>`sum(${n})::float8`.as('events'),
      hourEvents: sql<number>`coalesce(sum(${n}) filter (where ${createdAt} > ${hourAgo.toISOString()}::timestamptz), 0)::float8`.as(
        'hour_events',
      ),
      score: sql<number>`${score}::float8`.as('score'),
      worst: sql<number>`max(${scoreSql})`.as('worst'),
      // In ms since the epoch: both drivers answer a number.
      lastSeen:
        sql<number>`extract(epoch from max(greatest(${createdAt}, (${securityEvents.details}->>'lastSeen')::timestamptz))) * 1000`.as(
          'last_seen',
        ),
      // Addresses ranked, the highest score first: only the first THREAT_ADDRESSES_MAX leave the database.
      rank: sql<number>`row_number() over (partition by ${grouping} order by ${score} desc, sum(${n}) desc)`.as('rank'),
    })
    .from(securityEvents)
    .where(and(gt(createdAt, since), isNull(securityEvents.actor)))
    .groupBy(sql`grouping sets ((${ip}), (${type}, ${severity}), (${userId}, ${type}))`)
    .as('groups');
  const rows = (
    await db
      .select()
      .from(groups)
      .where(sql`${groups.grouping} <> ${BY_IP} or ${groups.rank} <= ${THREAT_ADDRESSES_MAX}`)
  ).map((r) => ({
    ...r,
    grouping: Number(r.grouping),
    events: Number(r.events),
    hourEvents: Number(r.hourEvents),
    score: Number(r.score),
    worst: Number(r.worst),
    lastSeen: new Date(Number(r.lastSeen)),
  }));
  const byIp = new Map<string, Aggregate>();
  const byType = new Map<string, Aggregate>();
  const byMember = new Map<string, Aggregate>();
  const day: SeverityCounts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };
  const hour: SeverityCounts = { ...day };
  const hourOfType = new Map<string, number>();
  let hourScore = 0;
  const add = (map: Map<string, Aggregate>, key: string, r: (typeof rows)[number]) => {
    const worst = severityOfScore.get(r.worst) ?? 'low';
    const acc = map.get(key) ?? { events: 0, score: 0, worst, lastSeen: r.lastSeen, types: new Set<string>() };
    acc.events += r.events;
    acc.score += r.score;
    if (severityScores[worst] > severityScores[acc.worst]) acc.worst = worst;
    if (r.lastSeen > acc.lastSeen) acc.lastSeen = r.lastSeen;
    if (r.type !== null) acc.types.add(r.type);
    map.set(key, acc);
  };
  for (const r of rows) {
    if (r.grouping === BY_IP && r.ip !== null) add(byIp, r.ip, r);
    if (r.grouping === 0b1001 && r.type !== null && r.severity !== null) {
      add(byType, r.type, r);
      day.total += r.events;
      day[r.severity] += r.events;
      hour.total += r.hourEvents;
      hour[r.severity] += r.hourEvents;
      hourScore += severityScores[r.severity] * r.hourEvents;
      hourOfType.set(r.type, (hourOfType.get(r.type) ?? 0) + r.hourEvents);
    }
    if (r.grouping === 0b1010 && r.userId !== null) add(byMember, r.userId, r);
  }
  return { byIp, byType, byMember, day, hour, hourScore, hourOfType };
}

/** The median of the ban timings of the last 7 days (ms from commit to sockets closed), or null. */
export async function banResponseMs(db: Db, now = new Date()): Promise<number | null> {
  const ms = sql`${securityEvents.details}->'socketsClosedMs'`;
  // The mean of the middle two for an even count, as percentile_cont interpolates.
  const [row] = await db
    .select({
      median: sql<number | null>`percentile_cont(0.5) within group (order by (${ms})::float8)`.mapWith((v) =>
        v === null ? null : Number(v),
      ),
    })
    .from(securityEvents)
    .where(
      and(
        inArray(securityEvents.type, BAN_TYPES),
        gt(securityEvents.createdAt, new Date(now.getTime() - WEEK_MS)),
        sql`jsonb_typeof(${ms}) = 'number'`,
      ),
    );
  return row?.median ?? null;
}

export async function securityMetrics(
  db: Db,
  opts: { breachPolicy: BreachPolicy; https: boolean },
  now = new Date(),
): Promise<{ threatIntelligence: ThreatSource[]; behavioralProfiles: BehavioralProfile[]; metrics: SecurityState }> {
  const since = new Date(now.getTime() - DAY_MS);
  const [threats, blocks, emergency, [keys], [msgs], responseTimeMs] = await Promise.all([
    threatAggregates(db, since, new Date(now.getTime() - HOUR_MS)),
    activeBlocks(db, now),
    emergencyState(db),
    db.select({ n: count() }).from(epochs).where(gt(epochs.createdAt, since)),
    db.select({ n: count() }).from(messages).where(gt(messages.createdAt, since)),
    banResponseMs(db, now),
  ]);
  const blocked = new Set(blocks.map((b) => b.ip));

  const threatIntelligence: ThreatSource[] = [
    ...[...threats.byIp].map(([ip, a]) => ({ kind: 'ip' as const, key: ip, blocked: blocked.has(ip), ...figures(a) })),
    ...[...threats.byType].map(([type, a]) => ({ kind: 'type' as const, key: type, blocked: false, ...figures(a) })),
  ].sort(byScore);

  // Members still here (a deleted member's events keep no name).
  const members = threats.byMember.size
    ? await db
        .select({ id: users.id, username: users.username, lastActivity: users.lastActivity })
        .from(users)
        .where(inArray(users.id, [...threats.byMember.keys()]))
    : [];
  const behavioralProfiles: BehavioralProfile[] = members
    .map((u) => {
      const a = threats.byMember.get(u.id)!;
      return {
        userId: u.id,
        username: u.username,
        ...figures(a),
        types: [...a.types].sort(),
        lastActivity: u.lastActivity?.toISOString() ?? null,
      };
    })
    .sort(byScore);

  const rateLimited = threats.hourOfType.get(eventTypes.rateLimited) ?? 0;
  const decoyHits = threats.byType.get(eventTypes.decoyHit)?.events ?? 0;
  const countermeasures = [
    rateLimited > 0 ? 'rate_limiting' : null,
    blocks.length > 0 ? 'ip_blocking' : null,
    emergency.active ? 'emergency_lockdown' : null,
    decoyHits > 0 ? 'decoy_endpoints' : null,
    opts.breachPolicy === 'lock' ? 'breach_policy_lock' : opts.breachPolicy === 'wipe' ? 'breach_policy_wipe' : null,
  ].filter((c): c is string => c !== null);

  return {
    threatIntelligence,
    behavioralProfiles,
    metrics: {
      emergencyMode: emergency.active,
      breachPolicy: opts.breachPolicy,
      counts: threats.day,
      threatScore: threats.hourScore,
      activeThreats: threats.hour.high + threats.hour.critical,
      blockedIPs: blocks.length,
      tamperReports: threats.byType.get(eventTypes.breachReport)?.events ?? 0,
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
  const mine = and(eq(securityEvents.userId, userId), gt(securityEvents.createdAt, new Date(now.getTime() - MONTH_MS)));
  const [rows, bySeverity] = await Promise.all([
    db
      .select(columns)
      .from(securityEvents)
      .leftJoin(users, eq(users.id, securityEvents.userId))
      .where(mine)
      .orderBy(desc(securityEvents.id))
      .limit(OWN_EVENTS_MAX),
    db
      .select({ severity: securityEvents.severity, events: sql<number>`sum(${eventCount()})::float8`.mapWith(Number) })
      .from(securityEvents)
      .where(mine)
      .groupBy(securityEvents.severity),
  ]);
  const counts: SeverityCounts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };
  for (const r of bySeverity) {
    counts.total += r.events;
    counts[r.severity] += r.events;
  }
  return {
    counts,
    events: rows.map((r) => {
      const e = liveEventOf(r);
      return { id: e.id, type: e.type, severity: e.severity, timestamp: e.timestamp, lastSeen: e.lastSeen, count: e.count };
    }),
    breachPolicy,
  };
}
