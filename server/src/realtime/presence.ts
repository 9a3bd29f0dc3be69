/**
 * Real presence: a member is online while any server instance holds one of their sockets.
 * Each instance mirrors its socket counts into the `presence` table, in batches per tick
 * (gateway.ts), and refreshes them; rows not refreshed for PRESENCE_TTL belong to an instance that
 * died and no longer count.
 */
import { and, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { presence } from '../db/schema';

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
      .onConflictDoUpdate({ target: [presence.instanceId, presence.userId], set: { sockets: sql`excluded.sockets`, updatedAt: sql`now()` } });
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

export async function onlineUserIds(db: Db): Promise<Set<string>> {
  const rows = await db
    .selectDistinct({ userId: presence.userId })
    .from(presence)
    .where(gt(presence.updatedAt, liveSince()));
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
