/**
 * Real presence: a member is online while any server instance holds one of their sockets.
 * Each instance mirrors its socket counts into the `presence` table, in batches per tick
 * (PresenceTracker), and refreshes them; rows not refreshed for PRESENCE_TTL belong to an instance
 * that died and no longer count.
 */
import type { ServerFrameOf } from '@enclave/protocol';
import { and, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { presence } from '../db/schema';
import { encode } from './flow';
import { presence as publishPresence, serverFrame, type FramePublisher } from './publish';

export const PRESENCE_TTL_MS = 60_000;
export const PRESENCE_REFRESH_MS = 20_000;

const liveSince = () => new Date(Date.now() - PRESENCE_TTL_MS);

/**
 * Writes this instance's socket counts for the members in `counts` (0: none left here, the row
 * goes): one statement for the rows kept, one for the rows removed, whatever the number of members.
 */
export async function writeSocketCounts(db: Db, instanceId: string, counts: ReadonlyMap<string, number>): Promise<void> {
  const gone = [...counts].filter(([, n]) => n === 0).map(([userId]) => userId);
  const kept = [...counts].filter(([, n]) => n > 0).map(([userId, sockets]) => ({ instanceId, userId, sockets }));
  if (gone.length) await db.delete(presence).where(and(eq(presence.instanceId, instanceId), inArray(presence.userId, gone)));
  if (kept.length) {
    await db
      .insert(presence)
      .values(kept)
      .onConflictDoUpdate({
        target: [presence.instanceId, presence.userId],
        set: { sockets: sql`excluded.sockets`, updatedAt: sql`now()` },
      });
  }
}

/** Of these members, those with a socket on another live instance. */
export async function onlineElsewhere(db: Db, instanceId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ userId: presence.userId })
    .from(presence)
    .where(and(inArray(presence.userId, [...userIds]), ne(presence.instanceId, instanceId), gt(presence.updatedAt, liveSince())));
  return new Set(rows.map((r) => r.userId));
}

/** Members with a live socket on some instance; only among these ids when given. */
export async function onlineUserIds(db: Db, among?: readonly string[]): Promise<Set<string>> {
  const live = gt(presence.updatedAt, liveSince());
  const rows = await db
    .selectDistinct({ userId: presence.userId })
    .from(presence)
    .where(among ? and(live, inArray(presence.userId, [...among])) : live);
  return new Set(rows.map((r) => r.userId));
}

/**
 * Makes this instance's rows exactly `counts` (its sockets per member), fresh, and sweeps the rows
 * of dead instances. Rewritten rather than touched: a write that failed (the database was away
 * when a socket opened or closed) is repaired here instead of lasting.
 */
export async function syncPresence(db: Db, instanceId: string, counts: ReadonlyMap<string, number>): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(presence).where(eq(presence.instanceId, instanceId));
    if (counts.size) await tx.insert(presence).values([...counts].map(([userId, sockets]) => ({ instanceId, userId, sockets })));
  });
  await db.delete(presence).where(lt(presence.updatedAt, liveSince()));
}

export async function clearInstance(db: Db, instanceId: string): Promise<void> {
  await db.delete(presence).where(eq(presence.instanceId, instanceId));
}

/** Presence changes are written and announced once per tick (see PresenceTracker). */
export const PRESENCE_TICK_MS = 250;

/** What the tracker reads of the gateway's sockets, and how it reaches them. */
export type PresenceHost = FramePublisher & {
  /** Sockets here of a member. */
  socketCount(userId: string): number;
  /** Sockets here per member, for the members who have one. */
  socketCounts(): Map<string, number>;
  deliverHere(to: 'all', frame: ServerFrameOf<'presence'>): void;
};

/**
 * One instance's part of presence: its socket counts written in batches, once per
 * PRESENCE_TICK_MS (a thousand members coming online is a few frames per socket, not a thousand,
 * and a few batched writes, not one per socket), rewritten every PRESENCE_REFRESH_MS, and who is
 * online on any instance, as the `presence` frames and each refresh say.
 */
export class PresenceTracker {
  /** Members whose sockets here changed in number since the last tick. */
  private readonly changed = new Set<string>();
  /** Members this instance last wrote as having a socket here. */
  private readonly presentHere = new Set<string>();
  /** Members online on any instance, as the presence frames on the bus (and each refresh) say. */
  private readonly online = new Set<string>();
  /** The `presence_snapshot` frame of `online`, encoded once until it changes. */
  private snapshotFrame: Buffer | null = null;
  /** The first read of `online` from the database; snapshots wait for it. */
  readonly loaded: Promise<void>;
  /** This instance's presence writes, one after another, so that an older count never lands last. */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly refreshTimer: NodeJS.Timeout;
  private readonly tickTimer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly instanceId: string,
    private readonly host: PresenceHost,
    private readonly log: FastifyBaseLogger,
  ) {
    this.refreshTimer = setInterval(() => {
      this.sync()
        .then(() => this.reloadOnline())
        .catch((err: unknown) => log.warn({ err }, 'presence refresh failed'));
    }, PRESENCE_REFRESH_MS);
    this.refreshTimer.unref();
    this.tickTimer = setInterval(() => {
      this.flush().catch((err: unknown) => log.warn({ err }, 'presence write failed'));
    }, PRESENCE_TICK_MS);
    this.tickTimer.unref();
    // Until read, snapshots would show nobody: the next refresh tries again should this fail.
    this.loaded = this.reloadOnline().catch((err: unknown) => log.warn({ err }, 'could not read presence'));
  }

  /** A member's sockets here changed in number: written and announced at the next tick. */
  changedHere(userId: string): void {
    this.changed.add(userId);
  }

  /** Runs presence writes in the order they were asked for; each reads the counts when it runs. */
  private inOrder(write: () => Promise<void>): Promise<void> {
    const done = this.writes.then(write);
    this.writes = done.catch(() => undefined);
    return done;
  }

  /**
   * Writes the socket counts that changed since the last tick, in one batch, then announces in one
   * frame the members who came online or went offline here and have no socket on another instance.
   * Written before the read of the other instances, as they do: of two instances taking a member's
   * last socket and first socket at once, at least one sees the other's row.
   */
  private flush(): Promise<void> {
    return this.inOrder(async () => {
      if (this.changed.size === 0) return;
      const counts = new Map([...this.changed].map((userId) => [userId, this.host.socketCount(userId)]));
      this.changed.clear();
      let elsewhere: Set<string>;
      try {
        await writeSocketCounts(this.db, this.instanceId, counts);
        elsewhere = await onlineElsewhere(this.db, this.instanceId, [...counts.keys()]);
      } catch (err) {
        // Tried again at the next tick.
        for (const userId of counts.keys()) this.changed.add(userId);
        throw err;
      }
      const online: string[] = [];
      const offline: string[] = [];
      for (const [userId, sockets] of counts) {
        const isHere = sockets > 0;
        // A second tab, or a socket closed and opened again within the tick, is no news.
        if (isHere === this.presentHere.has(userId)) continue;
        if (isHere) this.presentHere.add(userId);
        else this.presentHere.delete(userId);
        if (!elsewhere.has(userId)) (isHere ? online : offline).push(userId);
      }
      if (online.length || offline.length) await publishPresence(this.host, online, offline);
    });
  }

  /**
   * Reads who is online from the database and tells this instance's sockets what differs from
   * what they were told: members of an instance that died without a word go offline here.
   */
  async reloadOnline(): Promise<void> {
    const now = await onlineUserIds(this.db);
    const online = [...now].filter((userId) => !this.online.has(userId));
    const offline = [...this.online].filter((userId) => !now.has(userId));
    if (online.length || offline.length) this.host.deliverHere('all', serverFrame.presence(online, offline));
  }

  /** A `presence` frame on its way to this instance's sockets: `online` follows it. */
  apply(frame: ServerFrameOf<'presence'>): void {
    for (const userId of frame.online) this.online.add(userId);
    for (const userId of frame.offline) this.online.delete(userId);
    this.snapshotFrame = null;
  }

  /** The `presence_snapshot` frame a socket gets once authenticated, encoded. */
  snapshot(): Buffer {
    this.snapshotFrame ??= encode(serverFrame.presence_snapshot([...this.online]));
    return this.snapshotFrame;
  }

  /** Rewrites this instance's presence rows from the sockets it holds now. */
  sync(): Promise<void> {
    return this.inOrder(() => syncPresence(this.db, this.instanceId, this.host.socketCounts()));
  }

  stopTimers(): void {
    clearInterval(this.refreshTimer);
    clearInterval(this.tickTimer);
  }

  /**
   * After the sockets are gone: this instance's presence rows go with it, and the members who were
   * online only here are announced offline (those reconnecting elsewhere come back online there).
   */
  async close(): Promise<void> {
    this.stopTimers();
    await this.writes;
    await clearInstance(this.db, this.instanceId);
    const here = [...this.presentHere];
    this.presentHere.clear();
    const elsewhere = await onlineElsewhere(this.db, this.instanceId, here);
    const offline = here.filter((userId) => !elsewhere.has(userId));
    if (offline.length) await publishPresence(this.host, [], offline);
  }
}
