/**
 * Security events and the audit log (docs/security.md §10): one table, written here only. Each
 * event keeps the address the server really saw and the request's headers minus credentials.
 *
 * Anyone can cause events (a wrong login, a refused socket, a 429), so they must not cost a row
 * each. Repeats of one event — same type, address, member and details — within EVENT_WINDOW_MS are
 * ONE row: `details.count` says how many events it stands for (a row without one is one event) and
 * `details.lastSeen` when the last came; `created_at` is the first. Everything that counts events
 * (the master-key limit below, the creator's panels) sums `count`, never rows.
 *
 * Correct across instances and under concurrency: the row of a window is found and incremented in
 * one transaction holding a PostgreSQL advisory lock on the event's key, so concurrent writers of
 * the same event — on this instance or any other sharing the database — queue on the lock and add
 * to the same row, and no increment is lost (the count lives in the database, not in one process).
 *
 * Bounded: a source is an IPv4 address or the /64 of an IPv6 one (`limitedAddress`, as every limit
 * counts), so moving within one's own network makes no new rows. Each instance writes at most
 * MAX_WRITES_PER_SOURCE times per source per window. Beyond that, repeats only add to an in-memory
 * counter per event, written as one increment when the window ends (a sweep) or the server closes
 * (`flushSecurityEvents`). So the first events of a burst are in the database at once — the
 * master-key limit of 5 reads them exactly, on every instance — and a flood costs at most
 * MAX_WRITES_PER_SOURCE + MAX_KEYS_PER_SOURCE writes per source per minute per instance, whatever it
 * sends. Details a caller can vary (a decoy's path, a username tried) make at most MAX_KEYS_PER_SOURCE
 * distinct events per source and window; further ones fold into one per type. Each row keeps at most
 * HEADERS_MAX characters of headers (ip-analysis.ts). Audit entries (an actor acting) are not coalesced: one row each.
 *
 * Kept SECURITY_EVENT_RETENTION_DAYS (30 by default), audit entries too: each instance deletes older
 * rows in batches every RETENTION_SWEEP_MS (`startEventRetention`).
 */
import type { Severity } from '@enclave/protocol';
import { and, desc, eq, gt, isNull, sql, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import { securityEvents } from '../db/schema';
import { limitedAddress } from './blocks';
import { analyzeRequest, type ReportedAddresses } from './ip-analysis';

/** Repeats of one event from one source within this window are one row. */
export const EVENT_WINDOW_MS = 60_000;
/** Database writes per source address, per window and instance; beyond it repeats are held in memory. */
export const MAX_WRITES_PER_SOURCE = 100;
/**
 * Distinct events (written or held) per source and window; beyond it, further new ones fold into one
 * event per type with `details: {mixed: true}` (details a caller can vary, such as a decoy's path or a
 * chosen username, cannot make more rows or a larger held set).
 */
export const MAX_KEYS_PER_SOURCE = 20;
/** How often windows that have ended are written and forgotten. */
const SWEEP_MS = 10_000;
/** First key of the advisory locks taken here (the second is the event key's hash). */
const LOCK_CLASS = 0x5ec0;

export type { Severity };

export const eventTypes = {
  loginFailed: 'login_failed',
  bannedLogin: 'banned_access',
  rateLimited: 'rate_limit',
  socketAuthFailed: 'websocket_auth_failed',
  keyRefused: 'key_validation_failed',
  canaryKey: 'canary_key_used',
  masterKeyFailed: 'master_key_failed',
  /** The previous master key (MASTER_KEY_PREVIOUS) accepted during a rotation: who still uses it. */
  masterKeyPreviousUsed: 'master_key_previous_used',
  keysGenerated: 'admin_keys_generated',
  keysRevoked: 'admin_keys_revoked',
  keysExported: 'admin_keys_exported',
  userBanned: 'member_banned',
  userUnbanned: 'member_unbanned',
  roleChanged: 'creator_role_changed',
  creatorAccountChanged: 'creator_account_marked',
  emergencyShutdown: 'emergency_shutdown',
  emergencyLifted: 'emergency_lifted',
  /** A locked or wiped member tries to sign in. */
  lockedLogin: 'locked_access',
  wipedLogin: 'wiped_access',
  decoyHit: 'decoy_hit',
  /** A request or socket upgrade refused because its address is blocked. */
  blockedIpHit: 'blocked_ip_hit',
  /** The creator's master key served from a blocked address (so a mistaken block can be undone). */
  blockedIpCreator: 'blocked_ip_creator_access',
  breachReport: 'breach_report',
  ipBlocked: 'ip_blocked',
  ipUnblocked: 'ip_unblocked',
  memberUnlocked: 'member_unlocked',
  sessionsRevoked: 'sessions_revoked',
  /** A P2P signal or close for a connection the sender is not a party of. */
  p2pSignalRefused: 'p2p_signal_refused',
  /** A request body that did not arrive in time (http/slow-requests.ts): its connection was closed. */
  slowRequest: 'slow_request',
} as const;

/**
 * What an event records of the request behind it: a request, or what a socket keeps of its
 * upgrade (realtime/connection.ts), which need not hold on to the whole request.
 */
export type EventSource = Pick<FastifyRequest, 'ip' | 'ips' | 'headers' | 'log'>;

export type EventInput = {
  type: string;
  severity: Severity;
  userId?: string | null;
  actor?: string | null;
  details?: Record<string, unknown>;
  /** Addresses the member's own client reported (a breach report); kept in the IP analysis only. */
  reported?: ReportedAddresses;
};

/**
 * Records an event seen on a request (or, without one, by the server itself). `tx`: a transaction
 * of the caller's that the row is written in, so that it commits with the action it records (a
 * breach report's lock or wipe) or not at all. Such a row is always written, never held in memory:
 * the actions that need it are themselves bounded (a member's own account is acted on once).
 */
export async function recordEvent(db: Db, req: EventSource | null, event: EventInput, tx?: Db): Promise<void> {
  const analysis = req ? analyzeRequest(req, event.reported ?? {}) : null;
  const ip = analysis?.clientIP ?? null;
  const row = {
    type: event.type,
    severity: event.severity,
    userId: event.userId ?? null,
    ip,
    source: ip === null ? null : limitedAddress(ip),
    details: event.details ?? {},
    ipAnalysis: analysis ?? {},
  };
  if (event.actor) {
    // Audit: an administrator or the creator acting, signed in; each action is a record of its own.
    await (tx ?? db).insert(securityEvents).values({ ...row, actor: event.actor });
    return;
  }
  await coalescerOf(db).record(row, req?.log ?? null, tx);
}

/** Writes the repeats held in memory (at shutdown, before the database closes). */
export async function flushSecurityEvents(db: Db): Promise<void> {
  await coalescers.get(db)?.flush();
}

/** How many events a row stands for, in SQL: its `details.count`, else 1. */
export function eventCount(): SQL<number> {
  return sql<number>`coalesce((${securityEvents.details}->>'count')::int, 1)`;
}

/** How many events a row stands for, from its details. */
export function eventsOf(details: Record<string, unknown>): number {
  const n = details.count;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
}

/** When a row's last event came: `details.lastSeen`, else its creation. */
export function lastSeenOf(details: Record<string, unknown>, createdAt: Date): Date {
  const at = typeof details.lastSeen === 'string' ? new Date(details.lastSeen) : null;
  return at && !Number.isNaN(at.getTime()) && at > createdAt ? at : createdAt;
}

type Coalesced = {
  type: string;
  severity: Severity;
  userId: string | null;
  ip: string | null;
  source: string | null;
  details: Record<string, unknown>;
  ipAnalysis: Record<string, unknown>;
};
type Held = { event: Coalesced; n: number; first: Date; last: Date };
/** `keys`: the distinct events of the window, written or held (at most MAX_KEYS_PER_SOURCE, plus one folded per type). */
type SourceWindow = { start: number; writes: number; keys: Set<string>; held: Map<string, Held> };

const coalescers = new WeakMap<Db, Coalescer>();
function coalescerOf(db: Db): Coalescer {
  let c = coalescers.get(db);
  if (!c) coalescers.set(db, (c = new Coalescer(db)));
  return c;
}

/**
 * The same event: type, source, member and details. A row keeps the address and IP analysis
 * (headers) of its first event. What a caller can vary in details (a decoy's path, a username tried
 * with a canary key) only makes more keys, and those per source are capped (MAX_KEYS_PER_SOURCE).
 */
function keyOf(e: Coalesced): string {
  return JSON.stringify([e.type, e.source, e.userId, e.details]);
}

/** Per database (so per server): the writes each source has made in its window, and what is held. */
class Coalescer {
  private readonly sources = new Map<string, SourceWindow>();
  private timer: NodeJS.Timeout | null = null;
  private log: FastifyBaseLogger | null = null;

  constructor(private readonly db: Db) {}

  /** `tx`: written in the caller's transaction, whatever the window's writes so far (recordEvent). */
  async record(event: Coalesced, log: FastifyBaseLogger | null, tx?: Db): Promise<void> {
    if (log) this.log = log;
    const now = Date.now();
    const source = event.source ?? '';
    let win = this.sources.get(source);
    if (!win || now - win.start >= EVENT_WINDOW_MS) {
      if (win) this.write(win);
      win = { start: now, writes: 0, keys: new Set(), held: new Map() };
      this.sources.set(source, win);
      this.timer ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
    }
    const at = new Date(now);
    let key = keyOf(event);
    // An event in a caller's transaction keeps its details: it is the audit of an action (recordEvent).
    if (!tx && !win.keys.has(key) && win.keys.size >= MAX_KEYS_PER_SOURCE) {
      event = { ...event, details: { mixed: true } };
      key = keyOf(event);
    }
    win.keys.add(key);
    if (win.writes < MAX_WRITES_PER_SOURCE || tx) {
      win.writes += 1;
      await addToWindowRow(tx ?? this.db, event, 1, at, at);
      return;
    }
    const held = win.held.get(key);
    if (held) {
      held.n += 1;
      held.last = at;
    } else {
      win.held.set(key, { event, n: 1, first: at, last: at });
    }
  }

  /** Writes and forgets the windows that have ended. */
  private sweep(): void {
    const now = Date.now();
    for (const [source, win] of this.sources) {
      if (now - win.start < EVENT_WINDOW_MS) continue;
      this.sources.delete(source);
      this.write(win);
    }
    if (this.sources.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** In the background: one increment per held event. */
  private write(win: SourceWindow): void {
    this.writeHeld(win).catch((err: unknown) => this.log?.error({ err }, 'could not write held security events'));
  }

  private async writeHeld(win: SourceWindow): Promise<void> {
    const held = [...win.held.values()];
    win.held.clear();
    for (const h of held) await addToWindowRow(this.db, h.event, h.n, h.first, h.last);
  }

  async flush(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const windows = [...this.sources.values()];
    this.sources.clear();
    for (const win of windows) await this.writeHeld(win);
  }
}

/**
 * Adds `n` events (the first at `first`, the last at `last`) to the row of their window — the
 * latest row of the same event created less than EVENT_WINDOW_MS before `first` — or starts one.
 * The advisory lock (released at commit) makes find-then-update-or-insert atomic per event key
 * across every connection and instance: concurrent writers never make two rows of one window, and
 * the increment itself is done in SQL on the row as locked, so none is lost.
 */
async function addToWindowRow(db: Db, e: Coalesced, n: number, first: Date, last: Date): Promise<void> {
  const key = keyOf(e);
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${key}::text))`);
    const [row] = await tx
      .select({ id: securityEvents.id })
      .from(securityEvents)
      .where(
        and(
          eq(securityEvents.type, e.type),
          e.source === null ? isNull(securityEvents.source) : eq(securityEvents.source, e.source),
          e.userId === null ? isNull(securityEvents.userId) : eq(securityEvents.userId, e.userId),
          isNull(securityEvents.actor),
          gt(securityEvents.createdAt, new Date(first.getTime() - EVENT_WINDOW_MS)),
          sql`(${securityEvents.details} - 'count' - 'lastSeen') = ${JSON.stringify(e.details)}::jsonb`,
        ),
      )
      .orderBy(desc(securityEvents.id))
      .limit(1);
    if (row) {
      await tx
        .update(securityEvents)
        .set({
          details: sql`${securityEvents.details} || jsonb_build_object(
            'count', ${eventCount()} + ${n}::int,
            'lastSeen', greatest(${securityEvents.details}->>'lastSeen', ${last.toISOString()}::text))`,
        })
        .where(eq(securityEvents.id, row.id));
    } else {
      await tx.insert(securityEvents).values({ ...e, actor: null, details: { ...e.details, count: n, lastSeen: last.toISOString() } });
    }
  });
}

/** The actor of an authorized request: the member, or the creator by master key. */
export function actorOf(req: FastifyRequest): string | null {
  return req.isCreator ? 'creator' : (req.auth?.user.id ?? null);
}

/**
 * Events of one type from one address (its /64 for IPv6) in the last minute: a rate limit that holds across instances.
 * It sums the events of the rows whose last event is in the window (a row's events all count while
 * its latest is recent, so a burst is remembered for at most a minute after it stops).
 */
export async function recentFailures(db: Db, ip: string, type: string, windowMs: number): Promise<number> {
  const since = new Date(Date.now() - windowMs);
  const [row] = await db
    .select({ n: sql<number>`coalesce(sum(${eventCount()}), 0)::int` })
    .from(securityEvents)
    .where(
      and(
        eq(securityEvents.type, type),
        eq(securityEvents.source, limitedAddress(ip)),
        // A row's events come within EVENT_WINDOW_MS of its creation: older rows cannot qualify.
        gt(securityEvents.createdAt, new Date(since.getTime() - EVENT_WINDOW_MS)),
        sql`coalesce((${securityEvents.details}->>'lastSeen')::timestamptz, ${securityEvents.createdAt}) > ${since.toISOString()}::timestamptz`,
      ),
    );
  return row?.n ?? 0;
}
