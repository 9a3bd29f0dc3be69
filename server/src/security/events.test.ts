/**
 * Security events cannot be used to fill the database (docs/security.md §10): repeats of an event
 * from one source coalesce into one row with a count, a socket authenticates once and a closed one
 * processes nothing, and the creator's panels count events, not rows.
 */
import http from 'node:http';
import os from 'node:os';
import { closeCodes, heatmapSchema, riskSchema, routes } from '@enclave/protocol';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db/client';
import { securityEvents } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';
import { MAX_WRITES_PER_SOURCE } from './events';

/** Rows and the events they stand for (a row without a count is one event). */
async function tally(database: Database, type: string, ip?: string) {
  const [row] = await database.db
    .select({ rows: count(), events: sql<number>`coalesce(sum(coalesce((${securityEvents.details}->>'count')::int, 1)), 0)::int` })
    .from(securityEvents)
    .where(and(eq(securityEvents.type, type), ip ? eq(securityEvents.ip, ip) : undefined));
  return { rows: row?.rows ?? 0, events: row?.events ?? 0 };
}

/** A wrong login from a chosen loopback address (Linux routes all of 127/8 to the server on 127.0.0.1). */
function wrongLogin(url: string, localAddress: string): Promise<number> {
  const body = JSON.stringify({ loginKey: 'd'.repeat(64) });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url + routes.login.path,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('security events are coalesced per source', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  let running = false;
  /** Closing the server writes the repeats it held in memory. */
  const stop = async () => {
    if (running) await server.close();
    running = false;
  };

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
  });
  beforeEach(async () => {
    await stop();
    await database.db.delete(securityEvents);
    // The default limits: the login limit (5 a minute per address) is part of what is tested.
    server = await startServer(database);
    running = true;
  });
  afterAll(async () => {
    await stop();
    await database?.close();
    await drop?.();
  });

  it('200 authenticate frames without a session: one attempt, one row, nothing after the close', async () => {
    const socket = new TestSocket(server.url.replace('http', 'ws') + '/ws', '', []);
    await socket.opened;
    for (let i = 0; i < 200; i++) socket.send({ type: 'authenticate' });
    expect((await socket.closed).code).toBe(closeCodes.authFailed);
    // Repeats are dropped as they arrive, and the one attempt's row is written before its
    // auth_failed: a write any repeat began would be queued ahead of the tally on the one connection.
    await stop();
    expect(socket.frames.filter((f) => f.type === 'auth_failed')).toHaveLength(1);
    expect(await tally(database, 'websocket_auth_failed')).toEqual({ rows: 1, events: 1 });
  });

  it('an authenticated socket ignores a second authenticate (no-op)', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const member = await TestMember.join(server.url, key!, 'once');
    const socket = await member.connect();
    for (let i = 0; i < 20; i++) socket.send({ type: 'authenticate' });
    socket.send({ type: 'ping' });
    await socket.waitFor((f) => f.type === 'pong');
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    socket.close();
    expect((await database.db.select({ n: count() }).from(securityEvents))[0]?.n).toBe(0);
  });

  it('300 wrong logins from one address: 429 after 5, a bounded number of rows, every attempt counted', async () => {
    const statuses: number[] = [];
    // In concurrent bursts: the rows are shared by concurrent writers, never duplicated.
    for (let i = 0; i < 300; i += 20) {
      statuses.push(...(await Promise.all(Array.from({ length: 20 }, () => wrongLogin(server.url, '127.0.0.1')))));
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(295);
    // While the flood went on: one row per kind of event, and no more database writes than the
    // bound per source (each write adds one event; the rest are held in memory).
    const [during] = await database.db.select({ n: count() }).from(securityEvents).where(eq(securityEvents.ip, '127.0.0.1'));
    expect(during?.n).toBeLessThanOrEqual(2);
    const written = (await tally(database, 'login_failed')).events + (await tally(database, 'rate_limit')).events;
    expect(written).toBe(MAX_WRITES_PER_SOURCE);
    // Closing the server writes what it held back; the counts then add up to what it saw.
    await stop();
    const failed = await tally(database, 'login_failed', '127.0.0.1');
    const limited = await tally(database, 'rate_limit', '127.0.0.1');
    expect(failed).toEqual({ rows: 1, events: 5 });
    expect(limited.rows).toBeLessThanOrEqual(2);
    expect(limited.events).toBe(295);
    const [all] = await database.db.select({ n: count() }).from(securityEvents);
    expect(all?.n).toBeLessThanOrEqual(3);
  });

  it('keeps two sources apart', async () => {
    const statuses = await Promise.all(
      ['127.0.0.1', '127.0.0.2'].flatMap((address) => Array.from({ length: 3 }, () => wrongLogin(server.url, address))),
    );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await tally(database, 'login_failed', '127.0.0.1')).toEqual({ rows: 1, events: 3 });
    expect(await tally(database, 'login_failed', '127.0.0.2')).toEqual({ rows: 1, events: 3 });
  });

  it('the heatmap and risk panels count events, not rows', async () => {
    for (let i = 0; i < 40; i++) await wrongLogin(server.url, '127.0.0.3');
    const creator = new TestMember.Anonymous(server.url);
    const map = heatmapSchema.parse((await creator.request('GET', routes.heatmap.path, undefined, creatorHeaders)).body);
    const byType = Object.fromEntries(map.cells.map((c) => [c.type, c.count]));
    expect(byType).toEqual({ login_failed: 5, rate_limit: 35 });
    const risk = riskSchema.parse((await creator.request('GET', routes.risk.path, undefined, creatorHeaders)).body);
    // Both are medium (3 points), scored per event.
    expect(risk.ips).toEqual([expect.objectContaining({ ip: '127.0.0.3', events: 40, score: 120, worst: 'medium' })]);
  });

  it('a wrong master key still counts towards its limit: 5, then 429', async () => {
    const caller = new TestMember.Anonymous(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(
        (await caller.request('GET', routes.overview.path, undefined, { authorization: `SuperAdmin ${'ef'.repeat(64)}` })).status,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429, 429]);
    expect(await tally(database, 'master_key_failed')).toEqual({ rows: 1, events: 5 });
    expect((await caller.request('GET', routes.overview.path, undefined, creatorHeaders)).status).toBe(200);
  });
});

// Two servers over one PostgreSQL database, each with its own connection pool, as two instances.
describe.skipIf(!backends.includes('postgres'))('security events from two instances (postgres)', () => {
  let first: Database;
  let second: Database;
  let drop: () => Promise<void>;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    const made = await makeDatabase('postgres');
    ({ database: first, drop } = made);
    if (!made.url) throw new Error('no database url');
    second = await openDatabase({ databaseUrl: made.url, dataDir: os.tmpdir() });
    a = await startServer(first, { config: { rateLimits: relaxedRateLimits } });
    b = await startServer(second, { config: { rateLimits: relaxedRateLimits } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await first?.close();
    await second?.close();
    await drop?.();
  });

  it('concurrent repeats on both instances make one row, and every one is counted', async () => {
    const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => wrongLogin((i % 2 ? a : b).url, '127.0.0.1')));
    expect(statuses.every((s) => s === 401)).toBe(true);
    expect(await tally(first, 'login_failed', '127.0.0.1')).toEqual({ rows: 1, events: 60 });
  });
});
