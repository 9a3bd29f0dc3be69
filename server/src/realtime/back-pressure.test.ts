/**
 * A socket that cannot keep up is closed with 1013 "try again later" once MAX_BUFFERED_BYTES are
 * queued for it, instead of the server buffering without limit; its client comes back and catches
 * up from history (web/src/net/socket.ts reconnects after any close). The others are not held up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app';
import { ensureMasterKey } from '../creator/master-key';
import type { Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { makeDatabase, relaxedRateLimits, TEST_MASTER_KEY, testConfig } from '../testing/harness';
import { TestMember } from '../testing/member';
import { memoryBus } from './bus';
import { CLOSE_TRY_AGAIN_LATER, MAX_BUFFERED_BYTES } from './gateway';

describe('back-pressure per socket', () => {
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

  it('closes a socket that stopped reading with 1013 and keeps sending to the others', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const slow = await TestMember.join(url, k1!, 'slow-reader');
    const fast = await TestMember.join(url, k2!, 'fast-reader');
    const [slowSocket, fastSocket] = [await slow.connect(), await fast.connect()];
    // The slow client stops reading: what the server sends piles up in the kernel, then in ws.
    slowSocket.ws.pause();
    const frame = { type: 'error' as const, message: 'x'.repeat(64 * 1024) };
    // Far more than the bound and whatever the kernel's buffers on loopback take.
    const count = Math.ceil((32 * 1024 * 1024) / frame.message.length);
    expect(count * frame.message.length).toBeGreaterThan(8 * MAX_BUFFERED_BYTES);
    // The server gives a closing socket CLOSE_WAIT_MS to answer before terminating it (1006): the
    // slow client reads again as soon as its close is under way, not after the whole burst, which
    // on a loaded machine takes longer than that.
    const closing = () => [...app.app.websocketServer.clients].some((c) => c.readyState === c.CLOSING);
    for (let i = 0; i < count; i++) {
      await bus.publish({ kind: 'deliver', to: 'all', frame });
      if (slowSocket.ws.isPaused && closing()) slowSocket.ws.resume();
      // Client and server share this process: let the reading client read.
      await new Promise((r) => setImmediate(r));
    }
    slowSocket.ws.resume();

    expect((await slowSocket.closed).code).toBe(CLOSE_TRY_AGAIN_LATER);
    expect(slowSocket.frames.filter((f) => f.type === 'error').length).toBeLessThan(count);
    await expect.poll(() => fastSocket.frames.filter((f) => f.type === 'error').length).toBe(count);
    fastSocket.close();
  });
});
