import { accessKeySchema, errorResponseSchema, errorTexts, keyStatsSchema, type PublicUser } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { accessKeys, securityEvents } from '../db/schema';
import { sharesFor } from '../conversations/routes';
import { mintKeys } from '../keys/service';
import { creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';

describe('key administration and moderation', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  let admin: TestMember;
  let anon: InstanceType<typeof TestMember.Anonymous>;

  const join = async (name: string) => TestMember.join(server.url, (await mintKeys(database.db, { count: 1 }))[0]!, name);
  const generate = async (body: unknown) => admin.request('POST', '/api/admin/generate-keys', body);
  const validate = async (key: string) => (await anon.request('POST', '/api/keys/validate', { inviteKey: key })).body as { valid: boolean; reason: string };

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    server = await startServer(database, { config: { rateLimits: relaxedRateLimits } });
    anon = new TestMember.Anonymous(server.url);
    admin = await join('staff');
    await anon.request('POST', '/api/super-admin/set-role', { userId: admin.id, role: 'admin' }, creatorHeaders);
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it('generates keys with purchase ID, price and expiry, and counts them in the stats', async () => {
    const before = keyStatsSchema.parse((await admin.request('GET', '/api/admin/key-stats')).body);
    const res = await generate({ quantity: 25, purchaseId: 'order-77', salePrice: 40, expirationDays: 30 });
    expect(res.status).toBe(201);
    const keys = (res.body as { keys: unknown[] }).keys.map((k) => accessKeySchema.parse(k));
    expect(keys).toHaveLength(25);
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k.key) && k.purchaseId === 'order-77' && k.salePrice === 40)).toBe(true);
    const days = (Date.parse(keys[0]!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    const after = keyStatsSchema.parse((await admin.request('GET', '/api/admin/key-stats')).body);
    expect(after.total - before.total).toBe(25);
    expect(after.available - before.available).toBe(25);

    // One is redeemed: used, revenue at its price, conversion rate recomputed.
    await TestMember.join(server.url, keys[0]!.key, 'buyer');
    const sold = keyStatsSchema.parse((await admin.request('GET', '/api/admin/key-stats')).body);
    expect(sold.used).toBe(after.used + 1);
    expect(sold.revenue).toBe(after.revenue + 40);
    expect(sold.conversionRate).toBe(Math.round((sold.used / sold.total) * 100));
  });

  it('counts $50 for a used key sold without a price', async () => {
    const before = keyStatsSchema.parse((await admin.request('GET', '/api/admin/key-stats')).body);
    await join('noprice');
    const after = keyStatsSchema.parse((await admin.request('GET', '/api/admin/key-stats')).body);
    expect(after.revenue - before.revenue).toBe(50);
  });

  it('lists at most 20 unused keys and exports a sale batch as CSV', async () => {
    const list = (await admin.request('GET', '/api/admin/unused-keys')).body as { keys: { status: string }[] };
    expect(list.keys.length).toBe(20);
    expect(list.keys.every((k) => k.status === 'active')).toBe(true);
    const csv = await admin.request('GET', '/api/admin/export-keys?purchaseId=order-77');
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('key,status,purchase_id,sale_price,generated_at,expires_at');
    expect(lines).toHaveLength(26);
    expect(lines.filter((l) => l.includes('"used"'))).toHaveLength(1);
  });

  it('refuses revoked, expired, used and canary keys at validation and registration, each with its reason', async () => {
    const [revoked, expired, used] = await mintKeys(database.db, { count: 3 });
    const idOf = async (key: string) => (await database.db.select().from(accessKeys).where(eq(accessKeys.key, key)))[0]!.id;
    expect((await admin.request('POST', '/api/admin/revoke-keys', { ids: [await idOf(revoked!)] })).body).toEqual({ revoked: 1 });
    await database.db.update(accessKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(accessKeys.key, expired!));
    await TestMember.join(server.url, used!, 'firstuse');
    const canaryRes = await generate({ quantity: 1, canary: true });
    const canary = (canaryRes.body as { keys: { key: string }[] }).keys[0]!.key;

    const cases: [string, string][] = [
      [revoked!, errorTexts.keyRevoked],
      [expired!, errorTexts.keyExpired],
      [used!, errorTexts.keyUsed],
      [canary, errorTexts.keyUnknown],
    ];
    for (const [key, reason] of cases) {
      expect(await validate(key)).toMatchObject({ valid: false, reason });
      await expect(TestMember.join(server.url, key, `try${key.slice(0, 6)}`)).rejects.toThrow(reason);
    }
    // The canary never shows among keys for sale, and both uses raised a critical event with the caller's IP.
    const forSale = (await admin.request('GET', '/api/admin/unused-keys')).body as { keys: { key: string }[] };
    expect(forSale.keys.map((k) => k.key)).not.toContain(canary);
    const alerts = await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'canary_key_used'));
    expect(alerts.map((a) => [a.severity, a.ip, a.details.action])).toEqual([
      ['critical', '127.0.0.1', 'validate'],
      ['critical', '127.0.0.1', 'register'],
    ]);
  });

  it('revokes in bulk on the server, leaving used keys alone', async () => {
    const res = await generate({ quantity: 5 });
    const ids = (res.body as { keys: { id: string }[] }).keys.map((k) => k.id);
    expect((await admin.request('POST', '/api/admin/revoke-keys', { ids })).body).toEqual({ revoked: 5 });
    expect((await admin.request('POST', '/api/admin/revoke-keys', { ids })).body).toEqual({ revoked: 0 });
  });

  it.each([0, 1001, -1, 1.5, 'ten', null])('refuses quantity %s with a clear 400', async (quantity) => {
    const res = await generate({ quantity });
    expect(res.status).toBe(400);
    expect(errorResponseSchema.parse(res.body).error).toMatch(/^quantity: Quantity must be/);
  });

  it.each([
    ['/api/admin/revoke-keys', { ids: [] }, /at least one key/],
    ['/api/admin/revoke-keys', { ids: ['nope'] }, /must be key ids/],
    ['/api/admin/ban-user', { userId: 'x' }, /must be a user id/],
    ['/api/admin/ban-user', { userId: crypto.randomUUID(), extra: 1 }, /Unrecognized key/],
    ['/api/admin/unban-user', {}, /userId/],
    ['/api/admin/generate-keys', { quantity: 5, expirationDays: -3 }, /expirationDays/],
    ['/api/admin/generate-keys', { quantity: 5, salePrice: 'free' }, /salePrice/],
  ])('refuses %s %j with a clear 400', async (path, body, message) => {
    const res = await admin.request('POST', path, body);
    expect(res.status).toBe(400);
    expect(errorResponseSchema.parse(res.body).error).toMatch(message);
  });

  it('answers 404 for banning a member who does not exist', async () => {
    const res = await admin.request('POST', '/api/admin/ban-user', { userId: crypto.randomUUID() });
    expect(res.status).toBe(404);
  });

  it('bans at once everywhere: socket told and closed, requests and login refused, later epochs unreadable; unban lets back in', async () => {
    const alice = await join('alice');
    const mallory = await join('mallory');
    const socket = await mallory.connect();

    await alice.send('all', 'before the ban');
    const t0 = Date.now();
    expect((await admin.request('POST', '/api/admin/ban-user', { userId: mallory.id, reason: 'spam' })).status).toBe(200);
    const notice = await socket.waitFor((f) => f.type === 'session_ended', 1000);
    expect(notice).toMatchObject({ reason: 'banned' });
    expect(Date.now() - t0).toBeLessThan(1000);
    await socket.closed;

    expect((await mallory.request('GET', '/api/users/all')).status).toBe(401);
    const login = await mallory.login();
    expect(login.status).toBe(403);
    expect(login.error).toEqual({ code: 'banned', error: errorTexts.banned });
    const users = (await alice.request('GET', '/api/users/all')).body as { users: { id: string; isBanned: boolean; bannedReason: string }[] };
    expect(users.users.find((u) => u.id === mallory.id)).toMatchObject({ isBanned: true, bannedReason: 'spam' });

    // Alice's next message goes out in a new epoch that has no share for Mallory's key.
    expect((await alice.send('all', 'after the ban')).status).toBe(201);
    const history = await alice.history('all');
    const after = history.filter((m) => m.senderId === alice.id).slice(-1);
    const before = history.filter((m) => m.senderId === alice.id).slice(-2, -1);
    expect(after[0]!.epochId).not.toBe(before[0]!.epochId);
    // Crypto level: Mallory's own private key, given the ciphertext and every share the server holds for her.
    const ownShares = await sharesFor(database.db, mallory.id);
    expect(ownShares.map((s) => s.epochId)).not.toContain(after[0]!.epochId);
    expect(ownShares.map((s) => s.epochId)).toContain(before[0]!.epochId);
    const publicKeys = (await alice.request('GET', '/api/users/all')).body as { users: PublicUser[] };
    const raw = { shares: ownShares, users: publicKeys.users };
    expect((await mallory.decrypt(after, raw))[0]!.text).toBeNull();
    expect((await mallory.decrypt(before, raw))[0]!.text).toBe('before the ban');

    expect((await admin.request('POST', '/api/admin/unban-user', { userId: mallory.id })).status).toBe(200);
    expect((await mallory.login()).status).toBe(200);
    expect((await alice.send('all', 'welcome back')).status).toBe(201);
    const back = await mallory.decrypt((await mallory.history('all')).slice(-1));
    expect(back[0]!.text).toBe('welcome back');
  });

  it('does not let an admin ban another admin', async () => {
    const other = await join('otheradmin');
    await anon.request('POST', '/api/super-admin/set-role', { userId: other.id, role: 'admin' }, creatorHeaders);
    const res = await admin.request('POST', '/api/admin/ban-user', { userId: other.id, reason: 'coup' });
    expect(res.status).toBe(403);
  });

  it('records every admin action with who, when and from where', async () => {
    const audit = await database.db.select().from(securityEvents);
    const byType = (t: string) => audit.filter((e) => e.type === t);
    expect(byType('admin_keys_generated').every((e) => e.actor === admin.id && e.ip === '127.0.0.1')).toBe(true);
    for (const t of ['admin_keys_generated', 'admin_keys_revoked', 'admin_keys_exported', 'member_banned', 'member_unbanned']) {
      expect(byType(t).length, t).toBeGreaterThan(0);
    }
    expect(JSON.stringify(audit)).not.toMatch(/enclave_session|SuperAdmin/);
  });
});
