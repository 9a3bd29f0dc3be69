import {
  errorCodes,
  errorTexts,
  GENERAL_CONVERSATION,
  routes,
  type RegisterRequest,
  type SelfUser,
  type SessionResponse,
} from '@enclave/protocol';
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { pgErrorCode, UNIQUE_VIOLATION, type Db } from '../db/client';
import { accessKeys, users } from '../db/schema';
import { requireAuth } from '../access/policy';
import { HttpError } from '../http/errors';
import { rateLimit, serve, type RouteRequest } from '../http/routes';
import { findKey, redeemable, refusal } from '../keys/service';
import { limitedAddress } from '../security/blocks';
import { eventTypes, recordEvent } from '../security/events';
import { bumpMembership } from '../conversations/membership';
import { emergencyState, registrationOpen } from '../creator/emergency-state';
import { publicIdentityRefusal, shareKeyRefusal } from './public-keys';
import { createSession, revokeSession, sha256Hex, SESSION_COOKIE, SESSION_TTL_MS } from './sessions';
import type { WindowCounter } from '../http/rate-limit-store';
import { membershipChanged, sessionEnded, usersChanged } from '../realtime/publish';

const RESERVED_USERNAMES = new Set(['admin']);

type UserRow = typeof users.$inferSelect;

const selfUser = (u: Pick<UserRow, 'id' | 'username' | 'role' | 'isCreatorAccount' | 'createdAt'>): SelfUser => ({
  id: u.id,
  username: u.username,
  role: u.role,
  isCreatorAccount: u.isCreatorAccount,
  joinedAt: u.createdAt.toISOString(),
});

const sessionResponse = (u: UserRow): SessionResponse => ({
  user: selfUser(u),
  encryptionPublicKey: u.encryptionPublicKey,
  signingPublicKey: u.signingPublicKey,
  encryptedPrivateKey: u.encryptedPrivateKey,
  readReceipts: u.readReceipts,
});

/**
 * `failures`: where wrong tokens are counted (per address and per browser, docs/security.md §9);
 * keys under `failurePrefix`.
 */
export async function authRoutes(
  app: FastifyInstance,
  { ctx, failures, failurePrefix }: { ctx: AppContext; failures: WindowCounter; failurePrefix: string },
): Promise<void> {
  const { db, config } = ctx;

  /**
   * A wrong token: counted against the address (an IPv6 one per /64) and the browser (its id, or
   * the address again for a client without one); 401, or 429 once either is over its limit. A
   * 256-bit token cannot be guessed, so only failures count here and the right token is not held
   * back by them: members behind one address cannot lock each other out. (Only the request cap on
   * the route, far above what one address's members use, refuses right tokens too.)
   */
  const refuseWrongToken = async (
    req: RouteRequest<typeof routes.login>,
    reply: FastifyReply,
    browserId: string | undefined,
  ): Promise<never> => {
    const { login, loginPerAddress } = config.rateLimits;
    const address = limitedAddress(req.ip);
    const counted = await Promise.all([
      failures.increment(`${failurePrefix}address:${address}`, loginPerAddress.windowMs).then((c) => ({ ...c, max: loginPerAddress.max })),
      failures
        .increment(`${failurePrefix}${browserId ? `browser:${browserId}` : `anonymous:${address}`}`, login.windowMs)
        .then((c) => ({ ...c, max: login.max })),
    ]);
    const over = counted.filter((c) => c.current > c.max);
    if (over.length > 0) {
      reply.header('retry-after', String(Math.ceil(Math.max(...over.map((c) => c.ttl)) / 1000)));
      await recordEvent(db, req, { type: eventTypes.rateLimited, severity: 'medium', details: { route: routes.login.path } });
      throw new HttpError(429, errorCodes.rateLimited, errorTexts.tooManyAttempts);
    }
    await recordEvent(db, req, { type: eventTypes.loginFailed, severity: 'medium' });
    throw new HttpError(401, errorCodes.loginFailed, errorTexts.loginFailed);
  };
  serve(
    app,
    routes.register,
    async (req) => {
      const { body } = req;
      if ((await emergencyState(db)).active) {
        throw new HttpError(403, errorCodes.forbidden, errorTexts.registrationClosed);
      }
      if (RESERVED_USERNAMES.has(body.username.toLowerCase())) {
        throw new HttpError(409, errorCodes.usernameTaken, errorTexts.usernameReserved);
      }
      const { user, membershipVersion } = await register(db, body).catch(async (err: unknown) => {
        const refused = await findKey(db, body.inviteKey);
        if (refused?.isCanary) {
          await recordEvent(db, req, {
            type: eventTypes.canaryKey,
            severity: 'critical',
            details: { keyId: refused.id, action: 'register', username: body.username },
          });
        }
        throw err;
      });
      await usersChanged(ctx.gateway, [user.id]);
      await membershipChanged(ctx.gateway, 'all', GENERAL_CONVERSATION, membershipVersion);
      return { user: selfUser(user) };
    },
    { rateLimit: rateLimit(config.rateLimits.register) },
  );

  serve(
    app,
    routes.login,
    async (req, reply) => {
      const { loginKey, browserId } = req.body;
      const [user] = await db
        .select()
        .from(users)
        .where(eq(users.loginKeyHash, sha256Hex(loginKey)))
        .limit(1);
      if (!user) return refuseWrongToken(req, reply, browserId);
      if (user.isCompromised) {
        await recordEvent(db, req, { type: eventTypes.wipedLogin, severity: 'high', userId: user.id });
        throw new HttpError(403, errorCodes.wiped, errorTexts.wiped);
      }
      if (user.isBanned) {
        await recordEvent(db, req, { type: eventTypes.bannedLogin, severity: 'medium', userId: user.id });
        throw new HttpError(403, errorCodes.banned, errorTexts.banned);
      }
      if (user.isLocked) {
        await recordEvent(db, req, { type: eventTypes.lockedLogin, severity: 'medium', userId: user.id });
        throw new HttpError(403, errorCodes.locked, errorTexts.locked);
      }
      const session = await createSession(db, user.id, req.headers['user-agent']);
      if (session.revoked.length) {
        await sessionEnded(
          ctx.gateway,
          { sessionIds: session.revoked },
          'revoked',
          'This session was ended: you signed in on too many devices.',
        );
      }
      await db.update(users).set({ lastActivity: new Date() }).where(eq(users.id, user.id));
      setSessionCookie(req, reply, session.token);
      return sessionResponse(user);
    },
    // Every request, the right token's too, before the token is looked up: each success opens a
    // session. Answered with the specification's text alone; Retry-After carries the wait.
    {
      rateLimit: {
        ...rateLimit(config.rateLimits.loginRequests),
        errorResponseBuilder: () => new HttpError(429, errorCodes.rateLimited, errorTexts.tooManyAttempts),
      },
    },
  );

  serve(app, routes.logout, async (req, reply) => {
    const auth = requireAuth(req);
    await revokeSession(db, auth.sessionId);
    // Other tabs of this browser share the session: close their sockets too.
    await sessionEnded(ctx.gateway, { sessionId: auth.sessionId }, 'logout', 'You have been signed out.');
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { ok: true as const };
  });

  serve(app, routes.me, async (req) => {
    const auth = requireAuth(req);
    const [user] = await db.select().from(users).where(eq(users.id, auth.user.id)).limit(1);
    if (!user) throw new HttpError(401, errorCodes.unauthorized, errorTexts.notSignedIn);
    return sessionResponse(user);
  });

  // A member's share key is derived from their signing key, so it never changes: the first one
  // published stays, the same one again is a no-op, another is refused.
  serve(app, routes.publishShareKey, async (req) => {
    const me = requireAuth(req).user.id;
    const { body } = req;
    const held = async () => {
      const [row] = await db
        .select({
          encryptionPublicKey: users.encryptionPublicKey,
          signingPublicKey: users.signingPublicKey,
          sharePublicKey: users.sharePublicKey,
        })
        .from(users)
        .where(eq(users.id, me))
        .limit(1);
      if (!row) throw new HttpError(401, errorCodes.unauthorized, errorTexts.notSignedIn);
      // A key that is no key is bad input whatever the member holds. An account whose own keys no
      // client can use (registered before the check) gets none: no one could check its share key,
      // and the channel's key is not wrapped for it (docs/security.md §4).
      const refused = publicIdentityRefusal(row) ?? (await shareKeyRefusal(row.signingPublicKey, body));
      if (refused) throw new HttpError(400, errorCodes.invalidRequest, refused);
      if (row.sharePublicKey !== null && row.sharePublicKey !== body.sharePublicKey) {
        throw new HttpError(409, errorCodes.conflict, 'This member already has another share key, and it does not change');
      }
      return row;
    };
    const row = await held();
    if (row.sharePublicKey !== null) return { ok: true as const };
    const set = await db
      .update(users)
      .set({ sharePublicKey: body.sharePublicKey, shareKeySignature: body.signature })
      .where(and(eq(users.id, me), isNull(users.sharePublicKey)))
      .returning({ id: users.id });
    // Another tab published first: it must have been this very key.
    if (set.length === 0) await held();
    return { ok: true as const };
  });
}

export function setSessionCookie(req: Pick<FastifyRequest, 'protocol'>, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: req.protocol === 'https',
    maxAge: SESSION_TTL_MS / 1000,
  });
}

/**
 * Redeems the invite key and creates the member in one transaction: of any number of concurrent
 * registrations with one key, exactly one wins; the others see why the key cannot be used.
 */
async function register(db: Db, body: RegisterRequest): Promise<{ user: UserRow; membershipVersion: number }> {
  return db.transaction(async (tx) => {
    // The check before the transaction answers early; this one, under the emergency lock, is the
    // one that holds against a shutdown running at the same time (creator/emergency-state.ts).
    if (!(await registrationOpen(tx))) {
      throw new HttpError(403, errorCodes.forbidden, errorTexts.registrationClosed);
    }
    const now = new Date();
    const [key] = await tx.update(accessKeys).set({ usedAt: now }).where(redeemable(body.inviteKey, now)).returning({ id: accessKeys.id });
    if (!key) {
      const reason = refusal(await findKey(tx, body.inviteKey), now) ?? errorTexts.keyUnknown;
      throw new HttpError(409, errorCodes.keyInvalid, reason);
    }
    // After the invite key, so that a refused or canary key answers the same whatever keys come
    // with it; inside the transaction, so that a refusal here leaves the invite key unspent.
    const keyRefusal = publicIdentityRefusal(body) ?? (body.shareKey ? await shareKeyRefusal(body.signingPublicKey, body.shareKey) : null);
    if (keyRefusal) throw new HttpError(400, errorCodes.invalidRequest, keyRefusal);
    let user: UserRow | undefined;
    try {
      [user] = await tx
        .insert(users)
        .values({
          username: body.username,
          loginKeyHash: sha256Hex(body.loginKey),
          encryptionPublicKey: body.encryptionPublicKey,
          signingPublicKey: body.signingPublicKey,
          encryptedPrivateKey: body.encryptedPrivateKey,
          sharePublicKey: body.shareKey?.sharePublicKey ?? null,
          shareKeySignature: body.shareKey?.signature ?? null,
        })
        .returning();
    } catch (err) {
      if (pgErrorCode(err) === UNIQUE_VIOLATION) {
        throw new HttpError(409, errorCodes.usernameTaken, errorTexts.usernameTaken);
      }
      throw err;
    }
    if (!user) throw new Error('insert returned no row');
    await tx.update(accessKeys).set({ usedBy: user.id }).where(eq(accessKeys.id, key.id));
    // A new member joins the general channel: the key in force is wrapped for them from this generation on.
    const membershipVersion = await bumpMembership(tx, GENERAL_CONVERSATION);
    await tx.update(users).set({ joinedVersion: membershipVersion }).where(eq(users.id, user.id));
    return { user: { ...user, joinedVersion: membershipVersion }, membershipVersion };
  });
}
