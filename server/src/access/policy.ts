/**
 * Who may call a route: the one place that decides it (docs/security.md §7). Every route the server
 * registers must have a rule here, or the server refuses to start. Who may then act on whom is
 * rules.ts's.
 */
import { errorCodes, errorTexts, routeKey, routes, SOCKET_PATH, type Access } from '@enclave/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import { HttpError } from '../http/errors';
import { inPlace, type WorkGate } from '../http/overload';
import { bannedOwner, resolveSession, SESSION_COOKIE, type AuthContext } from '../auth/sessions';
import type { BlockList } from '../security/blocks';
import { presentedMasterKey, whichMasterKey, type MasterKeyHashes } from '../creator/master-key';
import { eventTypes, recentFailures, recordEvent } from '../security/events';

/**
 * Who may call what: every API route's rule from the route table, plus the routes that are not
 * API calls. The socket authenticates inside its own protocol (auth_failed), from the same
 * session cookie; the built web app is public.
 */
export const routeAccess: Readonly<Record<string, Access>> = {
  ...Object.fromEntries(Object.values(routes).map((r) => [routeKey(r), r.access])),
  [`GET ${SOCKET_PATH}`]: 'public',
  'GET /*': 'public',
  'HEAD /*': 'public',
};

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The request carries the valid master key. */
    isCreator: boolean;
  }
}

/** The signed-in member of a route whose policy requires one. */
export function requireAuth(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new HttpError(401, errorCodes.unauthorized, errorTexts.notSignedIn);
  return req.auth;
}

/**
 * `masterKeys`: the hashes of the keys this instance accepts (creator/master-key.ts). `masterKeyLimit`: wrong master keys per address within its window before the server stops
 * checking them (config `rateLimits.masterKey`). `blocks`: the addresses refused before anything
 * else (security/blocks.ts). `gate`: the session is read in a place of the overload gate of its
 * own, held for that query only (the request's body has not arrived yet: http/overload.ts).
 */
export function registerAccessControl(
  app: FastifyInstance,
  db: Db,
  masterKeys: MasterKeyHashes,
  masterKeyLimit: { max: number; windowMs: number },
  blocks: BlockList,
  gate: WorkGate,
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('isCreator', false);

  /**
   * Checks `Authorization: SuperAdmin <key>`; a wrong key is a security event and counts against
   * the address. The previous key of a rotation is accepted, and recorded, so that the operator
   * sees whether it is still in use before retiring it.
   */
  const checkCreator = async (req: FastifyRequest): Promise<void> => {
    if (req.isCreator) return;
    const header = req.headers.authorization;
    const key = presentedMasterKey(header);
    if (!key) {
      throw new HttpError(401, errorCodes.unauthorized, header ? 'Malformed master key' : 'Master key required');
    }
    const match = whichMasterKey(key, masterKeys);
    if (!match) {
      // The right key always works: wrong ones from an address cannot lock the creator out.
      if ((await recentFailures(db, req.ip, eventTypes.masterKeyFailed, masterKeyLimit.windowMs)) >= masterKeyLimit.max) {
        throw new HttpError(429, errorCodes.rateLimited, errorTexts.tooManyAttempts);
      }
      await recordEvent(db, req, { type: eventTypes.masterKeyFailed, severity: 'high', details: { route: req.routeOptions.url } });
      throw new HttpError(403, errorCodes.forbidden, 'Invalid creator credentials');
    }
    if (match === 'previous')
      await recordEvent(db, req, { type: eventTypes.masterKeyPreviousUsed, severity: 'low', details: { route: req.routeOptions.url } });
    req.isCreator = true;
  };

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!routeAccess[`${method} ${route.url}`]) {
        throw new Error(`route ${method} ${route.url} has no entry in the authorization table`);
      }
    }
  });

  // Blocked addresses first: every route, the 404s, the web app and the socket upgrade (GET /ws)
  // are refused, unless the request carries the valid master key, so that the creator can never
  // lock themselves out (docs/security.md §10). Wrong keys count against the address as anywhere.
  app.addHook('onRequest', async (req) => {
    if (!blocks.isBlocked(req.ip)) return;
    const channel = req.url.startsWith(SOCKET_PATH) ? 'socket' : 'http';
    if (presentedMasterKey(req.headers.authorization)) {
      try {
        await checkCreator(req);
        await recordEvent(db, req, { type: eventTypes.blockedIpCreator, severity: 'low', details: { channel } });
        return;
      } catch {
        // A wrong key from a blocked address is refused as the block, having counted as a wrong key.
      }
    }
    blocks.countHit(req.ip);
    await recordEvent(db, req, { type: eventTypes.blockedIpHit, severity: 'medium', details: { channel } });
    throw new HttpError(403, errorCodes.ipBlocked, errorTexts.ipBlocked);
  });

  // Before the body is even parsed: who is calling, and may they call this route at all?
  app.addHook('onRequest', async (req) => {
    const url = req.routeOptions.url;
    // No such route (the 404 handler answers) or a public one: no session to look up.
    if (url === undefined) return;
    const access = routeAccess[`${req.method} ${url}`];
    if (access === 'public') return;
    if (access === 'creator' || (access === 'admin' && req.headers.authorization)) return checkCreator(req);
    const token = req.cookies[SESSION_COOKIE];
    req.auth = token
      ? await inPlace(gate, req, async () => {
          const auth = await resolveSession(db, token);
          // A banned member still holding the cookie of a session their ban revoked.
          const banned = auth ? null : await bannedOwner(db, token);
          if (banned)
            await recordEvent(db, req, { type: eventTypes.bannedLogin, severity: 'medium', userId: banned, details: { route: url } });
          return auth;
        })
      : null;
    const auth = requireAuth(req);
    if (access === 'admin' && auth.user.role !== 'admin') {
      throw new HttpError(403, errorCodes.forbidden, 'Administrator access required');
    }
  });
}
