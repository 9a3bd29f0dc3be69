/**
 * Security monitoring routes (docs/security.md §10): the creator's live events, metrics and
 * blocks; a member's own security view and sessions; client breach reports; the decoys.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { errorCodes, routes, severityScores, type RouteDefinition, type RouteResponse, type Severity } from '@enclave/protocol';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { requireAuth } from '../access/policy';
import { listSessions, resolveSession, revokeSessionOfUser, revokeSessionsOfUser, SESSION_COOKIE } from '../auth/sessions';
import { HttpError } from '../http/errors';
import { rateLimit, serve, type RouteRequest } from '../http/routes';
import { applyBreachPolicy, WIPED_CANNOT_UNLOCK } from './breach';
import { activeBlocks, blockIp, normalizeIp, unblockable, unblockIp } from './blocks';
import { eventTypes, recordEvent } from './events';
import { RETENTION_SWEEP_MS, startEventRetention } from './retention';
import { liveEvents, mySecurity, securityMetrics } from './metrics';
import { sessionEnded, usersChanged } from '../realtime/publish';

const ENDED_ELSEWHERE = 'This session was ended from another of your sessions.';

/** A decoy takes any body, but not a large one: it has nothing to do with it. */
const DECOY_BODY_LIMIT = 4 * 1024;
/** The path kept in a decoy hit's details. */
const DECOY_PATH_MAX = 200;
const DESCRIPTION_MAX = 100;

export async function securityRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config, gateway, blocks } = ctx;

  // Every instance deletes the events past their retention (events.ts); closing waits for a run in progress.
  const stopRetention = startEventRetention(db, { days: config.securityEventRetentionDays, everyMs: RETENTION_SWEEP_MS, log: app.log });
  app.addHook('onClose', stopRetention);

  /** The signed-in member behind the request's cookie, on a public route (no session required). */
  const sessionOf = async (req: FastifyRequest) => {
    const token = req.cookies[SESSION_COOKIE];
    return token ? resolveSession(db, token) : null;
  };

  serve(app, routes.liveEvents, async () => ({ events: await liveEvents(db) }));

  serve(app, routes.securityMetrics, async (req) =>
    securityMetrics(db, { breachPolicy: config.breachPolicy, https: req.protocol === 'https' }),
  );

  serve(app, routes.blockedIps, async () => {
    // This instance's refused hits not yet written; other instances add theirs within seconds.
    await blocks.flushHits();
    return { blocked: await activeBlocks(db) };
  });

  const ipOf = (ip: string) => {
    const normalized = normalizeIp(ip);
    if (!normalized) throw new HttpError(400, errorCodes.invalidRequest, 'ip: must be an IP address');
    return normalized;
  };
  /** After a block or unblock committed: this instance at once, the others through the bus (and their periodic re-read). */
  const blocksChanged = async () => {
    await blocks.reload();
    await gateway.publishCommitted({ kind: 'blocks_changed' });
  };

  serve(app, routes.blockIp, async (req) => {
    const { reason, expiresInMinutes } = req.body;
    const ip = ipOf(req.body.ip);
    const own = [req.socket.localAddress, ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))];
    const refused = unblockable(ip, own);
    if (refused) throw new HttpError(400, errorCodes.invalidRequest, `ip: ${refused}`);
    const expiresAt = expiresInMinutes === undefined ? null : new Date(Date.now() + expiresInMinutes * 60_000);
    const block = await blockIp(db, ip, reason, expiresAt);
    await blocksChanged();
    await recordEvent(db, req, {
      type: eventTypes.ipBlocked,
      severity: 'medium',
      actor: 'creator',
      details: { ip, reason, expiresAt: block.expiresAt },
    });
    return { block };
  });

  serve(app, routes.unblockIp, async (req) => {
    const ip = ipOf(req.body.ip);
    if (!(await unblockIp(db, ip))) throw new HttpError(404, errorCodes.notFound, 'This address is not blocked');
    await blocksChanged();
    await recordEvent(db, req, { type: eventTypes.ipUnblocked, severity: 'low', actor: 'creator', details: { ip } });
    return { ok: true as const };
  });

  serve(app, routes.unlockUser, async (req) => {
    const { userId } = req.body;
    const rows = await db
      .update(users)
      .set({ isLocked: false })
      .where(and(eq(users.id, userId), eq(users.isCompromised, false)))
      .returning({ id: users.id });
    if (!rows.length) {
      const [member] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
      if (!member) throw new HttpError(404, errorCodes.notFound, 'No such member');
      // The wipe deleted the keys only the member's token could open: unlocking would let them sign
      // in to an account that can read nothing, so the answer says so instead (breach.ts).
      throw new HttpError(409, errorCodes.wiped, WIPED_CANNOT_UNLOCK);
    }
    await recordEvent(db, req, { type: eventTypes.memberUnlocked, severity: 'medium', userId, actor: 'creator' });
    await usersChanged(gateway, [userId]);
    return { ok: true as const };
  });

  serve(app, routes.mySecurity, async (req) => mySecurity(db, requireAuth(req).user.id, config.breachPolicy));

  serve(app, routes.sessions, async (req) => {
    const auth = requireAuth(req);
    return { sessions: await listSessions(db, auth.user.id, auth.sessionId) };
  });

  serve(app, routes.revokeOtherSessions, async (req) => {
    const auth = requireAuth(req);
    const revoked = await revokeSessionsOfUser(db, auth.user.id, auth.sessionId);
    if (revoked.length) {
      await sessionEnded(gateway, { sessionIds: revoked }, 'revoked', ENDED_ELSEWHERE);
    }
    await recordEvent(db, req, {
      type: eventTypes.sessionsRevoked,
      severity: 'low',
      userId: auth.user.id,
      actor: auth.user.id,
      details: { scope: 'others', revoked: revoked.length },
    });
    return { revoked: revoked.length };
  });

  serve(app, routes.revokeSession, async (req, reply) => {
    const auth = requireAuth(req);
    const revoked = await revokeSessionOfUser(db, auth.user.id, req.params.id);
    if (!revoked) throw new HttpError(404, errorCodes.notFound, 'No such session');
    await sessionEnded(gateway, { sessionIds: [revoked] }, 'revoked', ENDED_ELSEWHERE);
    await recordEvent(db, req, {
      type: eventTypes.sessionsRevoked,
      severity: 'low',
      userId: auth.user.id,
      actor: auth.user.id,
      details: { scope: 'one', revoked: 1 },
    });
    // Ending its own session is signing out: this browser's cookie names nothing now.
    if (revoked === auth.sessionId) reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { revoked: 1 };
  });

  serve(app, routes.revokeAllSessions, async (req, reply) => {
    const auth = requireAuth(req);
    const revoked = await revokeSessionsOfUser(db, auth.user.id);
    await sessionEnded(gateway, { userIds: [auth.user.id] }, 'revoked', 'All your sessions have been ended.');
    await recordEvent(db, req, {
      type: eventTypes.sessionsRevoked,
      severity: 'low',
      userId: auth.user.id,
      actor: auth.user.id,
      details: { scope: 'all', revoked: revoked.length },
    });
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { revoked: revoked.length };
  });

  serve(
    app,
    routes.breachReport,
    async (req) => {
      const { reason, threatVectors, securityMetrics: reported, addresses } = req.body;
      // The reporter is the request's own session, never anything the body says.
      const reporter = await sessionOf(req);
      const severity = threatVectors.reduce<Severity>(
        (worst, v) => (severityScores[v.severity] > severityScores[worst] ? v.severity : worst),
        'low',
      );
      // The event is written in the transaction of the lock or wipe it records (breach.ts).
      const action = await applyBreachPolicy(ctx, reporter?.user.id ?? null, config.breachPolicy, (tx, action) =>
        recordEvent(
          db,
          req,
          {
            type: eventTypes.breachReport,
            severity,
            userId: reporter?.user.id ?? null,
            details: {
              reason,
              reporter: reporter ? 'member' : 'anonymous',
              action,
              threatLevel: reported.threatLevel,
              detections: reported.detections,
              vectors: threatVectors.map((v) => ({
                type: v.type,
                severity: v.severity,
                description: v.description.slice(0, DESCRIPTION_MAX),
                ...(v.source ? { source: v.source } : {}),
              })),
            },
            ...(addresses ? { reported: addresses } : {}),
          },
          tx,
        ),
      );
      return { policy: config.breachPolicy, action };
    },
    { rateLimit: rateLimit(config.rateLimits.breach) },
  );

  /** A decoy: the hit is a high event (with the member, when a session comes with it), the answer made up. */
  const decoy = <R extends RouteDefinition>(route: R, answer: () => RouteResponse<R>) =>
    serve(
      app,
      route,
      async (req: RouteRequest<R>) => {
        const fastifyReq = req as unknown as FastifyRequest;
        const member = await sessionOf(fastifyReq);
        const path = fastifyReq.url.split('?')[0]!.slice(0, DECOY_PATH_MAX);
        await recordEvent(db, fastifyReq, {
          type: eventTypes.decoyHit,
          severity: 'high',
          userId: member?.user.id ?? null,
          details: { method: route.method, path },
        });
        return answer();
      },
      // Per address (an IPv6 address's /64), each route its own count: a refusal is one coalesced rate_limit event.
      { bodyLimit: DECOY_BODY_LIMIT, rateLimit: rateLimit(config.rateLimits.decoy) },
    );
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  decoy(routes.decoyAuth, () => ({ success: true as const, token: hex(32), user: { id: randomUUID(), username: `user_${hex(3)}` } }));
  decoy(routes.decoyValidate, () => ({ valid: true as const, reason: 'Key verified' }));
  decoy(routes.decoyDecrypt, () => ({ decrypted: randomBytes(randomInt(16, 65)).toString('base64') }));
  decoy(routes.decoyAnyGet, () => ({ status: 'ok' as const, id: randomUUID() }));
  decoy(routes.decoyAnyPost, () => ({ status: 'ok' as const, id: randomUUID() }));
}
