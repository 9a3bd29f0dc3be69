/**
 * A `resync` from the bus (frames may have been lost while Redis was away): every open socket is
 * told to catch up with an `authenticated` frame, and a socket whose session ended meanwhile (its
 * `end_sessions` may be among what was lost) is closed instead.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app';
import { ensureMasterKey } from '../creator/master-key';
import type { Database } from '../db/client';
import { users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { makeDatabase, relaxedRateLimits, TEST_MASTER_KEY, testConfig } from '../testing/harness';
import { TestMember } from '../testing/member';
import { memoryBus } from './bus';
import { CLOSE_SESSION_ENDED } from './gateway';

describe('resync after a gap on the bus', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let app: App;
  let url: string;
  const bus = memoryBus();

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
    const config = testConfig({ rateLimits: relaxedRateLimits });
    const { hash } = await ensureMasterKey(database.db, { masterKey: TEST_MASTER_KEY, dataDir: config.dataDir });
    app = await buildApp({ config, db: database.db, bus, masterKeyHash: hash });
    url = await app.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await drop?.();
  });

  it('asks every open socket to catch up, and closes those whose session ended meanwhile', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const alice = await TestMember.join(url, k1!, 'alice-resync');
    const bob = await TestMember.join(url, k2!, 'bob-resync');
    const [aliceSocket, bobSocket] = [await alice.connect(), await bob.connect()];
    // Bob is banned, and the frame that would have closed his socket is lost.
    await database.db.update(users).set({ isBanned: true }).where(eq(users.id, bob.id));

    await bus.publish({ kind: 'resync' });
    await expect.poll(() => aliceSocket.frames.filter((f) => f.type === 'authenticated')).toHaveLength(2);
    expect(await bobSocket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
    expect((await bobSocket.closed).code).toBe(CLOSE_SESSION_ENDED);
    expect(bobSocket.frames.filter((f) => f.type === 'authenticated')).toHaveLength(1);
    aliceSocket.close();
  });
});
