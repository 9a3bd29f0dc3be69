/**
 * Walks the authorization table: every route × {anonymous, member, banned member, admin, creator}
 * succeeds exactly where the table allows it, and is refused with 401/403 everywhere else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { routes, type Access } from '@enclave/protocol';
import { routeAccess } from './policy';

type Role = 'anonymous' | 'member' | 'banned' | 'admin' | 'creator';
const allowed: Record<Access, Role[]> = {
  public: ['anonymous', 'member', 'banned', 'admin', 'creator'],
  member: ['member', 'admin'],
  admin: ['admin', 'creator'],
  creator: ['creator'],
};

describe('authorization table', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  const callers = {} as Record<Role, (method: string, path: string) => Promise<number>>;
  /** Signs the member and the admin in again (a route walked before ended their sessions). */
  let signInAgain: () => Promise<void>;

  beforeAll(async () => {
    const [member, admin, banned] = await suite.members('member', 'boss', 'banned');
    expect((await admin.attempt(routes.setRole, { body: { userId: admin.id, role: 'admin' } }, creatorHeaders)).status).toBe(200);
    // The banned member keeps the cookie of a session the ban revoked.
    expect((await admin.attempt(routes.adminBan, { body: { userId: banned.id, reason: 'test' } }, creatorHeaders)).status).toBe(200);
    signInAgain = async () => {
      for (const m of [member, admin]) expect((await m.login()).status).toBe(200);
    };
    const anonymous = new TestMember.Anonymous(suite.server.url);
    // Raw paths and empty bodies: the walk goes over the authorization table, not the route
    // schemas; the route's own validation answers 400 once access is granted.
    callers.anonymous = async (m, p) => (await anonymous.request(m, p, m === 'POST' ? {} : undefined)).status;
    callers.member = async (m, p) => (await member.request(m, p, m === 'POST' ? {} : undefined)).status;
    callers.banned = async (m, p) => (await banned.request(m, p, m === 'POST' ? {} : undefined)).status;
    callers.admin = async (m, p) => (await admin.request(m, p, m === 'POST' ? {} : undefined)).status;
    callers.creator = async (m, p) => (await anonymous.request(m, p, m === 'POST' ? {} : undefined, creatorHeaders)).status;
  });

  // The order of these `it`s is deliberate: they share the callers made in beforeAll, and ending
  // every session, logging out and the emergency shutdown end those callers' sessions, so those
  // three are walked last. Any one of them also passes alone (-t); it is only after those that the
  // others cannot.
  const last = ['POST /api/auth/sessions/revoke-all', 'POST /api/auth/logout', 'POST /api/super-admin/emergency-shutdown'];
  const apiRoutes = Object.entries(routeAccess)
    .filter(([route]) => route.includes(' /api/'))
    .sort(([a], [b]) => last.indexOf(a) - last.indexOf(b));
  for (const [route, access] of apiRoutes) {
    it(`${route} is ${access}`, async () => {
      const [method, path] = route.split(' ') as [string, string];
      if (last.includes(route)) await signInAgain();
      for (const role of Object.keys(callers) as Role[]) {
        const status = await callers[role](method, path);
        if (allowed[access].includes(role)) {
          // Let through: whatever the route answers, it is not an access refusal.
          expect([401, 403], `${role} on ${route}`).not.toContain(status);
        } else {
          expect([401, 403], `${role} on ${route} answered ${status}`).toContain(status);
        }
      }
    });
  }
});
