/**
 * Blocked addresses (docs/security.md §10): the creator refuses an address on every HTTP route and
 * socket upgrade of every instance. The `blocked_ips` table is the truth; each instance holds the
 * current set in memory (an `onRequest` hook cannot afford a query per request), loaded at start,
 * reloaded on the bus event `blocks_changed` that a block or unblock publishes after its commit,
 * and re-read every REFRESH_MS in case a bus event was missed. Expired blocks stop applying at
 * their expiry, whatever the cache holds.
 */
import net from 'node:net';
import type { BlockedIp } from '@enclave/protocol';
import { normalizeIP } from '@fastify/rate-limit';
import { eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { blockedIps } from '../db/schema';
import type { Bus } from '../realtime/bus';

/** The safety net for a missed `blocks_changed`: how stale an instance's set can get. */
export const REFRESH_MS = 30_000;
/** Refused hits are added to the table in batches, so that a flood costs one write per batch. */
const HIT_FLUSH_MS = 2_000;

/**
 * One spelling per address: IPv6 canonical (lower case, zeros compressed), IPv4-mapped IPv6 as the
 * IPv4 address. Null for anything that is not an address.
 */
export function normalizeIp(ip: string): string | null {
  const kind = net.isIP(ip);
  if (kind === 4) return ip;
  if (kind !== 6) return null;
  // The URL parser writes IPv6 canonically (and a mapped IPv4 as two hex groups).
  const host = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/**
 * What a per-address limit counts: an IPv4 address, or the /64 of an IPv6 one (one subscriber's
 * network, whose 2^64 addresses cost nothing to move between), as @fastify/rate-limit counts the
 * per-route limits. Anything that is not an address is counted as it is.
 */
export function limitedAddress(ip: string): string {
  const address = normalizeIp(ip);
  if (address === null || net.isIPv4(address)) return address ?? ip;
  return `${normalizeIP(address, 64)}/64`;
}

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * Why `ip` (normalized) must not be blocked, or null: loopback or one of `own` (this server's
 * addresses), from which every member behind a proxy on this host arrives, or the unspecified
 * address, which no client has.
 */
export function unblockable(ip: string, own: readonly (string | undefined)[]): string | null {
  if (ip === '0.0.0.0' || ip === '::') return `${ip} is the unspecified address, not a client's`;
  const which = loopback.check(ip, net.isIPv4(ip) ? 'ipv4' : 'ipv6')
    ? 'a loopback address'
    : own.some((a) => a !== undefined && normalizeIp(a) === ip)
      ? "this server's own address"
      : null;
  return which && `${ip} is ${which}: blocking it would refuse every member who comes through a proxy on this host`;
}

const active = (now: Date) => or(isNull(blockedIps.expiresAt), gt(blockedIps.expiresAt, now));

export const blockView = (r: typeof blockedIps.$inferSelect): BlockedIp => ({
  ip: r.ip,
  reason: r.reason,
  createdAt: r.createdAt.toISOString(),
  expiresAt: r.expiresAt?.toISOString() ?? null,
  hits: r.hits,
});

/** The blocks in force now, oldest first. */
export async function activeBlocks(db: Db, now = new Date()): Promise<BlockedIp[]> {
  const rows = await db.select().from(blockedIps).where(active(now)).orderBy(blockedIps.createdAt);
  return rows.map(blockView);
}

/** This instance's copy of the blocks in force: address → expiry (null: none). */
export class BlockList {
  private blocks = new Map<string, Date | null>();
  private readonly pendingHits = new Map<string, number>();
  private refreshTimer: NodeJS.Timeout | null = null;
  private hitTimer: NodeJS.Timeout | null = null;
  /** Bumped by each reload: a slow read never overwrites a newer one. */
  private generation = 0;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Loads the set, follows `blocks_changed` on the bus and re-reads periodically. */
  async start(bus: Bus): Promise<void> {
    bus.subscribe((event) => {
      if (event.kind === 'blocks_changed') this.reloadInBackground();
    });
    await this.reload();
    this.refreshTimer = setInterval(() => this.reloadInBackground(), REFRESH_MS);
    this.refreshTimer.unref();
  }

  /** Whether `ip` (as the request's `req.ip`) is blocked now. */
  isBlocked(ip: string | undefined, now = Date.now()): boolean {
    const key = ip === undefined ? null : normalizeIp(ip);
    if (key === null || !this.blocks.has(key)) return false;
    const expires = this.blocks.get(key);
    return !expires || expires.getTime() > now;
  }

  get size(): number {
    const now = Date.now();
    return [...this.blocks.keys()].filter((ip) => this.isBlocked(ip, now)).length;
  }

  async reload(): Promise<void> {
    const generation = ++this.generation;
    const rows = await this.db.select({ ip: blockedIps.ip, expiresAt: blockedIps.expiresAt }).from(blockedIps).where(active(new Date()));
    if (generation !== this.generation) return;
    this.blocks = new Map(rows.map((r) => [r.ip, r.expiresAt]));
    for (const listener of this.listeners) listener();
  }

  /** Called after each reload (the gateway closes the sockets of newly blocked addresses). */
  onReload(listener: () => void): void {
    this.listeners.push(listener);
  }

  private reloadInBackground(): void {
    this.reload().catch((err: unknown) => this.log.error({ err }, 'could not reload the blocked addresses'));
  }

  /** Counts a refused request or upgrade; written with the others of its batch. */
  countHit(ip: string): void {
    const key = normalizeIp(ip);
    if (key === null) return;
    this.pendingHits.set(key, (this.pendingHits.get(key) ?? 0) + 1);
    this.hitTimer ??= setTimeout(() => {
      this.hitTimer = null;
      this.flushHits().catch((err: unknown) => this.log.error({ err }, 'could not count blocked hits'));
    }, HIT_FLUSH_MS).unref();
  }

  /** Adds the hits counted so far to their rows (before listing blocks, and at shutdown). */
  async flushHits(): Promise<void> {
    const pending = [...this.pendingHits];
    this.pendingHits.clear();
    for (const [ip, n] of pending) {
      await this.db
        .update(blockedIps)
        .set({ hits: sql`${blockedIps.hits} + ${n}` })
        .where(eq(blockedIps.ip, ip));
    }
  }

  async close(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    if (this.hitTimer) clearTimeout(this.hitTimer);
    this.refreshTimer = this.hitTimer = null;
    await this.flushHits();
  }
}

/** Blocks (or re-blocks, replacing reason and expiry) an address; the hits of a block in force are kept. */
export async function blockIp(db: Db, ip: string, reason: string, expiresAt: Date | null): Promise<BlockedIp> {
  const inForce = sql`(${blockedIps.expiresAt} is null or ${blockedIps.expiresAt} > ${new Date().toISOString()}::timestamptz)`;
  const [row] = await db
    .insert(blockedIps)
    .values({ ip, reason, expiresAt })
    .onConflictDoUpdate({
      target: blockedIps.ip,
      set: {
        reason,
        expiresAt,
        // Over an expired block this is a new one: it starts now, from zero hits.
        createdAt: sql`case when ${inForce} then ${blockedIps.createdAt} else now() end`,
        hits: sql`case when ${inForce} then ${blockedIps.hits} else 0 end`,
      },
    })
    .returning();
  if (!row) throw new Error('block returned no row');
  return blockView(row);
}

/** Lifts a block (an expired row goes too); whether one was in force. */
export async function unblockIp(db: Db, ip: string): Promise<boolean> {
  const now = Date.now();
  const rows = await db.delete(blockedIps).where(eq(blockedIps.ip, ip)).returning({ expiresAt: blockedIps.expiresAt });
  return rows.some((r) => !r.expiresAt || r.expiresAt.getTime() > now);
}
