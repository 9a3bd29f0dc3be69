/** The network creator's console (master key only): overview, members, emergency, security panels. */
import { routes, type MonitoredUser } from '@enclave/protocol';
import { asc, count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { accessKeys, messages, users } from '../db/schema';
import { serve } from '../http/routes';
import { onlineUserIds } from '../realtime/presence';
import { eventTypes, recordEvent } from '../security/events';
import { emergencyShutdown, emergencyState, liftEmergency } from './emergency';
import { compliance, heatmap, risk } from './security';

const DAY_MS = 24 * 60 * 60 * 1000;

export async function creatorRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  serve(app, routes.overview, async () => {
    const [[u], [m], online, emergency] = await Promise.all([
      db
        .select({
          total: count(),
          banned: sql<number>`count(*) filter (where ${users.isBanned})::int`,
          active: sql<number>`count(*) filter (where not ${users.isBanned} and ${users.lastActivity} > ${new Date(Date.now() - DAY_MS)})::int`,
        })
        .from(users),
      db.select({ n: count() }).from(messages),
      onlineUserIds(db),
      emergencyState(db),
    ]);
    return {
      totalUsers: u?.total ?? 0,
      onlineUsers: online.size,
      activeUsers: u?.active ?? 0,
      bannedUsers: u?.banned ?? 0,
      totalMessages: m?.n ?? 0,
      emergency,
    };
  });

  serve(app, routes.monitoredUsers, async () => {
    const [rows, online] = await Promise.all([
      db
        .select({ u: users, key: accessKeys.key, purchaseId: accessKeys.purchaseId })
        .from(users)
        .leftJoin(accessKeys, eq(accessKeys.usedBy, users.id))
        .orderBy(asc(users.createdAt)),
      onlineUserIds(db),
    ]);
    const list: MonitoredUser[] = rows.map(({ u, key, purchaseId }) => ({
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
    return { users: list };
  });

  serve(app, routes.emergencyShutdown, async (req) => {
    const { timing, ...result } = await emergencyShutdown(ctx);
    await recordEvent(db, req, { type: eventTypes.emergencyShutdown, severity: 'critical', actor: 'creator', details: { banned: result.banned, ...timing } });
    return result;
  });

  serve(app, routes.liftEmergency, async (req) => {
    const emergency = await liftEmergency(db);
    await recordEvent(db, req, { type: eventTypes.emergencyLifted, severity: 'high', actor: 'creator' });
    return { emergency };
  });

  serve(app, routes.heatmap, async () => heatmap(db));
  serve(app, routes.risk, async () => risk(db));
  serve(app, routes.compliance, async (req) => compliance(app, db, ctx.config, req));
}
