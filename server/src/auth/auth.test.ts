import { createAccount, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { errorTexts, routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKeys } from '../keys/service';
import { backends, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { securityEvents, users } from '../db/schema';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/client';

describe.each(backends)('sign-up and sign-in (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    server = await startServer(database, { config: { rateLimits: relaxedRateLimits } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it('validates a fresh key, then refuses it once redeemed', async () => {
    const [key] = await mintKeys(database.db, { count: 1, salePrice: 25 });
    const anon = new TestMemberless(server.url);
    const before = await anon.post('/api/keys/validate', { inviteKey: key });
    expect(before.body).toMatchObject({ valid: true, reason: errorTexts.keyValid, keyInfo: { salePrice: 25 } });

    await TestMember.join(server.url, key!, 'alice');
    const after = await anon.post('/api/keys/validate', { inviteKey: key });
    expect(after.body).toMatchObject({ valid: false, reason: errorTexts.keyUsed, keyInfo: null });
  });

  it('refuses unknown and malformed keys with their reason', async () => {
    const anon = new TestMemberless(server.url);
    const unknown = await anon.post('/api/keys/validate', { inviteKey: 'a'.repeat(64) });
    expect(unknown.body).toMatchObject({ valid: false, reason: errorTexts.keyUnknown });
    const upper = await anon.post('/api/keys/validate', { inviteKey: 'A'.repeat(64) });
    expect(upper.body).toMatchObject({ valid: false, reason: errorTexts.keyMalformed });
    await expect(TestMember.join(server.url, 'b'.repeat(64), 'nobody')).rejects.toThrow(/409.*not valid/);
  });

  it('creates exactly one member from 50 concurrent registrations with one key', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    // One set of real keys for every racer (the server does not compare them), so that the 50
    // requests leave together instead of after 50 key generations.
    const account = await createAccount(generateAccessToken());
    const anon = new TestMember.Anonymous(server.url);
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
    const racers = (await database.db.select({ username: users.username }).from(users)).filter((u) =>
      u.username.startsWith('racer'),
    );
    expect(racers).toHaveLength(1);
  });

  it('refuses a taken username (any case) and the reserved name, leaving the key unused', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    await TestMember.join(server.url, k1!, 'Bob');
    await expect(TestMember.join(server.url, k2!, 'bob')).rejects.toThrow(/409.*Username may already exist/);
    await expect(TestMember.join(server.url, k2!, 'Admin')).rejects.toThrow(/409.*reserved/);
    const check = await new TestMemberless(server.url).post('/api/keys/validate', { inviteKey: k2 });
    expect(check.body).toMatchObject({ valid: true });
  });

  it('signs in with the derived login key, restores with the cookie, and signs out', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const carol = await TestMember.join(server.url, key!, 'carol');
    const me = await carol.request('GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { username: 'carol', role: 'member', isCreatorAccount: false } });
    expect(me.headers.get('set-cookie')).toBeNull();

    const out = await carol.request('POST', '/api/auth/logout');
    expect(out.status).toBe(200);
    expect((await carol.request('GET', '/api/auth/me')).status).toBe(401);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const dave = await TestMember.join(server.url, key!, 'dave');
    const res = await dave.login();
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/);
    expect(res.headers.get('set-cookie')).toMatch(/SameSite=Strict/);
  });

  it('refuses a wrong login key with the specification text', async () => {
    const res = await new TestMemberless(server.url).post('/api/auth/login', { loginKey: 'c'.repeat(64) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: errorTexts.loginFailed, code: 'login_failed' });
  });
});

describe('rate limits per address (the defaults)', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    server = await startServer(database);
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it('allows 30 key validations a minute, then answers 429', async () => {
    const anon = new TestMemberless(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await anon.post('/api/keys/validate', { inviteKey: 'e'.repeat(64) })).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it('allows five login attempts a minute, then answers 429', async () => {
    const anon = new TestMemberless(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await anon.post('/api/auth/login', { loginKey: 'd'.repeat(64) })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // Both refusals are security events the console counts.
    const events = await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'rate_limit'));
    expect(events.map((e) => e.details.route).sort()).toEqual(['/api/auth/login', '/api/keys/validate']);
  });
});

/** A caller with no account. */
class TestMemberless {
  constructor(private readonly url: string) {}
  async post(path: string, body: unknown) {
    const res = await fetch(this.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  }
}
