/** The member list, and moderation by admins and the creator. */
import { errorCodes, routes, type PublicUser } from '@enclave/protocol';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { HttpError } from '../http/errors';
import { serve } from '../http/routes';
import { onlineUserIds } from '../realtime/presence';
import { actorOf, eventTypes, recordEvent, type Severity } from '../security/events';
import { setBanned } from './moderation';
import { requireAuth } from '../access/policy';
import type { Moderator } from '../access/rules';

export async function userRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  serve(app, routes.users, async () => {
    const [rows, online] = await Promise.all([
      db
        .select({
          id: users.id,
          username: users.username,
          role: users.role,
          isCreatorAccount: users.isCreatorAccount,
          isBanned: users.isBanned,
          bannedReason: users.bannedReason,
          isCompromised: users.isCompromised,
          lastActivity: users.lastActivity,
          createdAt: users.createdAt,
          encryptionPublicKey: users.encryptionPublicKey,
          signingPublicKey: users.signingPublicKey,
        })
        .from(users)
        .orderBy(asc(users.username)),
      onlineUserIds(db),
    ]);
    const list: PublicUser[] = rows.map(({ createdAt, lastActivity, ...u }) => ({
      ...u,
      online: !u.isBanned && online.has(u.id),
      lastActivity: lastActivity?.toISOString() ?? null,
      joinedAt: createdAt.toISOString(),
    }));
    return { users: list };
  });

  const audit = (req: FastifyRequest, type: string, severity: Severity, userId: string | null, details: Record<string, unknown> = {}) =>
    recordEvent(db, req, { type, severity, userId, actor: actorOf(req), details });
  // /api/admin/* lets the creator in by master key too: act with the rights of whoever called.
  const moderator = (req: FastifyRequest): Moderator => (req.isCreator ? { kind: 'creator' } : { kind: 'admin', id: requireAuth(req).user.id });

  serve(app, routes.adminBan, async (req) => {
    const { userId, reason } = req.body;
    const timing = await setBanned(ctx, moderator(req), [userId], { banned: true, reason });
    await audit(req, eventTypes.userBanned, 'high', userId, { reason, ...timing });
    return { ok: true as const };
  });

  serve(app, routes.adminUnban, async (req) => {
    const { userId } = req.body;
    await setBanned(ctx, moderator(req), [userId], { banned: false });
    await audit(req, eventTypes.userUnbanned, 'medium', userId);
    return { ok: true as const };
  });

  serve(app, routes.creatorBan, async (req) => {
    const { userId, reason } = req.body;
    const timing = await setBanned(ctx, { kind: 'creator' }, [userId], { banned: true, reason });
    await audit(req, eventTypes.userBanned, 'high', userId, { reason, ...timing });
    return { ok: true as const };
  });

  serve(app, routes.creatorUnban, async (req) => {
    const { userId } = req.body;
    await setBanned(ctx, { kind: 'creator' }, [userId], { banned: false });
    await audit(req, eventTypes.userUnbanned, 'medium', userId);
    return { ok: true as const };
  });

  serve(app, routes.creatorUnbanMany, async (req) => {
    const banned = await db
      .select({ id: users.id })
      .from(users)
      .where(and(inArray(users.id, req.body.userIds), eq(users.isBanned, true)));
    await setBanned(ctx, { kind: 'creator' }, banned.map((b) => b.id), { banned: false });
    for (const { id } of banned) await audit(req, eventTypes.userUnbanned, 'medium', id, { bulk: true });
    return { unbanned: banned.length };
  });

  /** Changes one member's standing, audits it, and tells every client to refetch the member list. */
  const updateMember = async (
    req: FastifyRequest,
    userId: string,
    patch: Partial<Pick<typeof users.$inferInsert, 'role' | 'isCreatorAccount'>>,
    type: string,
    severity: Severity,
  ) => {
    const changed = await db.update(users).set(patch).where(eq(users.id, userId)).returning({ id: users.id });
    if (!changed.length) throw new HttpError(404, errorCodes.notFound, 'No such member');
    await audit(req, type, severity, userId, patch);
    await ctx.gateway.publishCommitted({ kind: 'deliver', to: 'all', frame: { type: 'users_changed' } });
    return { ok: true as const };
  };

  serve(app, routes.setRole, async (req) => {
    const { userId, role } = req.body;
    return updateMember(req, userId, { role }, eventTypes.roleChanged, 'medium');
  });

  serve(app, routes.setCreatorAccount, async (req) => {
    const { userId, isCreatorAccount } = req.body;
    return updateMember(req, userId, { isCreatorAccount }, eventTypes.creatorAccountChanged, 'high');
  });
}
