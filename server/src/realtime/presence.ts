/**
 * Real presence: a member is online while any server instance holds one of their sockets.
 * Each instance mirrors its socket counts into the `presence` table and refreshes them; rows not
 * refreshed for PRESENCE_TTL belong to an instance that died and no longer count.
 */
import { and, eq, gt, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { presence } from '../db/schema';

export const PRESENCE_TTL_MS = 60_000;
export const PRESENCE_REFRESH_MS = 20_000;

const liveSince = () => new Date(Date.now() - PRESENCE_TTL_MS);

export async function setSocketCount(db: Db, instanceId: string, userId: string, sockets: number): Promise<void> {
  if (sockets === 0) {
    await db.delete(presence).where(and(eq(presence.instanceId, instanceId), eq(presence.userId, userId)));
    return;
  }
  await db
    .insert(presence)
    .values({ instanceId, userId, sockets })
    .onConflictDoUpdate({ target: [presence.instanceId, presence.userId], set: { sockets, updatedAt: sql`now()` } });
}

/** Whether another live instance holds a socket of this member. */
export async function onlineElsewhere(db: Db, instanceId: string, userId: string): Promise<boolean> {
  const rows = await db
    .select({ userId: presence.userId })
    .from(presence)
    .where(and(eq(presence.userId, userId), ne(presence.instanceId, instanceId), gt(presence.updatedAt, liveSince())))
    .limit(1);
  return rows.length > 0;
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
