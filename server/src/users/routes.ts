import type { PublicUser } from '@enclave/protocol';
import { asc } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { onlineUserIds } from '../realtime/presence';

export async function userRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get('/api/users/all', async () => {
    const [rows, online] = await Promise.all([
      ctx.db
        .select({
          id: users.id,
          username: users.username,
          role: users.role,
          isSuperAdmin: users.isSuperAdmin,
          isBanned: users.isBanned,
          bannedReason: users.bannedReason,
          lastActivity: users.lastActivity,
          createdAt: users.createdAt,
          encryptionPublicKey: users.encryptionPublicKey,
          signingPublicKey: users.signingPublicKey,
        })
        .from(users)
        .orderBy(asc(users.username)),
      onlineUserIds(ctx.db),
    ]);
    const list: PublicUser[] = rows.map(({ createdAt, lastActivity, ...u }) => ({
      ...u,
      online: !u.isBanned && online.has(u.id),
      lastActivity: lastActivity?.toISOString() ?? null,
      joinedAt: createdAt.toISOString(),
    }));
    return { users: list };
  });
}
