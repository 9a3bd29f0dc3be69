/**
 * A scripted attack against one server (docs/security.md §10), then the monitor's answers checked
 * to the event: live-events holds exactly the events the attack caused (types, severities, counts,
 * IP analysis), and every metrics figure equals what this test counts itself from the rows.
 *
 * Addresses: the server trusts one proxy hop (TRUST_PROXY=1), so each caller picks its address with
 * X-Forwarded-For, as a proxy would write it. The creator and the members' own setup calls come
 * from 127.0.0.1 itself.
 */
import { deriveLoginKey } from '@enclave/crypto';
import { errorTexts, routes, severityScores, type BreachReport, type SecurityMetrics } from '@enclave/protocol';
import { and, eq, gt, isNull } from 'drizzle-orm';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRateLimits } from '../config';
import { blockedIps, epochs, messages, securityEvents, sessions, users } from '../db/schema';
import { createKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits, TEST_MASTER_KEY } from '../testing/harness';
import { TestMember, type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { ATTACKER, BLOCKED, byKey, DAY_MS, from, HOUR_MS, MALLORY_IP, shape, wrongMasterKey, type Expected } from './attack-run-shapes';
import { decoyRoutes } from './metrics';

describe.each(backends)('a scripted attack, and what the monitor says of it (%s)', (backend) => {
  const suite = oneInstance(backend, {
    // The login limit as in production: the attack goes past it.
    config: { trustProxy: { hops: 1 }, rateLimits: { ...relaxedRateLimits, login: defaultRateLimits.login } },
  });
  let alice: TestMember;
  let bob: TestMember;
  let mallory: TestMember;
  let bobSocket: TestSocket;
  const creator = () => new TestMember.Anonymous(suite.server.url);
  const secrets: string[] = [];

  beforeAll(async () => {
    [alice, bob, mallory] = await suite.members('alice', 'bob', 'mallory');
    const sent = await alice.send('all', 'the plaintext of a real message');
    expect(sent.status).toBe(201);
    bobSocket = await bob.connect();
    secrets.push(
      alice.token,
      bob.token,
      mallory.token,
      await deriveLoginKey(alice.token),
      await deriveLoginKey(mallory.token),
      TEST_MASTER_KEY,
      'the plaintext of a real message',
    );
  });
  afterAll(async () => {
    bobSocket?.close();
  });

  const live = async () => (await creator().call(routes.liveEvents, {}, creatorHeaders)).events;
  const metrics = async (headers: Record<string, string> = {}): Promise<SecurityMetrics> =>
    creator().call(routes.securityMetrics, {}, { ...creatorHeaders, ...headers });

  it('runs the attack: every step refused as it should be', async () => {
    const attacker = new TestMember.Anonymous(suite.server.url);

    // 1. Wrong tokens past the login limit (5 per 60 s per address): 5 × 401, then 429s.
    const wrongLogin = { body: { loginKey: 'e'.repeat(64) } };
    for (let i = 0; i < 5; i++) expect((await attacker.attempt(routes.login, wrongLogin, from(ATTACKER))).error?.code).toBe('login_failed');
    for (let i = 0; i < 2; i++) expect((await attacker.attempt(routes.login, wrongLogin, from(ATTACKER))).status).toBe(429);

    // 2. Master-key guesses.
    for (let i = 0; i < 3; i++)
      expect((await attacker.attempt(routes.overview, {}, { ...wrongMasterKey, ...from(ATTACKER) })).status).toBe(403);

    // 3. Decoy probes: each answers a plausible shape, and nothing in it is real.
    const auth = await attacker.call(routes.decoyAuth, { body: undefined }, from(ATTACKER));
    expect(auth.token).toMatch(/^[0-9a-f]{64}$/);
    expect(await suite.database.db.select().from(users).where(eq(users.id, auth.user.id))).toEqual([]);
    expect(await attacker.call(routes.decoyValidate, { body: { decoy: true } }, from(ATTACKER))).toMatchObject({ valid: true });
    expect((await attacker.call(routes.decoyDecrypt, { body: { decoy: true } }, from(ATTACKER))).decrypted).not.toContain('plaintext');
    expect(await attacker.call(routes.decoyAnyGet, { params: { '*': 'admin/keys' } }, from(ATTACKER))).toMatchObject({ status: 'ok' });
    expect(await attacker.call(routes.decoyAnyPost, { params: { '*': 'backup' }, body: { decoy: true } }, from(ATTACKER))).toMatchObject({
      status: 'ok',
    });

    // 4. A canary key, refused as a key that does not exist.
    const [canary] = await createKeys(suite.database.db, { count: 1, canary: true });
    const validated = await attacker.call(routes.validateKey, { body: { inviteKey: canary!.key } }, from(ATTACKER));
    expect(validated).toMatchObject({ valid: false, reason: errorTexts.keyUnknown });

    // 5. A blocked address: every HTTP route (API, unknown paths, the web app) and the socket upgrade.
    const block = await creator().call(routes.blockIp, { body: { ip: `::ffff:${BLOCKED}`, reason: 'scanner' } }, creatorHeaders);
    expect(block.block).toMatchObject({ ip: BLOCKED, reason: 'scanner', expiresAt: null, hits: 0 });
    const refused = [
      await attacker.request('HEAD', routes.health.path, undefined, from(BLOCKED)),
      await attacker.request('GET', routes.users.path, undefined, from(BLOCKED)),
      await attacker.request('GET', '/no/such/page', undefined, from(BLOCKED)),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403]);
    expect(refused[1]!.body).toEqual({ error: errorTexts.ipBlocked, code: 'ip_blocked' });
    const upgrade = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${suite.server.url.replace(/^http/, 'ws')}/ws`, { headers: from(BLOCKED) });
      // Ending the refused upgrade ourselves is not an error of the test.
      ws.on('error', () => undefined);
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('open', () => reject(new Error('the upgrade was accepted')));
    });
    expect(upgrade).toBe(403);

    // 6. A forged breach report naming another member is refused outright; Mallory's own report
    // (with what her browser says of its addresses) touches only her; an anonymous one, no one.
    const report: BreachReport = {
      reason: 'tamper detected',
      timestamp: new Date().toISOString(),
      threatVectors: [
        { type: 'debugger_detected', severity: 'high', description: 'debugger statement took 240 ms', timestamp: new Date().toISOString() },
        {
          type: 'crypto_api_compromised',
          severity: 'critical',
          description: 'crypto.subtle replaced',
          timestamp: new Date().toISOString(),
          source: 'integrity',
        },
      ],
      securityMetrics: { threatLevel: 80, detections: 2 },
      addresses: { localNetworkIP: '192.168.1.20', publicIP: '192.0.2.10', webrtcIPs: ['10.0.0.7'] },
    };
    const forged = await mallory.request('POST', routes.breachReport.path, { ...report, userId: bob.id }, from(MALLORY_IP));
    expect(forged.status).toBe(400);
    expect(await mallory.call(routes.breachReport, { body: report }, from(MALLORY_IP))).toEqual({ policy: 'log', action: 'logged' });
    const anonymous = { ...report, threatVectors: [report.threatVectors[0]!], addresses: undefined };
    expect(await attacker.call(routes.breachReport, { body: anonymous }, from(ATTACKER))).toEqual({ policy: 'log', action: 'logged' });
    expect((await bob.attempt(routes.me, {})).status).toBe(200);
    expect(bobSocket.ws.readyState).toBe(bobSocket.ws.OPEN);
  });

  it('lists exactly the events the attack caused, newest first, with the IP analysis the server saw', async () => {
    // The 429s are recorded in the background of the refusal: wait until both are in.
    await expect
      .poll(async () => (await live()).some((e) => e.type === 'rate_limit' && e.count === 2), { timeout: 10_000, interval: 100 })
      .toBe(true);
    const events = await live();
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => b - a));
    const expected: Expected[] = [
      { type: 'login_failed', severity: 'medium', count: 5, ip: ATTACKER, userId: null, actor: null, details: {} },
      { type: 'rate_limit', severity: 'medium', count: 2, ip: ATTACKER, userId: null, actor: null, details: { route: routes.login.path } },
      {
        type: 'master_key_failed',
        severity: 'high',
        count: 3,
        ip: ATTACKER,
        userId: null,
        actor: null,
        details: { route: routes.overview.path },
      },
      ...[
        ['POST', '/api/decoy/auth'],
        ['POST', '/api/decoy/validate'],
        ['POST', '/api/decoy/decrypt'],
        ['GET', '/api/decoy/admin/keys'],
        ['POST', '/api/decoy/backup'],
      ].map(([method, path]): Expected => ({
        type: 'decoy_hit',
        severity: 'high',
        count: 1,
        ip: ATTACKER,
        userId: null,
        actor: null,
        details: { method, path },
      })),
      {
        type: 'canary_key_used',
        severity: 'critical',
        count: 1,
        ip: ATTACKER,
        userId: null,
        actor: null,
        details: { keyId: expect.any(String), action: 'validate' },
      },
      {
        type: 'ip_blocked',
        severity: 'medium',
        count: 1,
        ip: '127.0.0.1',
        userId: null,
        actor: 'creator',
        details: { ip: BLOCKED, reason: 'scanner', expiresAt: null },
      },
      { type: 'blocked_ip_hit', severity: 'medium', count: 3, ip: BLOCKED, userId: null, actor: null, details: { channel: 'http' } },
      { type: 'blocked_ip_hit', severity: 'medium', count: 1, ip: BLOCKED, userId: null, actor: null, details: { channel: 'socket' } },
      {
        type: 'breach_report',
        severity: 'critical',
        count: 1,
        ip: MALLORY_IP,
        userId: mallory.id,
        actor: null,
        details: expect.objectContaining({ reporter: 'member', action: 'logged', threatLevel: 80, detections: 2 }),
      },
      {
        type: 'breach_report',
        severity: 'high',
        count: 1,
        ip: ATTACKER,
        userId: null,
        actor: null,
        details: expect.objectContaining({ reporter: 'anonymous', action: 'logged' }),
      },
    ] as Expected[];
    const got = events.map(shape).sort(byKey);
    expect(got).toHaveLength(expected.length);
    expect(got).toEqual(expect.arrayContaining(expected));

    const attackerRow = events.find((e) => e.type === 'login_failed')!;
    expect(attackerRow.ipAnalysis).toMatchObject({
      clientIP: ATTACKER,
      forwardedFor: ['127.0.0.1', ATTACKER],
      classification: 'public',
      // Nothing reported by a client: none of these is guessed.
      localNetworkIP: null,
      publicIP: null,
      webrtcIPs: [],
    });
    expect(attackerRow.ipAnalysis.headers['x-forwarded-for']).toBe(ATTACKER);
    const malloryRow = events.find((e) => e.type === 'breach_report' && e.userId === mallory.id)!;
    expect(malloryRow.username).toBe('mallory');
    expect(malloryRow.ipAnalysis).toMatchObject({
      clientIP: MALLORY_IP,
      localNetworkIP: '192.168.1.20',
      publicIP: '192.0.2.10',
      webrtcIPs: ['10.0.0.7'],
    });
    for (const e of events) {
      expect(Object.keys(e.ipAnalysis.headers)).not.toContain('authorization');
      expect(Object.keys(e.ipAnalysis.headers)).not.toContain('cookie');
    }
  });

  it('counts the refused hits of the block', async () => {
    const { blocked } = await creator().call(routes.blockedIps, {}, creatorHeaders);
    expect(blocked).toEqual([expect.objectContaining({ ip: BLOCKED, reason: 'scanner', hits: 4, expiresAt: null })]);
  });

  /** Events per severity of non-audit rows created after `since`, counted here from the table. */
  const countRows = async (since: Date) => {
    const rows = await suite.database.db
      .select({
        severity: securityEvents.severity,
        details: securityEvents.details,
        type: securityEvents.type,
        ip: securityEvents.ip,
        userId: securityEvents.userId,
      })
      .from(securityEvents)
      .where(and(gt(securityEvents.createdAt, since), isNull(securityEvents.actor)));
    const n = (d: Record<string, unknown>) => (typeof d.count === 'number' ? d.count : 1);
    const counts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };
    let score = 0;
    for (const r of rows) {
      counts.total += n(r.details);
      counts[r.severity] += n(r.details);
      score += severityScores[r.severity] * n(r.details);
    }
    const sumWhere = (pred: (r: (typeof rows)[number]) => boolean) => rows.filter(pred).reduce((s, r) => s + n(r.details), 0);
    return { rows, counts, score, sumWhere };
  };

  it('traces every metrics figure to the rows it counts', async () => {
    const m = await metrics();
    const now = Date.now();
    const day = await countRows(new Date(now - DAY_MS));
    const hour = await countRows(new Date(now - HOUR_MS));
    // The figures, against this test's own count of the rows…
    expect(m.metrics.counts).toEqual(day.counts);
    expect(m.metrics.threatScore).toBe(hour.score);
    expect(m.metrics.activeThreats).toBe(hour.counts.high + hour.counts.critical);
    expect(m.metrics.tamperReports).toBe(day.sumWhere((r) => r.type === 'breach_report'));
    expect(m.metrics.decoyHits).toBe(day.sumWhere((r) => r.type === 'decoy_hit'));
    const activeBlocks = (await suite.database.db.select().from(blockedIps)).filter((b) => !b.expiresAt || b.expiresAt.getTime() > now);
    expect(m.metrics.blockedIPs).toBe(activeBlocks.length);
    expect(m.metrics.dynamicKeys).toBe(
      (
        await suite.database.db
          .select()
          .from(epochs)
          .where(gt(epochs.createdAt, new Date(now - DAY_MS)))
      ).length,
    );
    expect(m.metrics.messageKeys).toBe(
      (
        await suite.database.db
          .select()
          .from(messages)
          .where(gt(messages.createdAt, new Date(now - DAY_MS)))
      ).length,
    );
    expect(m.metrics.decoyEndpoints).toBe(Object.values(routes).filter((r) => r.path.startsWith('/api/decoy/')).length);
    // …and against the script: 2 critical (canary, Mallory's report), 9 high (3 master keys, 5 decoys,
    // the anonymous report), 11 medium (5 wrong logins, 2 × 429, 4 blocked hits).
    expect(m.metrics.counts).toEqual({ total: 22, critical: 2, high: 9, medium: 11, low: 0 });
    expect(m.metrics.threatScore).toBe(2 * 15 + 9 * 7 + 11 * 3);
    expect(m.metrics.activeThreats).toBe(11);
    expect(m.metrics).toMatchObject({
      emergencyMode: false,
      breachPolicy: 'log',
      blockedIPs: 1,
      tamperReports: 2,
      decoyEndpoints: decoyRoutes.length,
      decoyHits: 5,
      dynamicKeys: 1,
      messageKeys: 1,
      encryptionLayers: 2,
      responseTimeMs: null,
    });
    expect(decoyRoutes).toHaveLength(5);
    expect([...m.metrics.countermeasures].sort()).toEqual(['decoy_endpoints', 'ip_blocking', 'rate_limiting']);

    // Per address and per type: events, score, worst, and whether the address is blocked now.
    const source = (kind: 'ip' | 'type', key: string) => m.threatIntelligence.find((t) => t.kind === kind && t.key === key);
    expect(source('ip', ATTACKER)).toMatchObject({
      events: 17,
      score: 5 * 3 + 2 * 3 + 3 * 7 + 5 * 7 + 15 + 7,
      worst: 'critical',
      blocked: false,
    });
    expect(source('ip', BLOCKED)).toMatchObject({ events: 4, score: 12, worst: 'medium', blocked: true });
    expect(source('ip', MALLORY_IP)).toMatchObject({ events: 1, score: 15, worst: 'critical', blocked: false });
    expect(source('ip', '127.0.0.1'), 'audit entries are not threats').toBeUndefined();
    for (const t of m.threatIntelligence.filter((x) => x.kind === 'type')) {
      expect(t.events, t.key).toBe(day.sumWhere((r) => r.type === t.key));
    }
    expect(m.threatIntelligence.map((t) => t.score)).toEqual([...m.threatIntelligence.map((t) => t.score)].sort((a, b) => b - a));

    // Per member: only Mallory did anything.
    expect(m.behavioralProfiles).toEqual([
      expect.objectContaining({
        userId: mallory.id,
        username: 'mallory',
        events: 1,
        score: 15,
        worst: 'critical',
        types: ['breach_report'],
        lastActivity: expect.any(String),
      }),
    ]);
  });

  it('counts the TLS layer when the request came over HTTPS through the trusted proxy', async () => {
    expect((await metrics({ 'x-forwarded-proto': 'https' })).metrics.encryptionLayers).toBe(3);
  });

  it('measures the response time of a ban: commit to the socket closed, as stored with the ban', async () => {
    const res = await creator().attempt(routes.creatorBan, { body: { userId: bob.id, reason: 'attack run' } }, creatorHeaders);
    expect(res.status).toBe(200);
    expect(await bobSocket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'banned' });
    const [audit] = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'member_banned'));
    expect(audit!.details).toMatchObject({ socketsClosed: 1, socketsClosedMs: expect.any(Number) });
    expect((await metrics()).metrics.responseTimeMs).toBe(audit!.details.socketsClosedMs);
  });

  it("records a banned member's attempts with the cookie of a session the ban revoked, on HTTP and the socket", async () => {
    expect((await bob.attempt(routes.users, {})).status).toBe(401);
    const socket = await bob.connect();
    expect(socket.frames).toContainEqual({ type: 'auth_failed', message: 'Not signed in' });
    const attempts = (await live()).filter((e) => e.type === 'banned_access' && e.userId === bob.id);
    expect(attempts.map((e) => e.details).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([
      { channel: 'socket' },
      { route: routes.users.path },
    ]);
  });

  it('keeps no token, key or plaintext in any row written, nor in any log line', async () => {
    // A session cookie presented on the public routes that read it (breach report, decoy).
    const login = await new TestMember.Anonymous(suite.server.url).attempt(routes.login, {
      body: { loginKey: await deriveLoginKey(alice.token) },
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const cookieToken = cookie.split('=')[1]!;
    expect(cookieToken.length).toBeGreaterThan(20);
    await new TestMember.Anonymous(suite.server.url).call(routes.decoyAuth, { body: { decoy: true } }, { cookie });
    secrets.push(cookieToken);
    const dump = JSON.stringify([
      await suite.database.db.select().from(securityEvents),
      await suite.database.db.select().from(sessions),
      await suite.database.db.select().from(blockedIps),
    ]);
    const logs = suite.server.logs.join('\n');
    for (const secret of secrets) {
      expect(dump.includes(secret), 'a secret in the rows').toBe(false);
      expect(logs.includes(secret), 'a secret in the log').toBe(false);
    }
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
