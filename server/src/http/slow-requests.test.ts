/**
 * Slow clients cannot take the instance down (http/slow-requests.ts, http/overload.ts): 200
 * connections from one address that each send headers and 6 bytes of a 4,000-byte body hold no
 * place of the overload gate, so another address signs in, validates keys and reads the creator's
 * live events as usual; each slow body is answered 408 and its connection closed by the body
 * deadline, and counted as a security event (headers that never end: 408 from Node's timeout). Then the gate's own bounds: one address holds at most
 * its share of the places, and the health check says "degraded" while the gate refuses work for
 * want of a place, not when one address is refused its excess.
 */
import http from 'node:http';
import net from 'node:net';
import { routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../auth/sessions';
import { securityEvents } from '../db/schema';
import { eventsOf, flushSecurityEvents } from '../security/events';
import { backends, creatorHeaders, holdSessionReads, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { build } from '../version';

const ATTACKER = '127.0.0.2';
const SLOW_CONNECTIONS = 200;

/** A request that sends its headers and 6 bytes of the 4,000 its Content-Length promises, then nothing. */
const SLOW_BODY = `POST /api/decoy/auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"a":1`;
/** A request that sends part of its headers, then nothing. */
const SLOW_HEADERS = `POST /api/decoy/auth HTTP/1.1\r\nHost: 127.0.0.1\r\n`;

/** A connection from the attacker's address that sends `text` and then nothing; `closed`: what it got until closed. */
function slowRequest(port: number, text: string): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER }, () => {
      socket.write(text);
      resolve({ socket, closed });
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.once('error', reject);
  });
}

/** A request from `localAddress` with a session cookie no session has: the gate is taken for its session read. */
function fromAddress(port: number, localAddress: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, localAddress, path, headers: { cookie: `${SESSION_COOKIE}=not-a-session` }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe.each(backends)('slow requests and the per-address share (%s)', (backend) => {
  const suite = oneInstance(backend, {
    config: {
      rateLimits: relaxedRateLimits,
      maxInFlight: 8,
      // Headers get 2 s, a body 6 s whatever its length; the test's own arrive at once.
      requestLimits: { headersTimeoutMs: 2_000, bodyGraceMs: 6_000, minBodyBytesPerSecond: 1e9, degradedForMs: 1_000 },
    },
  });
  let port: number;
  let anyone: InstanceType<typeof TestMember.Anonymous>;
  const health = async () => {
    const reply = await anyone.request('GET', routes.healthGet.path);
    const head = await anyone.request('HEAD', routes.health.path);
    return { status: reply.status, body: reply.body, head: head.status };
  };

  beforeAll(() => {
    port = Number(new URL(suite.server.url).port);
    anyone = new TestMember.Anonymous(suite.server.url);
  });

  it('keeps answering another address while 200 slow bodies from one are open, then closes them with 408 and counts them', async () => {
    const slowHeaders = await slowRequest(port, SLOW_HEADERS);
    const slow = await Promise.all(Array.from({ length: SLOW_CONNECTIONS }, () => slowRequest(port, SLOW_BODY)));
    let closedCount = 0;
    for (const s of slow) void s.closed.then(() => (closedCount += 1));

    // Sign-in with a wrong key gets its own 401, not a 503; validation and the creator's routes answer.
    expect((await anyone.attempt(routes.login, { body: { loginKey: 'c'.repeat(64) } })).status).toBe(401);
    expect((await anyone.attempt(routes.validateKey, { body: { inviteKey: 'no-such-key' } })).status).toBe(200);
    expect((await anyone.attempt(routes.liveEvents, {}, creatorHeaders)).status).toBe(200);
    expect(await health()).toEqual({ status: 200, body: { ok: true, ...build }, head: 200 });
    // All of that while every slow connection was still open, none holding a place.
    expect(closedCount).toBe(0);
    expect(suite.server.app.gate.held).toBe(0);

    // Headers that never end are answered by Node's own timeout, in our error shape.
    expect(await slowHeaders.closed).toMatch(/^HTTP\/1\.1 408 [^]*"The request did not arrive in time"/);
    const answers = await Promise.all(slow.map((s) => s.closed));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    await flushSecurityEvents(suite.database.db);
    const rows = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'slow_request'));
    expect(rows.reduce((n, r) => n + eventsOf(r.details as Record<string, unknown>), 0)).toBe(SLOW_CONNECTIONS);
    expect(rows.every((r) => r.ip === ATTACKER && r.severity === 'low')).toBe(true);
    expect(rows[0]?.details).toMatchObject({ route: '/api/decoy/auth', declaredBytes: 4000 });
  });

  it('gives one address at most a quarter of the places, and says degraded only while the whole gate refuses work', async () => {
    const { gate } = suite.server.app;
    expect(gate.perAddress).toBe(2);
    // Every session read waits: a request that took its place stays in flight.
    const release = await holdSessionReads(suite.database);

    const hanging = [fromAddress(port, '127.0.0.3', routes.users.path), fromAddress(port, '127.0.0.3', routes.users.path)];
    await expect.poll(() => gate.held).toBe(2);
    // The address's third is refused at once; the instance is not degraded by one address's excess.
    expect(await fromAddress(port, '127.0.0.3', routes.users.path)).toBe(503);
    expect(await health()).toEqual({ status: 200, body: { ok: true, ...build }, head: 200 });

    for (const address of ['127.0.0.4', '127.0.0.5', '127.0.0.6']) {
      hanging.push(fromAddress(port, address, routes.users.path), fromAddress(port, address, routes.users.path));
    }
    await expect.poll(() => gate.held).toBe(8);
    const refused = await anyone.attempt(routes.validateKey, { body: { inviteKey: 'no-such-key' } });
    expect(refused.status).toBe(503);
    expect(await health()).toEqual({ status: 503, body: { ok: false, status: 'degraded', ...build }, head: 503 });

    await release();
    // The held requests are answered as usual (no such session), and the instance is healthy again.
    expect(await Promise.all(hanging)).toEqual(Array(8).fill(401));
    await expect.poll(health, { timeout: 10_000 }).toEqual({ status: 200, body: { ok: true, ...build }, head: 200 });
    expect((await anyone.attempt(routes.validateKey, { body: { inviteKey: 'no-such-key' } })).status).toBe(200);
  });
});
