/** The network creator's console (master key only): overview, members, emergency, security panels. */
import { routes } from '@enclave/protocol';
import { count, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { messages, users } from '../db/schema';
import { serve } from '../http/routes';
import { onlineUserIds } from '../realtime/presence';
import { declareEmergency, endEmergency } from './emergency';
import { emergencyState } from './emergency-state';
import { monitoredUsers } from './members';
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

  serve(app, routes.monitoredUsers, async () => ({ users: await monitoredUsers(db) }));

  serve(app, routes.emergencyShutdown, async (req) => declareEmergency(ctx, { actor: 'creator', req }));
  serve(app, routes.liftEmergency, async (req) => ({ emergency: await endEmergency(ctx, { actor: 'creator', req }) }));

  serve(app, routes.heatmap, async () => heatmap(db));
  serve(app, routes.risk, async () => risk(db));
  serve(app, routes.compliance, async (req) => compliance(app, db, ctx.config, req));
}
