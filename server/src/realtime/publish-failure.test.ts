/**
 * News of what is already committed never fails the request that committed it: with every publish
 * failing (Redis away), sign-up, role change, ban, unban and logout are answered as usual, and
 * each failure is logged. Members catch up once the bus is back (resync.test.ts).
 */
import { Writable } from 'node:stream';
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app';
import { ensureMasterKey } from '../creator/master-key';
import type { Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { creatorHeaders, makeDatabase, relaxedRateLimits, TEST_MASTER_KEY, testConfig } from '../testing/harness';
import { TestMember } from '../testing/member';
import { memoryBus, type Bus } from './bus';

describe('a failed publish after a commit', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let app: App;
  let url: string;
  const logs: string[] = [];

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    const bus: Bus = {
      ...memoryBus(),
      publish: async () => {
        throw new Error('bus unavailable');
      },
    };
    const config = testConfig({ rateLimits: relaxedRateLimits });
    const { hash } = await ensureMasterKey(database.db, { masterKey: TEST_MASTER_KEY, dataDir: config.dataDir });
    const logStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    });
    app = await buildApp({ config, db: database.db, bus, masterKeyHash: hash, logStream });
    url = await app.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await drop?.();
  });

  it('answers sign-up, role change, ban, unban and logout as usual, and logs each failure', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const alice = await TestMember.join(url, k1!, 'alice-nobus');
    const bob = await TestMember.join(url, k2!, 'bob-nobus');
    const creator = new TestMember.Anonymous(url);
    expect((await creator.attempt(routes.setRole, { body: { userId: alice.id, role: 'admin' } }, creatorHeaders)).status).toBe(200);
    expect((await alice.attempt(routes.adminBan, { body: { userId: bob.id, reason: 'test' } })).status).toBe(200);
    expect((await alice.attempt(routes.adminUnban, { body: { userId: bob.id } })).status).toBe(200);
    expect((await alice.attempt(routes.logout, {})).status).toBe(200);
    expect((await alice.attempt(routes.me, {})).status).toBe(401);
    expect(logs.filter((l) => l.includes('could not publish on the bus after a commit')).length).toBeGreaterThanOrEqual(6);
    expect(logs.filter((l) => l.includes('"statusCode":500'))).toEqual([]);
  });
});
