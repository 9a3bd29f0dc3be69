import { errorResponseSchema, routes, type RouteDefinition, type RouteInput } from '@enclave/protocol';
import { and, count, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessKeys, epochShares, messages, securityEvents, users } from '../db/schema';
import { createKeys, mintKeys } from '../keys/service';
import { routeAccess } from '../access/policy';
import { creatorHeaders, relaxedRateLimits, TEST_MASTER_KEY } from '../testing/harness';
import { TestMember, type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/**
 * Each `it` makes the members, keys and events it looks at; they share the server and its
 * database. Wrong master keys count against the address (from the events table), so the tests that
 * send them forget them before and after.
 */
describe('creator console', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let creator: InstanceType<typeof TestMember.Anonymous>;
  /** A call with the master key, its answer parsed. */
  const asCreator = <R extends RouteDefinition>(route: R, input: RouteInput<R>) => creator.attempt(route, input, creatorHeaders);
  /** A call with the master key that must succeed: its parsed body. */
  const byCreator = <R extends RouteDefinition>(route: R, input: RouteInput<R>) => creator.call(route, input, creatorHeaders);
  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
  const forgetWrongKeys = () => suite.database.db.delete(securityEvents).where(eq(securityEvents.type, 'master_key_failed'));
  /** Closes a member's socket and waits until the server no longer counts them online: no test leaves anyone online. */
  const hangUp = async (member: TestMember, socket: TestSocket) => {
    socket.close();
    await expect.poll(async () => (await byCreator(routes.monitoredUsers, {})).users.find((u) => u.id === member.id)?.online).toBe(false);
  };

  beforeAll(async () => {
    creator = new TestMember.Anonymous(suite.server.url);
  });

  describe('refuses anyone without the master key, and leaks nothing', () => {
    const creatorRoutes = Object.entries(routeAccess)
      .filter(([, a]) => a === 'creator')
      .map(([r]) => r.split(' ') as [string, string]);
    const wrongKey = `SuperAdmin ${'cd'.repeat(64)}`;
    // Raw paths: the walk goes over the authorization table, route by route.
    it.each(creatorRoutes)('%s %s', async (method, path) => {
      await forgetWrongKeys();
      const body = method === 'POST' ? { userId: crypto.randomUUID() } : undefined;
      const attempts: [Record<string, string>, number, RegExp][] = [
        [{}, 401, /Master key required/],
        [{ authorization: 'SuperAdmin short' }, 401, /Malformed master key/],
        [{ authorization: `Bearer ${TEST_MASTER_KEY}` }, 401, /Malformed master key/],
        [{ authorization: wrongKey }, 403, /Invalid creator credentials/],
      ];
      for (const [headers, status, message] of attempts) {
        // Use a fresh address-free caller each time: wrong keys count against the address (tested below).
        const res = await creator.request(method, path, body, headers);
        expect(res.status, `${JSON.stringify(headers)}`).toBe(status);
        expect(errorResponseSchema.parse(res.body).error).toMatch(message);
      }
      await forgetWrongKeys();
    });
  });

  it('rate-limits repeated wrong master keys per address and records each', async () => {
    await forgetWrongKeys();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await creator.attempt(routes.overview, {}, { authorization: `SuperAdmin ${'ef'.repeat(64)}` })).status);
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429]);
    // Repeats from one address are one row with a count (security/events.ts): count events, not rows.
    const [row] = await suite.database.db
      .select({ rows: count(), events: sql<number>`sum(coalesce((${securityEvents.details}->>'count')::int, 1))::int` })
      .from(securityEvents)
      .where(eq(securityEvents.type, 'master_key_failed'));
    expect(row).toEqual({ rows: 1, events: 5 });
    // Wrong keys from an address cannot lock the creator out.
    expect((await asCreator(routes.overview, {})).status).toBe(200);
    await forgetWrongKeys();
  });

  it('refuses malformed bodies with a clear 400', async () => {
    // Malformed input: sent raw, past the route table's types.
    for (const [path, body, message] of [
      ['/api/super-admin/ban-user', { userId: 'nope' }, /userId: must be a user id/],
      ['/api/super-admin/unban-users', { userIds: [] }, /userIds/],
      ['/api/super-admin/set-role', { userId: crypto.randomUUID(), role: 'god' }, /role/],
      ['/api/super-admin/set-creator-account', { userId: crypto.randomUUID(), isCreatorAccount: 'yes' }, /isCreatorAccount/],
    ] as const) {
      const res = await creator.request('POST', path, body, creatorHeaders);
      expect(res.status, path).toBe(400);
      expect(errorResponseSchema.parse(res.body).error).toMatch(message);
    }
    // A deliberately wrong query: 'lost' is no key status.
    const lost = await creator.request('GET', `${routes.accessKeys.path}?status=lost`, undefined, creatorHeaders);
    expect(lost.status).toBe(400);
    expect(errorResponseSchema.parse(lost.body).error).toMatch(/status/);
    expect((await asCreator(routes.creatorBan, { body: { userId: crypto.randomUUID() } })).status).toBe(404);
  });

  it('shows an overview that matches the database', async () => {
    // Whatever other tests left (members banned or active today), the figures are the database's,
    // and this test's two members add one online and two active.
    const before = await byCreator(routes.overview, {});
    const alice = await join('alice');
    const bob = await join('bob');
    const socket = await alice.connect();
    // Presence is written per tick, then announced: once announced, it is in the database.
    await socket.waitFor((f) => f.type === 'presence' && f.online.includes(alice.id));
    await alice.send('all', 'one');
    await bob.send('all', 'two');
    const overview = await byCreator(routes.overview, {});
    const [u] = await suite.database.db.select({ n: count() }).from(users);
    const [banned] = await suite.database.db.select({ n: count() }).from(users).where(eq(users.isBanned, true));
    const [m] = await suite.database.db.select({ n: count() }).from(messages);
    expect(overview).toMatchObject({
      totalUsers: u?.n,
      totalMessages: m?.n,
      bannedUsers: banned?.n,
      onlineUsers: before.onlineUsers + 1,
      emergency: { active: false },
    });
    expect(overview.activeUsers).toBe(before.activeUsers + 2);
    const monitored = await byCreator(routes.monitoredUsers, {});
    expect(monitored.users.find((x) => x.id === alice.id)).toMatchObject({ online: true, role: 'member', isBanned: false });
    expect(monitored.users.every((x) => x.inviteKey && /^[0-9a-f]{64}$/.test(x.inviteKey))).toBe(true);
    await hangUp(alice, socket);
  });

  it('bans and unbans like moderation does', async () => {
    const carol = await join('carol');
    const dave = await join('dave');
    const socket = await carol.connect();
    expect((await asCreator(routes.creatorBan, { body: { userId: carol.id } })).status).toBe(200);
    await socket.waitFor((f) => f.type === 'session_ended');
    expect((await socket.closed).code).toBe(4002);
    expect((await carol.login()).status).toBe(403);
    const monitored = await byCreator(routes.monitoredUsers, {});
    expect(monitored.users.find((x) => x.id === carol.id)).toMatchObject({ isBanned: true, bannedReason: 'Banned by network creator' });
    await dave.send('all', 'carol cannot read this');
    const [last] = (await dave.history('all')).slice(-1);
    const shares = await dave.call(routes.epochShares, { query: { ids: last!.epochId } });
    expect(shares.shares).toHaveLength(1);
    const carolShares = await suite.database.db
      .select()
      .from(epochShares)
      .where(and(eq(epochShares.epochId, last!.epochId), eq(epochShares.recipientId, carol.id)));
    expect(carolShares).toEqual([]);
    expect((await asCreator(routes.creatorUnban, { body: { userId: carol.id } })).status).toBe(200);
    expect((await carol.login()).status).toBe(200);
  });

  it('emergency shutdown disconnects every member but the creator’s own, and is audited', async () => {
    const own = await join('creatorown');
    expect((await asCreator(routes.setCreatorAccount, { body: { userId: own.id, isCreatorAccount: true } })).status).toBe(200);
    const members = [await join('m1'), await join('m2'), await join('m3')];
    const sockets = await Promise.all(members.map((m) => m.connect()));
    const ownSocket = await own.connect();

    const res = await asCreator(routes.emergencyShutdown, {});
    expect(res.status).toBe(200);
    // Pushed by the server: every member's socket closes with nothing more from them.
    await Promise.all(sockets.map((s) => s.closed));
    for (const s of sockets) expect(s.frames.some((f) => f.type === 'session_ended' && f.reason === 'banned')).toBe(true);
    for (const m of members) expect((await m.login()).status).toBe(403);
    expect(ownSocket.ws.readyState).toBe(ownSocket.ws.OPEN);
    expect((await own.login()).status).toBe(200);

    const overview = await byCreator(routes.overview, {});
    expect(overview.emergency.active).toBe(true);
    expect(overview.bannedUsers).toBe(overview.totalUsers - 1);
    // Registration is closed while the network is in emergency mode.
    await expect(join('latecomer')).rejects.toThrow(/emergency mode/);

    expect(await byCreator(routes.liftEmergency, {})).toMatchObject({ emergency: { active: false } });
    const audit = await suite.database.db.select().from(securityEvents);
    expect(audit.filter((e) => e.type === 'emergency_shutdown')).toHaveLength(1);
    expect(audit.filter((e) => e.type === 'emergency_lifted')).toHaveLength(1);
    // Bans stay until lifted; in bulk here.
    const banned = members.map((m) => m.id);
    expect(await byCreator(routes.creatorUnbanMany, { body: { userIds: banned } })).toEqual({ unbanned: 3 });
    for (const m of members) expect((await m.login()).status).toBe(200);
    await hangUp(own, ownSocket);
  });

  it('revokes keys on the server: refused at once, shown in the key database', async () => {
    const rows = await createKeys(suite.database.db, { count: 4, purchaseId: 'batch-9' });
    const [single, ...bulk] = rows;
    expect(await byCreator(routes.revokeKeys, { body: { ids: [single!.id] } })).toEqual({ revoked: 1 });
    expect(await byCreator(routes.revokeKeys, { body: { ids: bulk.map((k) => k.id) } })).toEqual({ revoked: 3 });
    for (const k of rows) {
      const v = await creator.call(routes.validateKey, { body: { inviteKey: k.key } });
      expect(v).toMatchObject({ valid: false, reason: 'This access key has been revoked' });
    }
    await expect(TestMember.join(suite.server.url, single!.key, 'toolate')).rejects.toThrow(/revoked/);
    const db = await byCreator(routes.accessKeys, { query: { q: 'batch-9' } });
    expect(db.keys.map((k) => k.status)).toEqual(['revoked', 'revoked', 'revoked', 'revoked']);
    // A key redeemed by a member of this test's own, found by that member's name.
    await join('keyholder');
    const used = await byCreator(routes.accessKeys, { query: { status: 'used', q: 'keyholder' } });
    expect(used.keys.map((k) => k.username)).toEqual(['keyholder']);
  });

  it('builds the heatmap and risk panels from security events', async () => {
    await suite.database.db.delete(securityEvents);
    const eve = await join('eve');
    await suite.database.db.insert(securityEvents).values([
      { type: 'login_failed', severity: 'medium', ip: '203.0.113.9' },
      { type: 'login_failed', severity: 'medium', ip: '203.0.113.9' },
      // A coalesced row: 4 repeats of the event in one row (security/events.ts); counted as 4.
      { type: 'login_failed', severity: 'medium', ip: '203.0.113.9', details: { count: 4, lastSeen: new Date().toISOString() } },
      { type: 'canary_key_used', severity: 'critical', ip: '198.51.100.7', userId: eve.id },
      // The creator acting is audit, not threat: on the heatmap, not in the risk scores.
      { type: 'member_banned', severity: 'high', ip: '127.0.0.1', userId: eve.id, actor: 'creator' },
    ]);
    const map = await byCreator(routes.heatmap, {});
    const byType = Object.fromEntries(map.cells.map((c) => [c.type, c.count]));
    expect(byType).toEqual({ login_failed: 6, canary_key_used: 1, member_banned: 1 });
    const r = await byCreator(routes.risk, {});
    expect(r.ips.map((x) => [x.ip, x.score, x.events])).toEqual([
      ['203.0.113.9', 18, 6],
      ['198.51.100.7', 15, 1],
    ]);
    expect(r.members).toEqual([expect.objectContaining({ userId: eve.id, username: 'eve', score: 15, worst: 'critical' })]);
  });

  it('reports compliance from the deployment as it is', async () => {
    const c = await byCreator(routes.compliance, {});
    const status = Object.fromEntries(c.checks.map((x) => [x.name, x.status]));
    expect(status).toMatchObject({
      'HTTPS in front': 'non_compliant',
      'Master key configured': 'compliant',
      'Security headers served': 'compliant',
      'Rate limits on': 'warning',
      Backups: 'warning',
      // BREACH_POLICY=log: reports change nothing.
      'Breach policy': 'warning',
    });
    // At least one unused key of its own, then none of the unused keys expires.
    await mintKeys(suite.database.db, { count: 1 });
    await suite.database.db.update(accessKeys).set({ expiresAt: null });
    const after = await byCreator(routes.compliance, {});
    expect(after.checks.find((x) => x.name === 'Keys with expiry')?.status).toBe('non_compliant');
  });
});
