/**
 * Readiness (GET /api/ready) against real outages: Redis away at start (the instance serves and
 * says 503 "redis" until Redis answers, then subscribes), Redis stopped and back, PostgreSQL
 * stopped and back, each on private servers (faults/support/services.ts). The health check, the
 * liveness one, answers 200 throughout. And the check's own bounds: probes cached, a hanging one
 * never doubled, draining and refusing work reported.
 */
import os from 'node:os';
import { routes, type NotReadyReason } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plan, startPostgres, startRedis, type Postgres, type RedisServer } from '../../faults/support/services';
import { openDatabase, type Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { redisBus, type BusEvent } from '../realtime/bus';
import { backends, makeDatabase, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { WorkGate } from './overload';
import { Readiness } from './readiness';

/** The readiness answer: its status and reasons. */
async function ready(server: TestServer): Promise<{ status: number; reasons: NotReadyReason[] }> {
  const res = await fetch(server.url + routes.ready.path);
  const body = (await res.json()) as { ok: boolean; reasons?: NotReadyReason[] };
  return { status: res.status, reasons: body.reasons ?? [] };
}
const healthStatus = async (server: TestServer) => (await fetch(server.url + routes.healthGet.path)).status;
const poll = { timeout: 15_000, interval: 100 };

describe('the readiness check on its own', () => {
  it('asks each dependency at most once per cache period however often it is polled', async () => {
    let asked = 0;
    const readiness = new Readiness({ database: async () => (asked += 1) }, new WorkGate(4), { cacheMs: 60_000, timeoutMs: 1000 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => readiness.reasons()));
    await readiness.reasons();
    expect(answers.every((r) => r.length === 0)).toBe(true);
    expect(asked).toBe(1);
  });

  it('says a dependency that does not answer in time is unreachable, and never asks it again while it hangs', async () => {
    let asked = 0;
    let answer!: () => void;
    const readiness = new Readiness(
      // Hangs the first time only.
      { redis: () => ((asked += 1), asked === 1 ? new Promise<void>((resolve) => (answer = resolve)) : Promise.resolve()) },
      new WorkGate(4),
      { cacheMs: 0, timeoutMs: 20 },
    );
    expect(await readiness.reasons()).toEqual(['redis']);
    expect(await readiness.reasons()).toEqual(['redis']);
    expect(asked).toBe(1);
    answer();
    await expect.poll(() => readiness.reasons()).toEqual([]);
    expect(asked).toBe(2);
  });

  it('says draining, and degraded while the instance refuses work', async () => {
    const gate = new WorkGate(1);
    const readiness = new Readiness({}, gate);
    expect(gate.tryEnter()).toBe(true);
    expect(await readiness.reasons()).toEqual(['degraded']);
    gate.leave();
    readiness.draining = true;
    expect(await readiness.reasons()).toEqual(['draining']);
  });
});

const needsRedis = plan({ redis: true });

describe.runIf(needsRedis.run).each(backends)('the readiness check with Redis on %s', (backend) => {
  let redis: RedisServer;
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  const busErrors: unknown[] = [];
  const events: BusEvent[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    // Down before the instance starts: it must start all the same.
    await redis.stop();
    ({ database, drop } = await makeDatabase(backend));
    const bus = await redisBus(redis.url, `enclave-ready-${backend}`, (err) => busErrors.push(err));
    bus.subscribe((e) => events.push(e));
    server = await startServer(database, { bus, config: { redisUrl: redis.url } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
    await redis?.remove();
  });

  it('serves with Redis away at start and says 503 "redis" until it answers, then 200; again when Redis stops and returns', async () => {
    expect(await ready(server)).toEqual({ status: 503, reasons: ['redis'] });
    expect(await healthStatus(server)).toBe(200);
    // It serves: a member signs up and in (rate limits counted in memory meanwhile).
    const [key] = await mintKeys(database.db, { count: 1 });
    const alice = await TestMember.join(server.url, key!, `alice-ready-${backend}`);
    expect((await alice.attempt(routes.me, {})).status).toBe(200);
    // Told once, at warn, as JSON; the bus's connections, retrying meanwhile, report one failure each.
    const warned = server.logs
      .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string } })
      .filter((l) => l.msg.startsWith('Redis unreachable at start'));
    expect(warned.map((l) => [l.level, l.err?.message])).toEqual([[40, expect.stringContaining('ECONNREFUSED')]]);
    expect(busErrors).toHaveLength(2);

    await redis.start();
    await expect.poll(() => ready(server), poll).toEqual({ status: 200, reasons: [] });
    // Subscribed once Redis answered: whatever was published before is caught up.
    expect(events).toContainEqual({ kind: 'resync' });

    await redis.stop();
    await expect.poll(() => ready(server), poll).toEqual({ status: 503, reasons: ['redis'] });
    expect(await healthStatus(server)).toBe(200);
    await redis.start();
    await expect.poll(() => ready(server), poll).toEqual({ status: 200, reasons: [] });
  });
});

const needsPostgres = plan({ postgres: true });

describe.runIf(needsPostgres.run)('the readiness check with PostgreSQL stopped', () => {
  let postgres: Postgres;
  let database: Database;
  let server: TestServer;

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase('enclave_ready');
    database = await openDatabase({ databaseUrl: url, dataDir: os.tmpdir(), onPoolError: () => undefined });
    server = await startServer(database);
  });
  afterAll(async () => {
    await server?.close().catch(() => undefined);
    await database?.close();
    postgres?.remove();
  });

  it('says 503 "database" while PostgreSQL is down and 200 again once it is back; the health check stays 200', async () => {
    expect(await ready(server)).toEqual({ status: 200, reasons: [] });
    postgres.stop();
    await expect.poll(() => ready(server), poll).toEqual({ status: 503, reasons: ['database'] });
    expect(await healthStatus(server)).toBe(200);
    postgres.start();
    await expect.poll(() => ready(server), poll).toEqual({ status: 200, reasons: [] });
  });
});
