/**
 * The breach policy (BREACH_POLICY, docs/security.md §10), one server per policy over one database:
 * log records an event only; lock ends the reporter's sessions and refuses their login until the
 * creator unlocks; wipe deletes the reporter's sealed keys and shares, moves their conversations,
 * tells their sockets `security_breach` and closes them. Only the reporter's own account is ever
 * touched: anonymous reports are events only, and no report can name anyone.
 */
import { deriveLoginKey } from '@enclave/crypto';
import {
  closeCodes,
  errorTexts,
  GENERAL_CONVERSATION,
  routes,
  conversationIdFor,
  type BreachPolicy,
  type BreachReport,
  type ServerFrame,
} from '@enclave/protocol';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRateLimits } from '../config';
import type { AppContext } from '../context';
import type { Database } from '../db/client';
import { channelShares, conversations, epochShares, p2pConnections, p2pNodes, securityEvents, sessions, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember, type TestSocket } from '../testing/member';
import { applyBreachPolicy, BREACH_MESSAGE, WIPED_BUNDLE, WIPED_CANNOT_UNLOCK } from './breach';
import { eventTypes, MAX_WRITES_PER_SOURCE, recordEvent } from './events';

const report = (): BreachReport => ({
  reason: 'function integrity violation',
  timestamp: new Date().toISOString(),
  threatVectors: [
    { type: 'modified_native_function', severity: 'critical', description: 'fetch was replaced', timestamp: new Date().toISOString() },
  ],
  securityMetrics: { threatLevel: 90, detections: 1 },
});

const hostBody = { nodeType: 'community_host' as const, capabilities: ['chat'], maxConnections: 10, location: 'Berlin' };
const isConnection = (id: string, state: string) => (f: ServerFrame) =>
  f.type === 'p2p_connection' && f.connectionId === id && f.state === state;

describe.each(backends)('the breach policy (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  const servers = {} as Record<BreachPolicy, TestServer>;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    for (const policy of ['log', 'lock', 'wipe'] as const) {
      servers[policy] = await startServer(database, { config: { breachPolicy: policy, rateLimits: relaxedRateLimits } });
    }
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const s of Object.values(servers)) await s?.close();
    await database?.close();
    await drop?.();
  });

  const join = async (server: TestServer, name: string) =>
    TestMember.join(server.url, (await mintKeys(database.db, { count: 1 }))[0]!, name);
  const connect = async (m: TestMember) => {
    const s = await m.connect();
    sockets.push(s);
    expect(s.frames).toContainEqual({ type: 'authenticated', userId: m.id });
    return s;
  };
  const liveSessions = async (userId: string) =>
    (
      await database.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    ).length;
  const reportEvents = async (userId: string | null) =>
    (await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'breach_report'))).filter((e) => e.userId === userId);
  const freshLogin = async (server: TestServer, m: TestMember) =>
    new TestMember.Anonymous(server.url).attempt(routes.login, { body: { loginKey: await deriveLoginKey(m.token) } });

  it('log: the report is an event, and nothing else changes', async () => {
    const server = servers.log;
    const erin = await join(server, 'erin-log');
    const socket = await connect(erin);
    expect(await erin.call(routes.breachReport, { body: report() })).toEqual({ policy: 'log', action: 'logged' });
    expect(await reportEvents(erin.id)).toEqual([
      expect.objectContaining({ severity: 'critical', details: expect.objectContaining({ action: 'logged', reporter: 'member' }) }),
    ]);
    expect((await erin.attempt(routes.me, {})).status).toBe(200);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    expect((await freshLogin(server, erin)).status).toBe(200);
    const mine = await erin.call(routes.mySecurity, {});
    expect(mine).toMatchObject({
      breachPolicy: 'log',
      counts: { total: 1, critical: 1 },
      events: [expect.objectContaining({ type: 'breach_report', count: 1 })],
    });
  });

  it('lock: sessions end, sockets close with reason locked, login 403 locked until the creator unlocks', async () => {
    const server = servers.lock;
    const carol = await join(server, 'carol-lock');
    const bystander = await join(server, 'dan-lock');
    const [socket, bystanderSocket] = [await connect(carol), await connect(bystander)];
    expect(await carol.call(routes.breachReport, { body: report() })).toEqual({ policy: 'lock', action: 'locked' });
    expect(await socket.waitFor((f) => f.type === 'session_ended', 2000)).toEqual({
      type: 'session_ended',
      reason: 'locked',
      message: errorTexts.locked,
    });
    expect((await socket.closed).code).toBe(closeCodes.sessionEnded);
    expect(await liveSessions(carol.id)).toBe(0);
    expect((await carol.attempt(routes.me, {})).status).toBe(401);
    const refused = await freshLogin(server, carol);
    expect(refused.status).toBe(403);
    expect(refused.error).toEqual({ code: 'locked', error: errorTexts.locked });
    const monitored = await new TestMember.Anonymous(server.url).call(routes.monitoredUsers, {}, creatorHeaders);
    expect(monitored.users.find((u) => u.id === carol.id)).toMatchObject({ isLocked: true, isCompromised: false });

    // Nobody else was touched.
    expect(bystanderSocket.ws.readyState).toBe(bystanderSocket.ws.OPEN);
    expect((await bystander.attempt(routes.me, {})).status).toBe(200);

    expect(
      (await new TestMember.Anonymous(server.url).attempt(routes.unlockUser, { body: { userId: carol.id } }, creatorHeaders)).status,
    ).toBe(200);
    expect((await carol.login()).status).toBe(200);
    expect((await carol.attempt(routes.me, {})).status).toBe(200);
    const [audit] = await database.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.type, 'member_unlocked'), eq(securityEvents.userId, carol.id)));
    expect(audit).toMatchObject({ actor: 'creator', severity: 'medium' });
  });

  it('lock: an anonymous report locks no one', async () => {
    const server = servers.lock;
    const frank = await join(server, 'frank-lock');
    const anon = await new TestMember.Anonymous(server.url).call(routes.breachReport, { body: report() });
    expect(anon).toEqual({ policy: 'lock', action: 'logged' });
    expect((await frank.attempt(routes.me, {})).status).toBe(200);
    expect((await database.db.select().from(users).where(eq(users.isLocked, true))).map((u) => u.username)).toEqual([]);
  });

  it('wipe: bundle and shares gone, conversations moved, security_breach then close, login 403 wiped', async () => {
    const server = servers.wipe;
    const dave = await join(server, 'dave-wipe');
    const erin = await join(server, 'erin-wipe');
    expect((await erin.send('all', 'to the channel')).status).toBe(201);
    expect((await erin.send(dave.id, 'to dave')).status).toBe(201);
    // The direct message's epoch has a share for Dave; the channel's key has one too.
    expect((await database.db.select().from(epochShares).where(eq(epochShares.recipientId, dave.id))).length).toBe(1);
    expect((await database.db.select().from(channelShares).where(eq(channelShares.recipientId, dave.id))).length).toBe(1);
    const dm = conversationIdFor(dave.id, erin.id);
    const versions = async () =>
      Object.fromEntries(
        (await database.db.select().from(conversations))
          .filter((c) => [GENERAL_CONVERSATION, dm].includes(c.id))
          .map((c) => [c.id, c.membershipVersion]),
      );
    const before = await versions();
    const socket = await connect(dave);
    const erinSocket = await connect(erin);

    // A forged report naming Erin is refused before anything is done.
    expect((await dave.request('POST', routes.breachReport.path, { ...report(), userId: erin.id })).status).toBe(400);
    expect(await dave.call(routes.breachReport, { body: report() })).toEqual({ policy: 'wipe', action: 'wiped' });

    expect(await socket.waitFor((f) => f.type === 'security_breach', 2000)).toEqual({ type: 'security_breach', message: BREACH_MESSAGE });
    expect(BREACH_MESSAGE).toBe('SECURITY BREACH: Your account has been compromised. All data wiped for protection.');
    expect((await socket.closed).code).toBe(closeCodes.sessionEnded);
    const [row] = await database.db.select().from(users).where(eq(users.id, dave.id));
    expect(row).toMatchObject({ encryptedPrivateKey: WIPED_BUNDLE, isCompromised: true });
    expect(await database.db.select().from(epochShares).where(eq(epochShares.recipientId, dave.id))).toEqual([]);
    expect(await database.db.select().from(channelShares).where(eq(channelShares.recipientId, dave.id))).toEqual([]);
    expect(await liveSessions(dave.id)).toBe(0);
    const after = await versions();
    expect(after[GENERAL_CONVERSATION]).toBe(before[GENERAL_CONVERSATION]! + 1);
    expect(after[dm]).toBe(before[dm]! + 1);
    await erinSocket.waitFor((f) => f.type === 'membership_changed' && f.conversationId === dm);

    const refused = await freshLogin(server, dave);
    expect(refused.status).toBe(403);
    expect(refused.error).toEqual({ code: 'wiped', error: errorTexts.wiped });
    expect(await reportEvents(dave.id)).toEqual([
      expect.objectContaining({ severity: 'critical', details: expect.objectContaining({ action: 'wiped', reporter: 'member' }) }),
    ]);

    // The creator's unlock says plainly that nothing can be restored, and changes nothing.
    const unlock = await new TestMember.Anonymous(server.url).attempt(routes.unlockUser, { body: { userId: dave.id } }, creatorHeaders);
    expect(unlock.status).toBe(409);
    expect(unlock.error).toEqual({ code: 'wiped', error: WIPED_CANNOT_UNLOCK });
    expect(WIPED_CANNOT_UNLOCK).toMatch(/^This account was wiped by the breach policy; its keys are gone and it cannot be restored\./);
    expect((await freshLogin(server, dave)).status).toBe(403);
    expect(
      await database.db
        .select()
        .from(securityEvents)
        .where(and(eq(securityEvents.type, 'member_unlocked'), eq(securityEvents.userId, dave.id))),
    ).toEqual([]);

    // Listed as compromised, never a recipient again; Erin can no longer write to Dave.
    const listed = (await erin.call(routes.users, {})).users.find((u) => u.id === dave.id);
    expect(listed).toMatchObject({ isCompromised: true });
    const members = await erin.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    expect(members.members.map((m) => m.id)).not.toContain(dave.id);
    expect((await erin.attempt(routes.conversationMembers, { query: { receiverId: dave.id } })).status).toBe(403);
    // Erin is untouched.
    expect(erinSocket.ws.readyState).toBe(erinSocket.ws.OPEN);
    expect((await erin.send('all', 'still here')).status).toBe(201);
  });

  it('wipe: a report with text PostgreSQL cannot store is a 400, and wipes nothing', async () => {
    const server = servers.wipe;
    const hana = await join(server, 'hana-wipe');
    for (const body of [
      { ...report(), reason: 'tamper \udc00' },
      { ...report(), threatVectors: [{ ...report().threatVectors[0]!, description: '\ud800' }] },
    ]) {
      const res = await hana.request('POST', routes.breachReport.path, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_request', error: expect.stringMatching(/must be well-formed Unicode text/) });
    }
    expect((await hana.attempt(routes.me, {})).status).toBe(200);
    const [row] = await database.db.select().from(users).where(eq(users.id, hana.id));
    expect(row).toMatchObject({ isCompromised: false, isLocked: false });
    expect(row!.encryptedPrivateKey).not.toBe(WIPED_BUNDLE);
    expect(await reportEvents(hana.id)).toEqual([]);
  });

  it('wipe: the action and its audit row are one transaction: an audit that fails undoes the wipe', async () => {
    const server = servers.wipe;
    const ivan = await join(server, 'ivan-wipe');
    const erin = await join(server, 'ivan-peer');
    expect((await erin.send(ivan.id, 'to ivan')).status).toBe(201);
    const shares = async () => (await database.db.select().from(epochShares).where(eq(epochShares.recipientId, ivan.id))).length;
    const before = await shares();
    expect(before).toBeGreaterThan(0);
    const ctx = { db: database.db, gateway: server.app.gateway, scrubber: server.app.scrubber } as AppContext;
    // Details jsonb refuses (a lone surrogate): the audit row fails after the wipe's statements ran.
    const failing = applyBreachPolicy(ctx, ivan.id, 'wipe', (tx, action) =>
      recordEvent(
        database.db,
        null,
        { type: eventTypes.breachReport, severity: 'high', userId: ivan.id, details: { action, reason: '\udc00' } },
        tx,
      ),
    );
    await expect(failing).rejects.toThrow();
    const [row] = await database.db.select().from(users).where(eq(users.id, ivan.id));
    expect(row).toMatchObject({ isCompromised: false });
    expect(row!.encryptedPrivateKey).not.toBe(WIPED_BUNDLE);
    expect(await shares()).toBe(before);
    expect(await liveSessions(ivan.id)).toBeGreaterThan(0);
    expect((await ivan.attempt(routes.me, {})).status).toBe(200);
    expect(await reportEvents(ivan.id)).toEqual([]);

    // The same call with an audit that can be written does both.
    expect(
      await applyBreachPolicy(ctx, ivan.id, 'wipe', (tx, action) =>
        recordEvent(database.db, null, { type: eventTypes.breachReport, severity: 'high', userId: ivan.id, details: { action } }, tx),
      ),
    ).toBe('wiped');
    expect(await shares()).toBe(0);
    expect(await reportEvents(ivan.id)).toEqual([expect.objectContaining({ details: expect.objectContaining({ action: 'wiped' }) })]);
  });

  it('wipe: the audit row is written with its details however many events its source sent in the window', async () => {
    const server = servers.wipe;
    const jana = await join(server, 'jana-wipe');
    const ctx = { db: database.db, gateway: server.app.gateway, scrubber: server.app.scrubber } as AppContext;
    // Events without a request have one source: past its budget they would be held in memory or folded.
    for (let i = 0; i < MAX_WRITES_PER_SOURCE; i++)
      await recordEvent(database.db, null, { type: eventTypes.decoyHit, severity: 'high', details: { path: `/api/decoy/${i}` } });
    await applyBreachPolicy(ctx, jana.id, 'wipe', (tx, action) =>
      recordEvent(database.db, null, { type: eventTypes.breachReport, severity: 'high', userId: jana.id, details: { action } }, tx),
    );
    expect(await reportEvents(jana.id)).toEqual([expect.objectContaining({ details: expect.objectContaining({ action: 'wiped' }) })]);
  });

  for (const policy of ['lock', 'wipe'] as const) {
    it(`${policy}: the reporter's P2P node leaves the registry, and both parties of their connections are told`, async () => {
      const server = servers[policy];
      const [host, joiner, other] = [
        await join(server, `host-${policy}`),
        await join(server, `joiner-${policy}`),
        await join(server, `other-${policy}`),
      ];
      await connect(host);
      const [joinerSocket, otherSocket] = [await connect(joiner), await connect(other)];
      const { node } = await host.call(routes.p2pHost, { body: hostBody });
      const { node: otherNode } = await other.call(routes.p2pHost, { body: hostBody });
      // Presence is written a tick after `authenticated`: connecting needs the hosts online.
      await expect
        .poll(
          async () =>
            (await joiner.call(routes.p2pNodes, {})).nodes.filter((n) => [host.id, other.id].includes(n.hostId) && n.status === 'online')
              .length,
        )
        .toBe(2);
      const toHost = await joiner.call(routes.p2pConnect, { params: { id: node.id } });
      const fromHost = await host.call(routes.p2pConnect, { params: { id: otherNode.id } });

      expect(await host.call(routes.breachReport, { body: report() })).toEqual({ policy, action: policy === 'lock' ? 'locked' : 'wiped' });
      await joinerSocket.waitFor(isConnection(toHost.connectionId, 'closed'));
      await otherSocket.waitFor(isConnection(fromHost.connectionId, 'closed'));
      expect((await joiner.call(routes.p2pNodes, {})).nodes.map((n) => n.hostId)).not.toContain(host.id);
      expect(await database.db.select().from(p2pNodes).where(eq(p2pNodes.hostId, host.id))).toEqual([]);
      expect(await database.db.select().from(p2pConnections).where(eq(p2pConnections.joinerId, host.id))).toEqual([]);
      expect((await joiner.attempt(routes.p2pConnect, { params: { id: node.id } })).status).toBe(404);
      await other.call(routes.p2pStopHosting, {});
    });
  }

  it('wipe: an anonymous report wipes no one', async () => {
    const server = servers.wipe;
    const gina = await join(server, 'gina-wipe');
    expect(await new TestMember.Anonymous(server.url).call(routes.breachReport, { body: report() })).toEqual({
      policy: 'wipe',
      action: 'logged',
    });
    expect((await gina.attempt(routes.me, {})).status).toBe(200);
    expect(await reportEvents(null)).not.toEqual([]);
  });

  it('limits reports per address (10 a minute), and the refusals are events', async () => {
    const limited = await startServer(database, { config: { rateLimits: { ...relaxedRateLimits, breach: defaultRateLimits.breach } } });
    try {
      const anon = new TestMember.Anonymous(limited.url);
      const statuses: number[] = [];
      for (let i = 0; i <= defaultRateLimits.breach.max; i++)
        statuses.push((await anon.attempt(routes.breachReport, { body: report() })).status);
      expect(statuses).toEqual([...Array<number>(defaultRateLimits.breach.max).fill(200), 429]);
      await expect
        .poll(async () =>
          (await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'rate_limit'))).map((e) => e.details.route),
        )
        .toContain(routes.breachReport.path);
    } finally {
      await limited.close();
    }
  });

  it('logged no error on any server', () => {
    for (const s of Object.values(servers)) expect(s.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
