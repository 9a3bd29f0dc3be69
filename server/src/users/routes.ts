/** The member list, and moderation by admins and the creator. */
import { routes, type PublicUser } from '@enclave/protocol';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { serve } from '../http/routes';
import { onlineUserIds } from '../realtime/presence';
import { actorOf, eventTypes, recordEvent } from '../security/events';
import { banMember, setBanned, setStanding, unbanMember, type Acting } from './moderation';
import { requireAuth } from '../access/policy';

export async function userRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  /** Members as the member list shows them, with presence; all of them, or those with these ids. */
  async function memberList(ids?: readonly string[]): Promise<PublicUser[]> {
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
        .where(ids ? inArray(users.id, [...ids]) : undefined)
        .orderBy(asc(users.username)),
      // A look-up reads the presence of its members only, not of everyone online.
      onlineUserIds(db, ids),
    ]);
    return rows.map(({ createdAt, lastActivity, ...u }) => ({
      ...u,
      online: !u.isBanned && online.has(u.id),
      lastActivity: lastActivity?.toISOString() ?? null,
      joinedAt: createdAt.toISOString(),
    }));
  }

  serve(app, routes.users, async () => ({ users: await memberList() }));

  // What a client fetches of a users_changed frame, or for a member its copy of the list lacks.
  serve(app, routes.lookupUsers, async (req) => ({ users: await memberList(req.body.ids) }));

  // /api/admin/* lets the creator in by master key too: act with the rights of whoever called.
  const acting = (req: FastifyRequest): Acting => ({
    moderator: req.isCreator ? { kind: 'creator' } : { kind: 'admin', id: requireAuth(req).user.id },
    actor: actorOf(req),
    req,
  });
  const asCreator = (req: FastifyRequest): Acting => ({ moderator: { kind: 'creator' }, actor: actorOf(req), req });

  serve(app, routes.adminBan, async (req) => {
    await banMember(ctx, acting(req), req.body.userId, req.body.reason);
    return { ok: true as const };
  });

  serve(app, routes.adminUnban, async (req) => {
    await unbanMember(ctx, acting(req), req.body.userId);
    return { ok: true as const };
  });

  serve(app, routes.creatorBan, async (req) => {
    await banMember(ctx, asCreator(req), req.body.userId, req.body.reason);
    return { ok: true as const };
  });

  serve(app, routes.creatorUnban, async (req) => {
    await unbanMember(ctx, asCreator(req), req.body.userId);
    return { ok: true as const };
  });

  serve(app, routes.creatorUnbanMany, async (req) => {
    const banned = await db
      .select({ id: users.id })
      .from(users)
      .where(and(inArray(users.id, req.body.userIds), eq(users.isBanned, true)));
    await setBanned(
      ctx,
      { kind: 'creator' },
      banned.map((b) => b.id),
      { banned: false },
    );
    for (const { id } of banned) {
      await recordEvent(db, req, {
        type: eventTypes.userUnbanned,
        severity: 'medium',
        userId: id,
        actor: actorOf(req),
        details: { bulk: true },
      });
    }
    return { unbanned: banned.length };
  });

  serve(app, routes.setRole, async (req) => {
    await setStanding(ctx, asCreator(req), req.body.userId, { role: req.body.role });
    return { ok: true as const };
  });

  serve(app, routes.setCreatorAccount, async (req) => {
    await setStanding(ctx, asCreator(req), req.body.userId, { isCreatorAccount: req.body.isCreatorAccount });
    return { ok: true as const };
  });
}
