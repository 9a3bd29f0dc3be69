/**
 * Behind a reverse proxy (TRUST_PROXY, docs/operations.md §5): only the hops the operator trusts
 * are believed. The tests play the proxy: the server's peer is 127.0.0.1, and each request carries
 * the headers a proxy that appends (`$proxy_add_x_forwarded_for`) would pass on.
 */
import { randomBytes } from 'node:crypto';
import { deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { limits, routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import type { Database } from '../db/client';
import { securityEvents } from '../db/schema';
import { mintKeys } from '../keys/service';
import { creatorHeaders, makeDatabase, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';

describe('TRUST_PROXY', () => {
  let database: Database;
  let drop: () => Promise<void>;
  /** TRUST_PROXY=1: the peer (127.0.0.1) is the one trusted proxy. */
  let oneHop: TestServer;
  /** TRUST_PROXY=127.0.0.1: the peer is trusted by address. */
  let byAddress: TestServer;
  /** TRUST_PROXY=10.9.9.9: the peer is not the trusted proxy, so nothing forwarded is believed. */
  let otherProxy: TestServer;
  let alice: TestMember;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    const start = (TRUST_PROXY: string) => startServer(database, { config: { trustProxy: loadConfig({ TRUST_PROXY }).trustProxy } });
    oneHop = await start('1');
    byAddress = await start('127.0.0.1');
    otherProxy = await start('10.9.9.9');
    alice = await TestMember.join(oneHop.url, (await mintKeys(database.db, { count: 1 }))[0]!, 'alice');
  });
  afterAll(async () => {
    await oneHop?.close();
    await byAddress?.close();
    await otherProxy?.close();
    await database?.close();
    await drop?.();
  });

  const wrongLogin = async (server: TestServer, headers: Record<string, string>) =>
    (
      await new TestMember.Anonymous(server.url).attempt(
        routes.login,
        { body: { loginKey: await deriveLoginKey(generateAccessToken()) } },
        headers,
      )
    ).status;

  it.each([
    ['a hop count of 1', () => oneHop, '203.0.113.7'],
    ['the proxy by address', () => byAddress, '203.0.113.9'],
  ])(
    'with %s, a spoofed left-most X-Forwarded-For entry does not change the address: the login limit holds',
    async (_name, server, client) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        // The client wrote its own header; the proxy appended the address it really saw.
        statuses.push(await wrongLogin(server(), { 'x-forwarded-for': `198.51.100.${i + 1}, ${client}` }));
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      // Another client behind the same proxy is counted apart: the address is the client's, not the proxy's.
      expect(await wrongLogin(server(), { 'x-forwarded-for': '198.51.100.1, 203.0.113.200' })).toBe(401);
      const events = await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'login_failed'));
      expect(new Set(events.map((e) => e.ip))).not.toContain('198.51.100.1');
      expect(events.map((e) => e.ip)).toContain(client);
    },
  );

  it('counts wrong tokens from IPv6 clients per /64: moving within it buys no more guesses', async () => {
    const wrongFrom = async (ip: string, browserId?: string) =>
      (
        await new TestMember.Anonymous(oneHop.url).attempt(
          routes.login,
          { body: { loginKey: await deriveLoginKey(generateAccessToken()), ...(browserId ? { browserId } : {}) } },
          { 'x-forwarded-for': ip },
        )
      ).status;
    // A client without a browser id: its five are the /64's, whichever address of it they come from.
    const anonymous: number[] = [];
    for (let i = 0; i < limits.loginAttempts + 1; i++) anonymous.push(await wrongFrom(`2001:db8:a:1::${i % 2 ? 'ffff:1' : '1'}`));
    expect(anonymous).toEqual([...Array<number>(limits.loginAttempts).fill(401), 429]);
    // With fresh browser ids: the address limit holds for the /64 as a whole.
    const fresh: number[] = [];
    for (let i = 0; i < limits.loginFailuresPerAddress + 1; i++) {
      fresh.push(await wrongFrom(`2001:db8:b:1:${i % 2 ? '1234:5678:9abc:def0' : '0:0:0:1'}`, randomBytes(16).toString('hex')));
    }
    expect(fresh).toEqual([...Array<number>(limits.loginFailuresPerAddress).fill(401), 429]);
    // The next /64 is another network.
    expect(await wrongFrom('2001:db8:b:2::1', randomBytes(16).toString('hex'))).toBe(401);
  });

  it('does not take forwarded headers from a peer that is not the trusted proxy', async () => {
    await database.db.delete(securityEvents);
    expect(await wrongLogin(otherProxy, { 'x-forwarded-for': '203.0.113.50' })).toBe(401);
    const [event] = await database.db.select().from(securityEvents).where(eq(securityEvents.type, 'login_failed'));
    expect(event?.ip).toBe('127.0.0.1');
  });

  const login = async (server: TestServer, proto: string) => {
    const res = await new TestMember.Anonymous(server.url).request(
      'POST',
      routes.login.path,
      { loginKey: await deriveLoginKey(alice.token) },
      { 'x-forwarded-proto': proto, 'x-forwarded-for': '203.0.113.20' },
    );
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie') ?? '';
  };
  const httpsCheck = async (server: TestServer, proto: string) => {
    const res = await new TestMember.Anonymous(server.url).call(routes.compliance, {}, { ...creatorHeaders, 'x-forwarded-proto': proto });
    return res.checks.find((c) => c.name === 'HTTPS in front')?.status;
  };

  it('believes X-Forwarded-Proto only as the trusted hop wrote it', async () => {
    // The proxy says https: the cookie is Secure and the console sees HTTPS in front.
    expect(await login(oneHop, 'https')).toMatch(/; Secure/i);
    expect(await httpsCheck(oneHop, 'https')).toBe('compliant');
    // The client claimed https, the proxy appended what it saw (http): not believed.
    expect(await login(oneHop, 'https, http')).not.toMatch(/; Secure/i);
    expect(await httpsCheck(oneHop, 'https, http')).toBe('non_compliant');
    expect(await login(byAddress, 'https, http')).not.toMatch(/; Secure/i);
    // A peer that is not the trusted proxy is not believed at all.
    expect(await login(otherProxy, 'https')).not.toMatch(/; Secure/i);
    expect(await httpsCheck(otherProxy, 'https')).toBe('non_compliant');
  });

  it('sends Strict-Transport-Security only on answers to HTTPS requests', async () => {
    const hsts = async (server: TestServer, headers: Record<string, string>) =>
      (await fetch(`${server.url}${routes.health.path}`, { headers })).headers.get('strict-transport-security');
    expect(await hsts(oneHop, { 'x-forwarded-proto': 'https' })).toBe('max-age=31536000; includeSubDomains');
    expect(await hsts(byAddress, { 'x-forwarded-proto': 'https' })).toBe('max-age=31536000; includeSubDomains');
    // Plain HTTP behind the trusted proxy, or a claim the trusted hop did not make: none.
    expect(await hsts(oneHop, { 'x-forwarded-proto': 'http' })).toBeNull();
    expect(await hsts(oneHop, {})).toBeNull();
    expect(await hsts(oneHop, { 'x-forwarded-proto': 'https, http' })).toBeNull();
    expect(await hsts(otherProxy, { 'x-forwarded-proto': 'https' })).toBeNull();
    // The console's header check asks as the creator's request came: over HTTPS, HSTS is found.
    const headersCheck = async (proto: string) =>
      (
        await new TestMember.Anonymous(oneHop.url).call(routes.compliance, {}, { ...creatorHeaders, 'x-forwarded-proto': proto })
      ).checks.find((c) => c.name === 'Security headers served');
    expect(await headersCheck('https')).toMatchObject({ status: 'compliant' });
    expect(await headersCheck('http')).toMatchObject({ status: 'compliant' });
  });
});
