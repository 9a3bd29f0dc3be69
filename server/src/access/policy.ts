/**
 * Who may call what: the one place that decides it (DESIGN.md section 5). Every route the server
 * registers must have a row here, or the server refuses to start.
 */
import { errorCodes, errorTexts } from '@enclave/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import { HttpError } from '../http/errors';
import { resolveSession, SESSION_COOKIE, type AuthContext } from '../auth/sessions';
import { matchesMasterKey, presentedMasterKey } from '../creator/master-key';
import { eventTypes, recentFailures, recordEvent } from '../security/events';

/**
 * public: anyone; member: any signed-in, non-banned member; admin: members with the admin role,
 * or the creator; creator: the master key only.
 */
export type Access = 'public' | 'member' | 'admin' | 'creator';

export const routeAccess: Readonly<Record<string, Access>> = {
  'HEAD /api/health': 'public',
  'POST /api/keys/validate': 'public',
  'POST /api/auth/register': 'public',
  'POST /api/auth/login': 'public',
  'POST /api/auth/logout': 'member',
  'GET /api/auth/me': 'member',
  'GET /api/users/all': 'member',
  'GET /api/conversations/members': 'member',
  'POST /api/epochs': 'member',
  'GET /api/epochs/shares': 'member',
  'GET /api/messages/recent': 'member',
  'POST /api/messages/send': 'member',
  'GET /api/admin/key-stats': 'admin',
  'GET /api/admin/unused-keys': 'admin',
  'POST /api/admin/generate-keys': 'admin',
  'POST /api/admin/revoke-keys': 'admin',
  'GET /api/admin/export-keys': 'admin',
  'POST /api/admin/ban-user': 'admin',
  'POST /api/admin/unban-user': 'admin',
  'GET /api/super-admin/overview': 'creator',
  'GET /api/super-admin/monitor/users': 'creator',
  'POST /api/super-admin/ban-user': 'creator',
  'POST /api/super-admin/unban-user': 'creator',
  'POST /api/super-admin/unban-users': 'creator',
  'POST /api/super-admin/set-role': 'creator',
  'POST /api/super-admin/set-super-admin': 'creator',
  'POST /api/super-admin/emergency-shutdown': 'creator',
  'POST /api/super-admin/lift-emergency': 'creator',
  'GET /api/admin/access-keys': 'creator',
  'GET /api/super-admin/security/heatmap': 'creator',
  'GET /api/super-admin/security/risk': 'creator',
  'GET /api/super-admin/security/compliance': 'creator',
  // The socket authenticates inside its own protocol (auth_failed), from the same session cookie.
  'GET /ws': 'public',
  // The built web app.
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
 * `masterKeyLimit`: wrong master keys per address within its window before the server stops
 * checking them (config `rateLimits.masterKey`).
 */
export function registerAccessControl(
  app: FastifyInstance,
  db: Db,
  masterKeyHash: string,
  masterKeyLimit: { max: number; windowMs: number },
): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('isCreator', false);

  /** Checks `Authorization: SuperAdmin <key>`; a wrong key is a security event and counts against the address. */
  const checkCreator = async (req: FastifyRequest): Promise<void> => {
    const header = req.headers.authorization;
    const key = presentedMasterKey(header);
    if (!key) {
      throw new HttpError(401, errorCodes.unauthorized, header ? 'Malformed master key' : 'Master key required');
    }
    if (!matchesMasterKey(key, masterKeyHash)) {
      // The right key always works: wrong ones from an address cannot lock the creator out.
      if ((await recentFailures(db, req.ip, eventTypes.masterKeyFailed, masterKeyLimit.windowMs)) >= masterKeyLimit.max) {
        throw new HttpError(429, errorCodes.rateLimited, errorTexts.tooManyAttempts);
      }
      await recordEvent(db, req, { type: eventTypes.masterKeyFailed, severity: 'high', details: { route: req.routeOptions.url } });
      throw new HttpError(403, errorCodes.forbidden, 'Invalid creator credentials');
    }
    req.isCreator = true;
  };

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!routeAccess[`${method} ${route.url}`]) {
        throw new Error(`route ${method} ${route.url} has no entry in the authorization table`);
      }
    }
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
    req.auth = token ? await resolveSession(db, token) : null;
    const auth = requireAuth(req);
    if (access === 'admin' && auth.user.role !== 'admin') {
      throw new HttpError(403, errorCodes.forbidden, 'Administrator access required');
    }
  });
}
