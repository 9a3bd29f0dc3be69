import { errorResponseSchema, errorTexts, routes, type RouteInput } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessKeys, securityEvents } from '../db/schema';
import { sharesFor } from '../conversations/routes';
import { mintKeys } from '../keys/service';
import { creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/**
 * Each `it` makes the keys, members and actions it looks at; what they share is the server, its
 * database and `admin` (promoted once in `beforeAll`, never changed by a test).
 */
describe('key administration and moderation', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let admin: TestMember;
  let anon: InstanceType<typeof TestMember.Anonymous>;

  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
  const generate = async (body: RouteInput<typeof routes.generateKeys>['body']) => admin.attempt(routes.generateKeys, { body });
  const validate = async (inviteKey: string) => anon.call(routes.validateKey, { body: { inviteKey } });
  const keyStats = async () => admin.call(routes.keyStats, {});
  const promote = async (member: TestMember) => anon.call(routes.setRole, { body: { userId: member.id, role: 'admin' } }, creatorHeaders);

  beforeAll(async () => {
    anon = new TestMember.Anonymous(suite.server.url);
    admin = await join('staff');
    await promote(admin);
  });

  it('generates keys with purchase ID, price and expiry, and counts them in the stats', async () => {
    const before = await keyStats();
    const res = await generate({ quantity: 25, purchaseId: 'order-77', salePrice: 40, expirationDays: 30 });
    expect(res.status).toBe(201);
    const keys = res.body!.keys;
    expect(keys).toHaveLength(25);
    expect(keys.every((k) => /^[0-9a-f]{64}$/.test(k.key) && k.purchaseId === 'order-77' && k.salePrice === 40)).toBe(true);
    const days = (Date.parse(keys[0]!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    const after = await keyStats();
    expect(after.total - before.total).toBe(25);
    expect(after.available - before.available).toBe(25);

    // One is redeemed: used, revenue at its price, conversion rate recomputed.
    await TestMember.join(suite.server.url, keys[0]!.key, 'buyer');
    const sold = await keyStats();
    expect(sold.used).toBe(after.used + 1);
    expect(sold.revenue).toBe(after.revenue + 40);
    expect(sold.conversionRate).toBe(Math.round((sold.used / sold.total) * 100));
  });

  it('counts $50 for a used key sold without a price', async () => {
    const before = await keyStats();
    await join('noprice');
    const after = await keyStats();
    expect(after.revenue - before.revenue).toBe(50);
  });

  it('lists at most 20 unused keys and exports a sale batch as CSV', async () => {
    // A batch of its own, one key of it sold: more than 20 unused keys exist whatever ran before.
    const batch = (await admin.call(routes.generateKeys, { body: { quantity: 25, purchaseId: 'order-csv', salePrice: 40 } })).keys;
    await TestMember.join(suite.server.url, batch[0]!.key, 'csvbuyer');
    const list = await admin.call(routes.unusedKeys, {});
    expect(list.keys.length).toBe(20);
    expect(list.keys.every((k) => k.status === 'active')).toBe(true);
    const csv = await admin.attempt(routes.exportKeys, { query: { purchaseId: 'order-csv' } });
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('key,status,purchase_id,sale_price,generated_at,expires_at');
    expect(lines).toHaveLength(26);
    expect(lines.filter((l) => l.includes('"used"'))).toHaveLength(1);
  });

  it('refuses revoked, expired, used and canary keys at validation and registration, each with its reason', async () => {
    const [revoked, expired, used] = await mintKeys(suite.database.db, { count: 3 });
    const idOf = async (key: string) => (await suite.database.db.select().from(accessKeys).where(eq(accessKeys.key, key)))[0]!.id;
    expect(await admin.call(routes.revokeKeys, { body: { ids: [await idOf(revoked!)] } })).toEqual({ revoked: 1 });
    await suite.database.db
      .update(accessKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(accessKeys.key, expired!));
    await TestMember.join(suite.server.url, used!, 'firstuse');
    const canaryRes = await generate({ quantity: 1, canary: true });
    const canary = canaryRes.body!.keys[0]!.key;

    const cases: [string, string][] = [
      [revoked!, errorTexts.keyRevoked],
      [expired!, errorTexts.keyExpired],
      [used!, errorTexts.keyUsed],
      [canary, errorTexts.keyUnknown],
    ];
    for (const [key, reason] of cases) {
      expect(await validate(key)).toMatchObject({ valid: false, reason });
      await expect(TestMember.join(suite.server.url, key, `try${key.slice(0, 6)}`)).rejects.toThrow(reason);
    }
    // The canary never shows among keys for sale, and both uses raised a critical event with the caller's IP.
    const forSale = await admin.call(routes.unusedKeys, {});
    expect(forSale.keys.map((k) => k.key)).not.toContain(canary);
    const alerts = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'canary_key_used'));
    expect(alerts.map((a) => [a.severity, a.ip, a.details.action])).toEqual([
      ['critical', '127.0.0.1', 'validate'],
      ['critical', '127.0.0.1', 'register'],
    ]);
  });

  it('revokes in bulk on the server, leaving used keys alone', async () => {
    const res = await generate({ quantity: 5 });
    const ids = res.body!.keys.map((k) => k.id);
    expect(await admin.call(routes.revokeKeys, { body: { ids } })).toEqual({ revoked: 5 });
    expect(await admin.call(routes.revokeKeys, { body: { ids } })).toEqual({ revoked: 0 });
  });

  // Malformed input: sent raw, past the route table's types.
  it.each([0, 1001, -1, 1.5, 'ten', null])('refuses quantity %s with a clear 400', async (quantity) => {
    const res = await admin.request('POST', routes.generateKeys.path, { quantity });
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
    const res = await admin.attempt(routes.adminBan, { body: { userId: crypto.randomUUID() } });
    expect(res.status).toBe(404);
  });

  it('bans at once everywhere: socket told and closed, requests and login refused, later epochs unreadable; unban lets back in', async () => {
    const alice = await join('alice');
    const mallory = await join('mallory');
    const socket = await mallory.connect();

    await alice.send('all', 'before the ban');
    expect((await admin.attempt(routes.adminBan, { body: { userId: mallory.id, reason: 'spam' } })).status).toBe(200);
    // Pushed by the server: the socket is told and closed before mallory does anything more.
    const notice = await socket.waitFor((f) => f.type === 'session_ended');
    expect(notice).toMatchObject({ reason: 'banned' });
    await socket.closed;

    expect((await mallory.attempt(routes.users, {})).status).toBe(401);
    const login = await mallory.login();
    expect(login.status).toBe(403);
    expect(login.error).toEqual({ code: 'banned', error: errorTexts.banned });
    const users = await alice.call(routes.users, {});
    expect(users.users.find((u) => u.id === mallory.id)).toMatchObject({ isBanned: true, bannedReason: 'spam' });

    // Alice's next message goes out in a new epoch that has no share for Mallory's key.
    expect((await alice.send('all', 'after the ban')).status).toBe(201);
    const history = await alice.history('all');
    const after = history.filter((m) => m.senderId === alice.id).slice(-1);
    const before = history.filter((m) => m.senderId === alice.id).slice(-2, -1);
    expect(after[0]!.epochId).not.toBe(before[0]!.epochId);
    // Crypto level: Mallory's own private key, given the ciphertext and every share the server holds for her.
    const ownShares = await sharesFor(suite.database.db, mallory.id);
    expect(ownShares.map((s) => s.epochId)).not.toContain(after[0]!.epochId);
    expect(ownShares.map((s) => s.epochId)).toContain(before[0]!.epochId);
    const publicKeys = await alice.call(routes.users, {});
    const raw = { shares: ownShares, users: publicKeys.users };
    expect((await mallory.decrypt(after, raw))[0]!.text).toBeNull();
    expect((await mallory.decrypt(before, raw))[0]!.text).toBe('before the ban');

    expect((await admin.attempt(routes.adminUnban, { body: { userId: mallory.id } })).status).toBe(200);
    expect((await mallory.login()).status).toBe(200);
    expect((await alice.send('all', 'welcome back')).status).toBe(201);
    const back = await mallory.decrypt((await mallory.history('all')).slice(-1));
    expect(back[0]!.text).toBe('welcome back');
  });

  it('does not let an admin ban another admin', async () => {
    const other = await join('otheradmin');
    await promote(other);
    const res = await admin.attempt(routes.adminBan, { body: { userId: other.id, reason: 'coup' } });
    expect(res.status).toBe(403);
  });

  it('records every admin action with who, when and from where', async () => {
    // The actions it looks for, done here: a batch generated, exported and revoked, a member
    // banned and unbanned.
    const t0 = new Date();
    const batch = (await admin.call(routes.generateKeys, { body: { quantity: 2, purchaseId: 'order-audit' } })).keys;
    await admin.call(routes.exportKeys, { query: { purchaseId: 'order-audit' } });
    expect(await admin.call(routes.revokeKeys, { body: { ids: batch.map((k) => k.id) } })).toEqual({ revoked: 2 });
    const target = await join('audited');
    await admin.call(routes.adminBan, { body: { userId: target.id, reason: 'audit' } });
    await admin.call(routes.adminUnban, { body: { userId: target.id } });

    const audit = await suite.database.db.select().from(securityEvents);
    const byType = (t: string) => audit.filter((e) => e.type === t);
    expect(byType('admin_keys_generated').every((e) => e.actor === admin.id && e.ip === '127.0.0.1')).toBe(true);
    for (const t of ['admin_keys_generated', 'admin_keys_revoked', 'admin_keys_exported', 'member_banned', 'member_unbanned']) {
      expect(byType(t).length, t).toBeGreaterThan(0);
      // This test's own action of that type: by the admin, from the loopback address, just now.
      const own = byType(t).filter((e) => e.createdAt.getTime() >= t0.getTime() - 1000);
      expect(own.length, t).toBeGreaterThan(0);
      expect(
        own.every((e) => e.actor === admin.id && e.ip === '127.0.0.1'),
        t,
      ).toBe(true);
    }
    expect(byType('member_banned').filter((e) => e.userId === target.id)).toHaveLength(1);
    expect(byType('member_unbanned').filter((e) => e.userId === target.id)).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toMatch(/enclave_session|SuperAdmin/);
  });
});
