/**
 * Property tests of every route in the route table (packages/protocol/src/routes.ts, walked as a
 * table so a new route is covered the day it is added): valid inputs drawn from the route's zod
 * schemas and mutations of them (testing/fuzz.ts), sent as anonymous, member, admin and creator
 * against a real server.
 *
 * Properties: no answer is a 5xx; every request completes within REQUEST_TIMEOUT_MS; a success
 * carries the route's status and parses with its response schema; a refusal is a 4xx with a JSON
 * `error`; a caller below the route's access rule is refused with 401 or 403 whatever the input;
 * after the run the server still answers its health check and logged no error.
 *
 * FC_RUNS cases per property (2 in the integration suite; `npm run test:property` runs thousands),
 * seeded and replayable: see testing/property.ts.
 */
import { deriveLoginKey } from '@enclave/crypto';
import { errorResponseSchema, routes, type Access, type RouteDefinition } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings, users } from '../db/schema';
import { createKeys, mintKeys } from '../keys/service';
import { mutatedRequest, requestOf, validInput, type FuzzRequest } from '../testing/fuzz';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { announce, checkProperty, countStatus, property, propertyTimeout, resetTally, selected, summary } from '../testing/property';

const REQUEST_TIMEOUT_MS = 10_000;
type Role = 'anonymous' | 'member' | 'admin' | 'creator';
const roles: Role[] = ['anonymous', 'member', 'admin', 'creator'];

/** Who passes each access rule (docs/security.md §7): the master key opens admin routes too. */
const allowed: Record<Access, Role[]> = {
  public: roles,
  member: ['member', 'admin'],
  admin: ['admin', 'creator'],
  creator: ['creator'],
};

type Answer = { status: number; text: string; contentType: string };

/** One request, raw: the body as bytes so that no content type is added that the case did not set. */
async function send(baseUrl: string, req: FuzzRequest, headers: Record<string, string>): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(baseUrl + req.url, {
      method: req.method,
      headers: { ...req.headers, ...headers },
      body: req.body === undefined ? undefined : new TextEncoder().encode(req.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`${req.method} ${req.url.slice(0, 200)} (${req.mutation}) got no answer: ${(err as Error).message}`);
  }
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') ?? '' };
}

/** The properties every answer keeps, whatever was sent. */
function checkAnswer(route: RouteDefinition, role: Role, req: FuzzRequest, answer: Answer): void {
  const where = `${route.method} ${route.path} as ${role} (${req.mutation}) → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (!allowed[route.access].includes(role)) {
    // Refused before any route is chosen, so before any role is looked at: 414, a path parameter
    // past Fastify's maxParamLength; 431, a URL past Node's 16 KiB header limit.
    expect([401, 403, 414, 431], where).toContain(answer.status);
  }
  if (answer.status < 400) {
    expect(answer.status, where).toBe(route.status);
    const body = route.method === 'HEAD' ? undefined : route.contentType ? answer.text : JSON.parse(answer.text);
    const parsed = route.response.safeParse(body);
    expect(parsed.success, `${where}\n${parsed.error?.message}`).toBe(true);
  } else if (route.method !== 'HEAD') {
    expect(answer.contentType, where).toMatch(/^application\/json/);
    const body: unknown = JSON.parse(answer.text);
    // Every refusal is {error, code}, Node's own (431 for a header block over 16 KiB) included.
    const parsed = errorResponseSchema.safeParse(body);
    expect(parsed.success, where).toBe(true);
    expect(parsed.data?.error.length, where).toBeGreaterThan(0);
  }
}

/** Whether the parts of a request parse with the route's schemas, as the server reads them. */
function schemaAccepts(route: RouteDefinition, req: FuzzRequest): boolean {
  const query = Object.fromEntries(new URL(req.url, 'http://x').searchParams);
  const ok = (schema: RouteDefinition['body'], value: unknown) => !schema || schema.safeParse(value).success;
  return ok(route.body, req.body === undefined || !route.body ? undefined : JSON.parse(req.body)) && ok(route.query, query);
}

describe.each(backends)('every route of the table under generated input (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  /** The members behind the member and admin roles, and their current session cookies. */
  const sessions: Partial<Record<'member' | 'admin', { member: TestMember; cookie: string }>> = {};
  const hints: { ids: string[] } = { ids: [] };
  let schemaValid = 0;
  let drawnValid = 0;

  const login = async (member: TestMember): Promise<string> => {
    const res = await fetch(`${suite.server.url}${routes.login.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ loginKey: await deriveLoginKey(member.token) }),
    });
    expect(res.status).toBe(200);
    return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  };

  /**
   * Puts a role back as it was when a case undid it: a logout, a ban, a demotion or an emergency
   * shutdown drawn by an earlier case must not turn the member role into an anonymous one.
   */
  const heal = async (role: Role): Promise<Record<string, string>> => {
    if (role === 'anonymous') return {};
    if (role === 'creator') return creatorHeaders;
    const session = sessions[role]!;
    const me = await fetch(`${suite.server.url}${routes.me.path}`, { headers: { cookie: session.cookie } });
    const body = me.status === 200 ? ((await me.json()) as { user: { role: string } }) : null;
    if (body?.user.role !== (role === 'admin' ? 'admin' : 'member')) {
      await suite.database.db.delete(settings).where(eq(settings.key, 'emergency_since'));
      await suite.database.db
        .update(users)
        .set({ isBanned: false, bannedReason: null, bannedBy: null, role: role === 'admin' ? 'admin' : 'member' })
        .where(eq(users.id, session.member.id));
      session.cookie = await login(session.member);
    }
    return { cookie: session.cookie };
  };

  beforeAll(async () => {
    const keys = await mintKeys(suite.database.db, { count: 3 });
    const [alice, bob, carol] = await Promise.all(
      ['alice', 'bob', 'carol'].map((name, i) => TestMember.join(suite.server.url, keys[i]!, name)),
    );
    await suite.database.db.update(users).set({ role: 'admin' }).where(eq(users.id, bob!.id));
    sessions.member = { member: alice!, cookie: await login(alice!) };
    sessions.admin = { member: bob!, cookie: await login(bob!) };
    // Ids that exist, so generated bans, role changes and revocations sometimes hit something.
    const sale = await createKeys(suite.database.db, { count: 2, purchaseId: 'BATCH-1' });
    hints.ids.push(alice!.id, bob!.id, carol!.id, ...sale.map((k) => k.id));
    // Alice's devices: ending one is hers to do as the member role, and another's as the admin role.
    hints.ids.push(...(await alice!.call(routes.sessions, {})).sessions.map((s) => s.id));
    resetTally();
    announce(`routes on ${backend}`);
  });

  afterAll(async () => {
    console.log(summary(`routes on ${backend}`) + `; valid draws the schemas accept: ${schemaValid} of ${drawnValid}`);
  });

  for (const [name, route] of Object.entries(routes) as [string, RouteDefinition][]) {
    for (const role of roles) {
      const valid = `${name} as ${role}: valid input`;
      it.runIf(selected(valid))(
        valid,
        async () => {
          await checkProperty(
            valid,
            validInput(route, hints).map((input) => requestOf(route, input)),
            async (req) => {
              drawnValid += 1;
              if (schemaAccepts(route, req)) schemaValid += 1;
              const answer = await send(suite.server.url, req, await heal(role));
              countStatus(answer.status);
              checkAnswer(route, role, req, answer);
            },
          );
        },
        propertyTimeout,
      );
      const mutated = `${name} as ${role}: mutated input`;
      it.runIf(selected(mutated))(
        mutated,
        async () => {
          await checkProperty(mutated, mutatedRequest(route, hints), async (req) => {
            const answer = await send(suite.server.url, req, await heal(role));
            countStatus(answer.status);
            checkAnswer(route, role, req, answer);
          });
        },
        propertyTimeout,
      );
    }
  }

  it('still answers its health check, and logged no error and no 5xx', async () => {
    const health = await fetch(`${suite.server.url}${routes.health.path}`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(health.status).toBe(200);
    expect(suite.server.logs.filter((l) => l.includes('"level":50') || l.includes('"level":60'))).toEqual([]);
    expect(suite.server.logs.filter((l) => /"statusCode":5\d\d/.test(l))).toEqual([]);
  });

  it('drew valid inputs that the schemas accept, for most routes', () => {
    // Refinements and transforms are not inverted (testing/zod-arbitrary.ts), so not every draw
    // fits; most must, or the "valid" properties test nothing but refusals.
    if (property.only) return;
    expect(schemaValid / drawnValid).toBeGreaterThan(0.8);
  });
});

describe('the arbitraries themselves', () => {
  it('draw every route of the table without an unknown zod type', () => {
    for (const route of Object.values(routes) as RouteDefinition[]) {
      expect(() => fc.sample(mutatedRequest(route, { ids: [] }), { numRuns: 5, seed: property.seed })).not.toThrow();
    }
  });
});
