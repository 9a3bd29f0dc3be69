/**
 * What anonymous callers can make the security events table hold (docs/security.md §9, §10): decoys
 * rate-limited per address (an IPv6 address's /64), events coalesced per source with a cap on the
 * distinct details a source can make, headers cut at HEADERS_MAX, rows deleted past their retention;
 * and the creator's figures summed by the database, the same numbers as before.
 */
import { routes, type SecurityMetrics } from '@enclave/protocol';
import { and, count, eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultRateLimits } from '../config';
import type { Db } from '../db/client';
import { securityEvents } from '../db/schema';
import { backends, creatorHeaders } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { flushSecurityEvents, MAX_KEYS_PER_SOURCE, MAX_WRITES_PER_SOURCE, recordEvent, type EventSource } from './events';
import { HEADERS_MAX } from './ip-analysis';
import { deleteExpiredEvents, startEventRetention } from './retention';

const MIN_MS = 60_000;
const HOUR_MS = 60 * MIN_MS;
const DAY_MS = 24 * HOUR_MS;

/** Rows and the events they stand for, of one type (and address). */
async function tally(db: Db, type: string, ip?: string) {
  const [row] = await db
    .select({ rows: count(), events: sql<number>`coalesce(sum(coalesce((${securityEvents.details}->>'count')::int, 1)), 0)::int` })
    .from(securityEvents)
    .where(and(eq(securityEvents.type, type), ip ? eq(securityEvents.ip, ip) : undefined));
  return { rows: row?.rows ?? 0, events: row?.events ?? 0 };
}

/** Waits until the events recorded in the background of the refusals are in (never a timing assertion). */
async function until(check: () => Promise<boolean>) {
  await expect.poll(check, { timeout: 30_000, interval: 50 }).toBe(true);
}

/**
 * The flood below: the bound is per source and window, reached once a source has sent
 * MAX_WRITES_PER_SOURCE events, so a few addresses sending a few times that show it. As a soak,
 * e.g. EVENT_BOUNDS_ADDRESSES=100 (30,000 hits, minutes): bench/README.md, "Security events".
 */
const FLOOD_ADDRESSES = Number(process.env.EVENT_BOUNDS_ADDRESSES ?? 3);
const FLOOD_HITS = Number(process.env.EVENT_BOUNDS_HITS ?? 3 * MAX_WRITES_PER_SOURCE);

describe.each(backends)('decoy hits and their rows (%s)', (backend) => {
  // The default limits: the decoy limit is what is tested.
  let recording = false;
  const statements: string[] = [];
  const suite = oneInstance(backend, { onQuery: (q) => recording && statements.push(q) });
  const db = () => suite.database.db;
  const hit = (remoteAddress: string, path: string) =>
    suite.server.app.app.inject({ method: 'GET', url: `/api/decoy/${path}`, remoteAddress });
  /** The held repeats written, as at a window's end. */
  const flush = () => flushSecurityEvents(db());

  beforeEach(async () => {
    await flush();
    await db().delete(securityEvents);
  });

  it(`${FLOOD_ADDRESSES * FLOOD_HITS} hits from ${FLOOD_ADDRESSES} addresses, each on a new path: at most decoy.max + 1 rows and a bounded number of writes per address, every hit counted`, async () => {
    const { max } = defaultRateLimits.decoy;
    const addresses = Array.from({ length: FLOOD_ADDRESSES }, (_, i) => `203.0.113.${i + 1}`);
    const total = FLOOD_ADDRESSES * FLOOD_HITS;
    const statuses = new Map<number, number>();
    recording = true;
    // One address after the other, ten of its hits at a time (within its share of the places in
    // flight), so that each address's hits fall within one window of the limit and of the events.
    for (const a of addresses) {
      for (let i = 0; i < FLOOD_HITS; i += 10) {
        const answers = await Promise.all(Array.from({ length: Math.min(10, FLOOD_HITS - i) }, (_, j) => hit(a, `probe/${i + j}`)));
        for (const answer of answers) statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: FLOOD_ADDRESSES * max, 429: FLOOD_ADDRESSES * (FLOOD_HITS - max) });
    // Past MAX_WRITES_PER_SOURCE an address's refusals are held in memory: written at the window's end.
    await flush();
    await until(async () => (await tally(db(), 'rate_limit')).events + (await tally(db(), 'decoy_hit')).events >= total);
    recording = false;
    const decoys = await tally(db(), 'decoy_hit');
    const refused = await tally(db(), 'rate_limit');
    expect(decoys.events).toBe(FLOOD_ADDRESSES * max);
    expect(refused.events).toBe(FLOOD_ADDRESSES * (FLOOD_HITS - max));
    // One row per admitted hit (each a new path) and one per address for its refusals.
    expect(decoys.rows).toBeLessThanOrEqual(FLOOD_ADDRESSES * max);
    expect(refused.rows).toBeLessThanOrEqual(FLOOD_ADDRESSES);
    const [all] = await db().select({ n: count() }).from(securityEvents);
    expect(all?.n).toBeLessThanOrEqual(FLOOD_ADDRESSES * (max + 1));
    // Writes: each address's first MAX_WRITES_PER_SOURCE events at once, then at most one per
    // distinct event held, whatever the number of hits (events.ts).
    const writes = statements.filter((q) => /^(insert into|update) "security_events"/i.test(q)).length;
    expect(writes).toBeGreaterThanOrEqual(FLOOD_ADDRESSES * Math.min(FLOOD_HITS, MAX_WRITES_PER_SOURCE));
    expect(writes).toBeLessThanOrEqual(FLOOD_ADDRESSES * (MAX_WRITES_PER_SOURCE + MAX_KEYS_PER_SOURCE));
  }, 600_000);

  it('addresses of one IPv6 /64 are one source: one limit, one row', async () => {
    const { max } = defaultRateLimits.decoy;
    const statuses: number[] = [];
    for (let i = 1; i <= 30; i++) statuses.push((await hit(`2001:db8:1:2:${i.toString(16)}::${i}`, 'admin/keys')).statusCode);
    expect(statuses).toEqual([...Array<number>(max).fill(200), ...Array<number>(30 - max).fill(429)]);
    // Another /64 has its own limit.
    expect((await hit('2001:db8:1:3::1', 'admin/keys')).statusCode).toBe(200);
    await until(async () => (await tally(db(), 'rate_limit')).events >= 30 - max);
    await flush();
    const rows = await db().select().from(securityEvents).where(eq(securityEvents.source, '2001:db8:1:2::/64'));
    // The refusals are written after their answers, so whichever refused address's write lands
    // first names the row: one of the refused ones, all of the same /64.
    const refused = Array.from({ length: 30 - max }, (_, i) => `2001:db8:1:2:${(max + 1 + i).toString(16)}::${max + 1 + i}`);
    expect(
      rows
        .map((r) => [
          r.type,
          r.type === 'rate_limit' && r.ip !== null && refused.includes(r.ip) ? 'a refused address' : r.ip,
          r.details.count,
        ])
        .sort(),
    ).toEqual([
      ['decoy_hit', '2001:db8:1:2:1::1', max],
      ['rate_limit', 'a refused address', 30 - max],
    ]);
    expect(await tally(db(), 'decoy_hit', '2001:db8:1:3::1')).toEqual({ rows: 1, events: 1 });
  });

  it(`a source's details past ${MAX_KEYS_PER_SOURCE} distinct ones fold into one row; headers are cut at ${HEADERS_MAX} characters`, async () => {
    const log = suite.server.app.app.log;
    const from = (ip: string, headers: Record<string, string> = {}): EventSource => ({ ip, ips: [ip], headers, log });
    for (let i = 0; i < 300; i++) {
      await recordEvent(db(), from('198.51.100.7', { 'user-agent': 'scanner', 'x-padding': 'p'.repeat(16_000) }), {
        type: 'decoy_hit',
        severity: 'high',
        details: { method: 'GET', path: `/api/decoy/${i}` },
      });
    }
    await flush();
    const rows = await db().select().from(securityEvents).where(eq(securityEvents.source, '198.51.100.7'));
    expect(rows).toHaveLength(MAX_KEYS_PER_SOURCE + 1);
    expect(rows.filter((r) => r.details.mixed === true).map((r) => r.details.count)).toEqual([300 - MAX_KEYS_PER_SOURCE]);
    for (const r of rows) {
      const headers = (r.ipAnalysis as { headers: Record<string, string> }).headers;
      expect(headers['user-agent']).toBe('scanner');
      expect(Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0)).toBe(HEADERS_MAX);
    }
  });
});

describe.each(backends)('security event retention (%s)', (backend) => {
  const suite = oneInstance(backend);
  const db = () => suite.database.db;
  const now = new Date();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const ids = async () => (await db().select({ type: securityEvents.type }).from(securityEvents)).map((r) => r.type).sort();

  beforeEach(async () => {
    await db().delete(securityEvents);
    await db()
      .insert(securityEvents)
      .values([
        { type: 'old_event', severity: 'low', ip: '192.0.2.1', createdAt: ago(31 * DAY_MS) },
        { type: 'old_audit', severity: 'low', actor: 'creator', createdAt: ago(30 * DAY_MS + MIN_MS) },
        { type: 'recent_event', severity: 'low', ip: '192.0.2.1', createdAt: ago(29 * DAY_MS) },
        { type: 'recent_audit', severity: 'low', actor: 'creator', createdAt: ago(HOUR_MS) },
      ]);
    // More than one batch of old rows.
    await db().execute(
      sql`insert into security_events (type, severity, created_at) select 'old_bulk', 'low', ${ago(40 * DAY_MS).toISOString()}::timestamptz from generate_series(1, 12000)`,
    );
  });

  it('deletes the rows older than the retention, audit entries too, in batches, and keeps the newer', async () => {
    expect(await deleteExpiredEvents(db(), 30, now)).toBe(12_002);
    expect(await ids()).toEqual(['recent_audit', 'recent_event']);
    expect(await deleteExpiredEvents(db(), 30, now)).toBe(0);
  });

  it('runs on its own, on every instance, until stopped', async () => {
    const stop = startEventRetention(db(), { days: 30, everyMs: 20, log: suite.server.app.app.log });
    await until(async () => (await ids()).length === 2);
    await stop();
    expect(await ids()).toEqual(['recent_audit', 'recent_event']);
  });

  it('the compliance panel says how long events are kept', async () => {
    const compliance = await new TestMember.Anonymous(suite.server.url).call(routes.compliance, {}, creatorHeaders);
    expect(compliance.checks.find((c) => c.name === 'Security event retention')).toMatchObject({
      status: 'compliant',
      description: expect.stringContaining('older than 30 days are deleted (SECURITY_EVENT_RETENTION_DAYS)'),
    });
  });
});

describe.each(backends)('the creator’s figures over a known set of rows (%s)', (backend) => {
  let recording = false;
  const statements: string[] = [];
  const suite = oneInstance(backend, { onQuery: (q) => recording && statements.push(q) });
  const db = () => suite.database.db;

  it('are the sums the rows stand for, computed by the database without loading the rows', async () => {
    const [ann, ben] = await suite.members('ann', 'ben');
    await db().delete(securityEvents);
    const now = Date.now();
    const at = (ms: number) => new Date(now - ms);
    const seen = (ms: number) => at(ms).toISOString();
    await db()
      .insert(securityEvents)
      .values([
        {
          type: 'login_failed',
          severity: 'medium',
          ip: '198.51.100.1',
          details: { count: 5, lastSeen: seen(9 * MIN_MS) },
          createdAt: at(10 * MIN_MS),
        },
        {
          type: 'decoy_hit',
          severity: 'high',
          ip: '198.51.100.1',
          details: { method: 'GET', path: '/api/decoy/x', count: 3 },
          createdAt: at(2 * HOUR_MS),
        },
        {
          type: 'rate_limit',
          severity: 'medium',
          ip: '198.51.100.2',
          details: { route: '/api/decoy/*', count: 7 },
          createdAt: at(30 * MIN_MS),
        },
        { type: 'breach_report', severity: 'critical', ip: '198.51.100.3', userId: ann!.id, createdAt: at(5 * HOUR_MS) },
        { type: 'login_failed', severity: 'medium', ip: '198.51.100.3', createdAt: at(4 * HOUR_MS) },
        {
          type: 'canary_key_used',
          severity: 'critical',
          ip: '198.51.100.1',
          userId: ben!.id,
          details: { count: 2, lastSeen: seen(MIN_MS) },
          createdAt: at(50 * MIN_MS),
        },
        { type: 'decoy_hit', severity: 'high', ip: '198.51.100.2', userId: ann!.id, createdAt: at(23 * HOUR_MS) },
        { type: 'emergency_lifted', severity: 'low', createdAt: at(3 * HOUR_MS) },
        // Outside the day, and an audit entry: in no figure.
        { type: 'login_failed', severity: 'medium', ip: '198.51.100.1', details: { count: 100 }, createdAt: at(25 * HOUR_MS) },
        { type: 'member_banned', severity: 'medium', ip: '127.0.0.1', actor: 'creator', createdAt: at(HOUR_MS / 2) },
      ]);
    recording = true;
    const m: SecurityMetrics = await new TestMember.Anonymous(suite.server.url).call(routes.securityMetrics, {}, creatorHeaders);
    recording = false;

    expect(m.metrics).toMatchObject({
      counts: { total: 21, critical: 3, high: 4, medium: 13, low: 1 },
      threatScore: 12 * 3 + 2 * 15,
      activeThreats: 2,
      tamperReports: 1,
      decoyHits: 4,
    });
    expect([...m.metrics.countermeasures].sort()).toEqual(['decoy_endpoints', 'rate_limiting']);
    const source = (kind: 'ip' | 'type', key: string, events: number, score: number, worst: string, lastSeen: string, blocked = false) => ({
      kind,
      key,
      events,
      score,
      worst,
      lastSeen,
      blocked,
    });
    expect(m.threatIntelligence).toEqual([
      source('ip', '198.51.100.1', 10, 66, 'critical', seen(MIN_MS)),
      source('type', 'canary_key_used', 2, 30, 'critical', seen(MIN_MS)),
      source('ip', '198.51.100.2', 8, 28, 'high', seen(30 * MIN_MS)),
      source('type', 'decoy_hit', 4, 28, 'high', seen(2 * HOUR_MS)),
      source('type', 'rate_limit', 7, 21, 'medium', seen(30 * MIN_MS)),
      source('type', 'login_failed', 6, 18, 'medium', seen(9 * MIN_MS)),
      source('ip', '198.51.100.3', 2, 18, 'critical', seen(4 * HOUR_MS)),
      source('type', 'breach_report', 1, 15, 'critical', seen(5 * HOUR_MS)),
      source('type', 'emergency_lifted', 1, 1, 'low', seen(3 * HOUR_MS)),
    ]);
    expect(m.behavioralProfiles).toEqual([
      expect.objectContaining({
        userId: ben!.id,
        username: 'ben',
        events: 2,
        score: 30,
        worst: 'critical',
        types: ['canary_key_used'],
        lastSeen: seen(MIN_MS),
      }),
      expect.objectContaining({
        userId: ann!.id,
        username: 'ann',
        events: 2,
        score: 22,
        worst: 'critical',
        types: ['breach_report', 'decoy_hit'],
        lastSeen: seen(5 * HOUR_MS),
      }),
    ]);
    // Every read of the events table is an aggregate or a page, none the day's rows with their headers.
    const reads = statements.filter((q) => /from "security_events"/i.test(q));
    expect(reads.length).toBeGreaterThan(0);
    for (const q of reads) expect(q, q).toMatch(/sum\(|percentile_cont\(|limit /i);
  });
});
