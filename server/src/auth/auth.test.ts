import { createAccount, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { errorTexts, routes } from '@enclave/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mintKeys } from '../keys/service';
import { defaultRateLimits } from '../config';
import { backends, makeDatabase, redisEnabled, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { twoInstances } from '../testing/two-instances';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { securityEvents, users } from '../db/schema';
import { eventsOf } from '../security/events';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client';

describe.each(backends)('sign-up and sign-in (%s)', (backend) => {
  // Room for the 50 racers below from one address (a quarter of the places, http/overload.ts):
  // they must all reach the key, not be turned away as a busy server would.
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits, maxInFlight: 256 } });

  it('validates a fresh key, then refuses it once redeemed', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1, salePrice: 25 });
    const anon = new TestMember.Anonymous(suite.server.url);
    const before = await anon.call(routes.validateKey, { body: { inviteKey: key! } });
    expect(before).toMatchObject({ valid: true, reason: errorTexts.keyValid, keyInfo: { salePrice: 25 } });

    await TestMember.join(suite.server.url, key!, 'alice');
    const after = await anon.call(routes.validateKey, { body: { inviteKey: key! } });
    expect(after).toMatchObject({ valid: false, reason: errorTexts.keyUsed, keyInfo: null });
  });

  it('refuses unknown and malformed keys with their reason', async () => {
    const anon = new TestMember.Anonymous(suite.server.url);
    const unknown = await anon.call(routes.validateKey, { body: { inviteKey: 'a'.repeat(64) } });
    expect(unknown).toMatchObject({ valid: false, reason: errorTexts.keyUnknown });
    const upper = await anon.call(routes.validateKey, { body: { inviteKey: 'A'.repeat(64) } });
    expect(upper).toMatchObject({ valid: false, reason: errorTexts.keyMalformed });
    await expect(TestMember.join(suite.server.url, 'b'.repeat(64), 'nobody')).rejects.toThrow(/409.*not valid/);
  });

  it('creates exactly one member from 50 concurrent registrations with one key', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    // One set of real keys for every racer (the server does not compare them), so that the 50
    // requests leave together instead of after 50 key generations.
    const account = await createAccount(generateAccessToken());
    const anon = new TestMember.Anonymous(suite.server.url);
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        anon.attempt(routes.register, {
          body: {
            inviteKey: key!,
            username: `racer${i}`,
            loginKey: await deriveLoginKey(generateAccessToken()),
            ...account.publicIdentity,
            encryptedPrivateKey: account.encryptedPrivateKey,
          },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const lost = results.filter((r) => r.status !== 201);
    expect(lost).toHaveLength(49);
    for (const r of lost) expect(r.error).toEqual({ code: 'key_invalid', error: errorTexts.keyUsed });
    const racers = (await suite.database.db.select({ username: users.username }).from(users)).filter((u) => u.username.startsWith('racer'));
    expect(racers).toHaveLength(1);
  });

  it('refuses a taken username (any case) and the reserved name, leaving the key unused', async () => {
    const [k1, k2] = await mintKeys(suite.database.db, { count: 2 });
    await TestMember.join(suite.server.url, k1!, 'Bob');
    await expect(TestMember.join(suite.server.url, k2!, 'bob')).rejects.toThrow(/409.*Username may already exist/);
    await expect(TestMember.join(suite.server.url, k2!, 'Admin')).rejects.toThrow(/409.*reserved/);
    const check = await new TestMember.Anonymous(suite.server.url).call(routes.validateKey, { body: { inviteKey: k2! } });
    expect(check).toMatchObject({ valid: true });
  });

  it('signs in with the derived login key, restores with the cookie, and signs out', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const carol = await TestMember.join(suite.server.url, key!, 'carol');
    const me = await carol.attempt(routes.me, {});
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { username: 'carol', role: 'member', isCreatorAccount: false } });
    expect(me.headers.get('set-cookie')).toBeNull();

    const out = await carol.attempt(routes.logout, {});
    expect(out.status).toBe(200);
    expect((await carol.attempt(routes.me, {})).status).toBe(401);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const dave = await TestMember.join(suite.server.url, key!, 'dave');
    const res = await dave.login();
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(res.headers.get('set-cookie')).toMatch(/SameSite=Strict/);
  });

  it('refuses a wrong login key with the specification text', async () => {
    const res = await new TestMember.Anonymous(suite.server.url).attempt(routes.login, { body: { loginKey: 'c'.repeat(64) } });
    expect(res.status).toBe(401);
    expect(res.error).toEqual({ error: errorTexts.loginFailed, code: 'login_failed' });
  });
});

// A server and database for each test: the counters of one limit, and the events of its
// refusals, are never left over from another test.
describe('rate limits per address (the defaults)', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  beforeEach(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    server = await startServer(database);
  });
  afterEach(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it('allows 30 key validations a minute, then answers 429', async () => {
    const anon = new TestMember.Anonymous(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await anon.attempt(routes.validateKey, { body: { inviteKey: 'e'.repeat(64) } })).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    // The refusal is a security event the console counts (recorded without holding up the answer).
    await expect.poll(() => rateLimitedRoutes()).toEqual(['/api/keys/validate']);
  });

  it('allows five login attempts a minute, then answers 429', async () => {
    const anon = new TestMember.Anonymous(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await anon.attempt(routes.login, { body: { loginKey: 'd'.repeat(64) } })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // The refusal is a security event the console counts (recorded without holding up the answer).
    await expect.poll(() => rateLimitedRoutes()).toEqual(['/api/auth/login']);
  });

  it("counts wrong tokens only, per browser (5) and per address (20): another member's right token always works", async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const bob = await TestMember.join(server.url, key!, 'bob');
    const anon = new TestMember.Anonymous(server.url);
    const browser = (n: number) => n.toString(16).padStart(32, '0');
    const wrong = (browserId: string) => anon.attempt(routes.login, { body: { loginKey: 'd'.repeat(64), browserId } });
    const right = async (browserId?: string) =>
      (await bob.attempt(routes.login, { body: { loginKey: await deriveLoginKey(bob.token), ...(browserId ? { browserId } : {}) } }))
        .status;

    // One browser: five failures, then refused; the address has counted six.
    const first: number[] = [];
    for (let i = 0; i < 6; i++) first.push((await wrong(browser(1))).status);
    expect(first).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await right(browser(2))).toBe(200);
    // Even from the refused browser itself, and from a client without an id.
    expect(await right(browser(1))).toBe(200);
    expect(await right()).toBe(200);

    // Fresh browsers behind the same address: the address's 20 failures, then refused whatever the id.
    const fresh: number[] = [];
    for (let i = 0; i < 15; i++) fresh.push((await wrong(browser(100 + i))).status);
    expect(fresh).toEqual([...Array<number>(14).fill(401), 429]);
    const refused = await wrong(browser(999));
    expect(refused.status).toBe(429);
    expect(refused.error).toEqual({ error: errorTexts.tooManyAttempts, code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await right(browser(1000))).toBe(200);

    // Counted as events, and no browser id in any row.
    const rows = await database.db.select().from(securityEvents);
    const total = (type: string) => rows.filter((r) => r.type === type).reduce((n, r) => n + eventsOf(r.details), 0);
    expect(total('login_failed')).toBe(19);
    expect(total('rate_limit')).toBe(3);
    expect(JSON.stringify(rows)).not.toMatch(new RegExp(`${browser(1)}|${browser(100)}|${browser(999)}`));
  });

  it('caps every sign-in request per address, right tokens too, before the token is looked up', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const bob = await TestMember.join(server.url, key!, 'bob');
    const body = { loginKey: await deriveLoginKey(bob.token) };
    const { max } = defaultRateLimits.loginRequests;
    const statuses: number[] = [];
    // The join signed in once already.
    for (let i = 1; i < max; i++) statuses.push((await bob.attempt(routes.login, { body })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await bob.attempt(routes.login, { body });
    expect(refused.status).toBe(429);
    expect(refused.error).toEqual({ error: errorTexts.tooManyAttempts, code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused before the lookup: a wrong token gets the same answer, and counts as no failure.
    expect((await bob.attempt(routes.login, { body: { loginKey: 'd'.repeat(64) } })).status).toBe(429);
    await expect.poll(() => rateLimitedRoutes()).toEqual(['/api/auth/login']);
    expect(await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'login_failed'))).toEqual([]);
  });

  /** The routes of the rate-limit events recorded on this test's server. */
  const rateLimitedRoutes = async () =>
    (await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'rate_limit'))).map((e) => e.details.route).sort();
});

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('sign-in failures counted in Redis across two instances', () => {
  const servers = twoInstances();

  it("one browser's failures on both instances add up; the right token is served by either", async () => {
    const { a, b, database } = servers;
    const [key] = await mintKeys(database.db, { count: 1 });
    const carol = await TestMember.join(a.url, key!, 'carol');
    const browserId = 'ab'.repeat(16);
    const wrong = (s: TestServer) =>
      new TestMember.Anonymous(s.url).attempt(routes.login, { body: { loginKey: 'd'.repeat(64), browserId } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await wrong(i % 2 ? b : a)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await wrong(b)).status).toBe(429);
    const right = await carol.attempt(routes.login, { body: { loginKey: await deriveLoginKey(carol.token), browserId } });
    expect(right.status).toBe(200);
  });
});
