/** The creator console's member list, which the operator command line prints too. */
import type { MonitoredUser } from '@enclave/protocol';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accessKeys, users } from '../db/schema';
import { onlineUserIds } from '../realtime/presence';

/** Every member, oldest first, with presence, standing and the invite key they redeemed. */
export async function monitoredUsers(db: Db): Promise<MonitoredUser[]> {
  const [rows, online] = await Promise.all([
    db
      .select({ u: users, key: accessKeys.key, purchaseId: accessKeys.purchaseId })
      .from(users)
      .leftJoin(accessKeys, eq(accessKeys.usedBy, users.id))
      .orderBy(asc(users.createdAt)),
    onlineUserIds(db),
  ]);
  return rows.map(({ u, key, purchaseId }) => ({
    id: u.id,
    username: u.username,
    role: u.role,
    isCreatorAccount: u.isCreatorAccount,
    isBanned: u.isBanned,
    bannedReason: u.bannedReason,
    isCompromised: u.isCompromised,
    isLocked: u.isLocked,
    online: online.has(u.id),
    lastActivity: u.lastActivity?.toISOString() ?? null,
    joinedAt: u.createdAt.toISOString(),
    inviteKey: key,
    purchaseId,
  }));
}
