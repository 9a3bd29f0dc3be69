/** The network creator's calls (master key only): /api/super-admin/* and the key database. */
import {
  accessKeysQuerySchema,
  creatorBanRequestSchema,
  errorCodes,
  setRoleRequestSchema,
  setSuperAdminRequestSchema,
  unbanUsersRequestSchema,
  unbanUserRequestSchema,
  type MonitoredUser,
  type Overview,
} from '@enclave/protocol';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { accessKeys, messages, users } from '../db/schema';
import { HttpError, parse } from '../http/errors';
import { listKeys } from '../keys/service';
import { onlineUserIds } from '../realtime/presence';
import { eventTypes, recordEvent } from '../security/events';
import { setBanned } from '../users/moderation';
import { emergencyShutdown, emergencyState, liftEmergency } from './emergency';
import { compliance, heatmap, risk } from './security';

const DAY_MS = 24 * 60 * 60 * 1000;

export async function creatorRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;
  const audit = (req: FastifyRequest, type: string, severity: 'low' | 'medium' | 'high' | 'critical', userId: string | null, details: Record<string, unknown> = {}) =>
    recordEvent(db, req, { type, severity, userId, actor: 'creator', details });

  app.get('/api/super-admin/overview', async (): Promise<Overview> => {
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

  app.get('/api/super-admin/monitor/users', async () => {
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
      isSuperAdmin: u.isSuperAdmin,
      isBanned: u.isBanned,
      bannedReason: u.bannedReason,
      online: online.has(u.id),
      lastActivity: u.lastActivity?.toISOString() ?? null,
      joinedAt: u.createdAt.toISOString(),
      inviteKey: key,
      purchaseId,
    }));
    return { users: list };
  });

  app.post('/api/super-admin/ban-user', async (req) => {
    const { userId, reason } = parse(creatorBanRequestSchema, req.body);
    await setBanned(ctx, { kind: 'creator' }, [userId], { banned: true, reason });
    await audit(req, eventTypes.userBanned, 'high', userId, { reason });
    return { ok: true };
  });

  app.post('/api/super-admin/unban-user', async (req) => {
    const { userId } = parse(unbanUserRequestSchema, req.body);
    await setBanned(ctx, { kind: 'creator' }, [userId], { banned: false });
    await audit(req, eventTypes.userUnbanned, 'medium', userId);
    return { ok: true };
  });

  app.post('/api/super-admin/unban-users', async (req) => {
    const { userIds } = parse(unbanUsersRequestSchema, req.body);
    const banned = await db.select({ id: users.id }).from(users).where(and(inArray(users.id, userIds), eq(users.isBanned, true)));
    await setBanned(ctx, { kind: 'creator' }, banned.map((b) => b.id), { banned: false });
    for (const { id } of banned) await audit(req, eventTypes.userUnbanned, 'medium', id, { bulk: true });
    return { unbanned: banned.length };
  });

  /** Changes one member's standing, audits it, and tells every client to refetch the member list. */
  const updateMember = async (
    req: FastifyRequest,
    userId: string,
    patch: Partial<Pick<typeof users.$inferInsert, 'role' | 'isSuperAdmin'>>,
    type: string,
    severity: 'medium' | 'high',
  ) => {
    const changed = await db.update(users).set(patch).where(eq(users.id, userId)).returning({ id: users.id });
    if (!changed.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
    await audit(req, type, severity, userId, patch);
    await ctx.gateway.publish({ kind: 'deliver', to: 'all', frame: { type: 'users_changed' } });
    return { ok: true };
  };

  app.post('/api/super-admin/set-role', async (req) => {
    const { userId, role } = parse(setRoleRequestSchema, req.body);
    return updateMember(req, userId, { role }, eventTypes.roleChanged, 'medium');
  });

  app.post('/api/super-admin/set-super-admin', async (req) => {
    const { userId, isSuperAdmin } = parse(setSuperAdminRequestSchema, req.body);
    return updateMember(req, userId, { isSuperAdmin }, eventTypes.superAdminChanged, 'high');
  });

  app.post('/api/super-admin/emergency-shutdown', async (req) => {
    const result = await emergencyShutdown(ctx);
    await audit(req, eventTypes.emergencyShutdown, 'critical', null, { banned: result.banned });
    return result;
  });

  app.post('/api/super-admin/lift-emergency', async (req) => {
    const emergency = await liftEmergency(db);
    await audit(req, eventTypes.emergencyLifted, 'high', null);
    return { emergency };
  });

  app.get('/api/admin/access-keys', async (req) => {
    const { status, q } = parse(accessKeysQuerySchema, req.query);
    const needle = q?.toLowerCase();
    const keys = (await listKeys(db, { includeCanaries: true })).filter(
      (k) =>
        (!status || k.status === status) &&
        (!needle || k.purchaseId?.toLowerCase().includes(needle) || k.username?.toLowerCase().includes(needle)),
    );
    return { keys };
  });

  app.get('/api/super-admin/security/heatmap', async () => heatmap(db));
  app.get('/api/super-admin/security/risk', async () => risk(db));
  app.get('/api/super-admin/security/compliance', async (req) => compliance(app, db, ctx.config, req));
}
