/**
 * Blocked addresses on the production path: two instances over one PostgreSQL database and the
 * Redis bus (docs/security.md §10). A block made on A is enforced by B through the bus, on HTTP
 * and on the socket upgrade; an unblock on A lets B serve again; blocks expire; and the creator's
 * master key is served from a blocked address, so that a mistaken block can always be undone.
 *
 * Both servers trust one proxy hop, so each caller picks its address with X-Forwarded-For.
 */
import { networkInterfaces } from 'node:os';
import { deriveLoginKey } from '@enclave/crypto';
import { closeCodes, errorTexts, routes } from '@enclave/protocol';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { backends, creatorHeaders, makeDatabase, redisEnabled, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { mintKeys } from '../keys/service';
import { oneInstance } from '../testing/one-instance';
import { TestMember, TestSocket } from '../testing/member';
import { activeBlocks, limitedAddress, normalizeIp, REFRESH_MS } from './blocks';

const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** The status of a socket upgrade from `ip`: 101 when it opened. */
const upgradeStatus = (server: TestServer, ip: string) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/ws`, { headers: from(ip) });
    ws.on('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
  });

/**
 * Waits until `probe` answers `want`. A block reaches the other instance through the bus: the wait
 * ends well before its periodic re-read (REFRESH_MS) could have brought it.
 */
const until = (probe: () => Promise<number>, want: number) => expect.poll(probe, { timeout: REFRESH_MS / 3, interval: 25 }).toBe(want);

describe('normalizeIp', () => {
  it('writes each address one way: IPv4-mapped IPv6 as IPv4, IPv6 canonical, nothing else', () => {
    expect(normalizeIp('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(normalizeIp('::FFFF:c633:6407')).toBe('198.51.100.7');
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp('198.51.100.7')).toBe('198.51.100.7');
    expect(normalizeIp('example.org')).toBeNull();
  });
});

describe('limitedAddress', () => {
  it('counts IPv4 per address and IPv6 per /64, however either is written', () => {
    expect(limitedAddress('198.51.100.7')).toBe('198.51.100.7');
    expect(limitedAddress('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(limitedAddress('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('2001:DB8:1:2:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(limitedAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});

describe.each(backends)('block-ip refuses addresses that would lock out the server (%s)', (backend) => {
  const suite = oneInstance(backend);
  const creator = () => new TestMember.Anonymous(suite.server.url);

  it('refuses loopback (IPv4, mapped, IPv6), the unspecified address and the server’s own addresses with 400, blocking nothing', async () => {
    const [member] = await suite.members('after-refusals');
    const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).filter((i) => !i.internal).map((i) => i.address));
    const cases = [
      ['::ffff:127.0.0.1', /^ip: 127\.0\.0\.1 is a loopback address: blocking it would refuse every member/],
      ['127.0.0.1', /loopback/],
      ['127.8.9.10', /loopback/],
      ['::1', /^ip: ::1 is a loopback address/],
      ['0:0:0:0:0:0:0:1', /^ip: ::1 is a loopback address/],
      ['0.0.0.0', /^ip: 0\.0\.0\.0 is the unspecified address/],
      ['::', /^ip: :: is the unspecified address/],
      ...own.map((ip) => [ip, /is this server's own address/] as const),
    ] as const;
    for (const [ip, text] of cases) {
      const res = await creator().attempt(routes.blockIp, { body: { ip, reason: 'by mistake' } }, creatorHeaders);
      expect([res.status, res.error], ip).toEqual([400, { error: expect.stringMatching(text), code: 'invalid_request' }]);
    }
    expect(await activeBlocks(suite.database.db)).toEqual([]);
    expect((await member!.attempt(routes.me, {})).status).toBe(200);
    // Any other address is blocked as before.
    expect((await creator().attempt(routes.blockIp, { body: { ip: '198.51.100.77', reason: 'abuse' } }, creatorHeaders)).status).toBe(200);
    expect((await activeBlocks(suite.database.db)).map((b) => b.ip)).toEqual(['198.51.100.77']);
  });
});

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('blocked addresses on two instances over PostgreSQL and Redis', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let a: TestServer;
  let b: TestServer;
  const config = { trustProxy: { hops: 1 }, rateLimits: relaxedRateLimits };

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('postgres'));
    a = await startServer(database, { redis: true, config });
    b = await startServer(database, { redis: true, config });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.close();
    await drop?.();
  });

  const creatorOn = (s: TestServer) => new TestMember.Anonymous(s.url);
  const health = (s: TestServer, ip: string) => async () =>
    (await new TestMember.Anonymous(s.url).request('HEAD', routes.health.path, undefined, from(ip))).status;

  it('a block on A is enforced by B through the bus, on HTTP and the socket upgrade; an unblock on A lets B serve again', async () => {
    const ip = '198.51.100.20';
    expect(await health(b, ip)()).toBe(200);
    expect(await upgradeStatus(b, ip)).toBe(101);

    await creatorOn(a).call(routes.blockIp, { body: { ip, reason: 'two instances' } }, creatorHeaders);
    await until(health(b, ip), 403);
    const refused = await new TestMember.Anonymous(b.url).request('GET', routes.users.path, undefined, from(ip));
    expect(refused.body).toEqual({ error: errorTexts.ipBlocked, code: 'ip_blocked' });
    expect(await upgradeStatus(b, ip)).toBe(403);
    // Other addresses are served as ever.
    expect(await health(b, '198.51.100.21')()).toBe(200);

    await creatorOn(a).call(routes.unblockIp, { body: { ip } }, creatorHeaders);
    await until(health(b, ip), 200);
    expect(await upgradeStatus(b, ip)).toBe(101);
  });

  it("closes a member's socket on B opened from an address blocked afterwards on A; the session lives on", async () => {
    const ip = '198.51.100.25';
    const [key] = await mintKeys(database.db, { count: 1 });
    const member = await TestMember.join(b.url, key!, 'open-socket');
    const login = await new TestMember.Anonymous(b.url).attempt(
      routes.login,
      { body: { loginKey: await deriveLoginKey(member.token) } },
      from(ip),
    );
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    // The socket's upgrade comes from the address about to be blocked.
    const socket = new TestSocket(`${b.url.replace(/^http/, 'ws')}/ws`, cookie, [], from(ip));
    await socket.opened;
    socket.send({ type: 'authenticate' });
    await socket.waitFor((f) => f.type === 'authenticated');
    await creatorOn(a).call(routes.blockIp, { body: { ip, reason: 'open socket' } }, creatorHeaders);
    expect((await socket.closed).code).toBe(closeCodes.addressBlocked);
    expect(socket.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
    await creatorOn(a).call(routes.unblockIp, { body: { ip } }, creatorHeaders);
    expect((await member.attempt(routes.me, {})).status).toBe(200);
  });

  it('counts the hits refused on either instance', async () => {
    const ip = '198.51.100.30';
    await creatorOn(a).call(routes.blockIp, { body: { ip, reason: 'hits' } }, creatorHeaders);
    await until(health(b, ip), 403);
    expect(await health(a, ip)()).toBe(403);
    await b.app.blocks.flushHits();
    const listed = (await creatorOn(a).call(routes.blockedIps, {}, creatorHeaders)).blocked.find((x) => x.ip === ip);
    expect(listed?.hits).toBe(2);
    await creatorOn(a).call(routes.unblockIp, { body: { ip } }, creatorHeaders);
  });

  it('a block with an expiry stops applying when it expires', async () => {
    const ip = '198.51.100.40';
    const { block } = await creatorOn(a).call(routes.blockIp, { body: { ip, reason: 'a minute', expiresInMinutes: 1 } }, creatorHeaders);
    const expiry = new Date(block.expiresAt!).getTime();
    expect(expiry - Date.now()).toBeGreaterThan(55_000);
    await until(health(b, ip), 403);
    // Just before and after its expiry, as each instance's set and the table see it.
    expect(b.app.blocks.isBlocked(ip, expiry - 1)).toBe(true);
    expect(b.app.blocks.isBlocked(ip, expiry + 1)).toBe(false);
    expect((await activeBlocks(database.db, new Date(expiry + 1))).map((x) => x.ip)).not.toContain(ip);
    await creatorOn(a).call(routes.unblockIp, { body: { ip } }, creatorHeaders);
  });

  it('serves the creator from a blocked address, who can then unblock it; a wrong key is refused as the block', async () => {
    const ip = '198.51.100.50';
    await creatorOn(a).call(routes.blockIp, { body: { ip, reason: 'my own address, by mistake' } }, creatorHeaders);
    await until(health(b, ip), 403);
    const wrong = await new TestMember.Anonymous(b.url).request('GET', routes.blockedIps.path, undefined, {
      ...from(ip),
      authorization: `SuperAdmin ${'cd'.repeat(64)}`,
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: errorTexts.ipBlocked, code: 'ip_blocked' });

    const listed = await creatorOn(b).call(routes.blockedIps, {}, { ...creatorHeaders, ...from(ip) });
    expect(listed.blocked.map((x) => x.ip)).toContain(ip);
    await creatorOn(b).call(routes.unblockIp, { body: { ip } }, { ...creatorHeaders, ...from(ip) });
    await until(health(a, ip), 200);
    const events = (await creatorOn(a).call(routes.liveEvents, {}, creatorHeaders)).events;
    expect(events.find((e) => e.type === 'blocked_ip_creator_access' && e.ipAnalysis.clientIP === ip)).toMatchObject({
      severity: 'low',
      count: 2,
    });
    expect(events.find((e) => e.type === 'master_key_failed' && e.ipAnalysis.clientIP === ip)).toMatchObject({
      severity: 'high',
      count: 1,
    });
  });

  it('answers 404 to unblocking an address that is not blocked', async () => {
    const res = await creatorOn(a).attempt(routes.unblockIp, { body: { ip: '198.51.100.99' } }, creatorHeaders);
    expect(res.status).toBe(404);
  });

  it('logged no error on either instance', () => {
    for (const s of [a, b]) expect(s.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
