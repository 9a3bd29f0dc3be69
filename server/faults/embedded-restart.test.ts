/**
 * One instance on the embedded database (PGlite in DATA_DIR), `kill -9` while every member sends,
 * then started again on the same port and directory. The sends of the outage are resent with
 * their client message ids until the instance answers; the sockets come back and catch up. What
 * was acknowledged before the kill survived it in the database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client';
import { messages } from '../src/db/schema';
import { expectEveryMessageOnce, joinAll, report, seed, sleep, startLoad, type LiveMember } from './support/chat';
import { assertBuilt, generateKeys, Instance, instanceEnv } from './support/instance';
import { freePort } from './support/services';

describe('kill -9 of an instance on the embedded database, and its restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-faults-embedded-'));
  // Sign-ups come from one address here: windows short enough not to stand in the way.
  const env = instanceEnv({ DATA_DIR: dataDir, RATE_LIMIT_WINDOW_MS: '100' });
  let port: number;
  let instance: Instance;
  let members: LiveMember[] = [];

  beforeAll(async () => {
    assertBuilt();
    port = await freePort();
    instance = await Instance.start(port, env);
    // Through the operator socket of the running server: it holds the database.
    members = await joinAll(instance.url, await generateKeys(env, 3), 'embedded');
    await seed(members);
  });
  afterAll(async () => {
    await Promise.all(members.map((m) => m.stop()));
    await instance?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged message across the crash; members reconnect and catch up, without gap or duplicate', async () => {
    const load = startLoad(members, 40);
    await sleep(1500);
    const killedAt = Date.now();
    await instance.kill();
    const acknowledgedBefore = members.reduce((n, m) => n + m.acked.size, 0);
    instance = await Instance.start(port, env);
    const downMs = Date.now() - killedAt;
    await sleep(2000);
    await load.stop();

    const tally = await expectEveryMessageOnce(members, async () => {
      // The database is the server's while it runs: stop it (SIGTERM), then read the rows.
      await Promise.all(members.map((m) => m.stop()));
      instance.signal('SIGTERM');
      expect((await instance.exited).code).toBe(0);
      const database = await openDatabase({ dataDir });
      try {
        return (await database.db.select({ id: messages.id }).from(messages).where(eq(messages.conversationId, GENERAL_CONVERSATION))).map(
          (r) => r.id,
        );
      } finally {
        await database.close();
      }
    });
    for (const m of members) {
      expect(m.closes.find((c) => c.at >= killedAt)?.code, `${m.name}'s socket was cut`).toBe(1006);
      expect(m.reconnects.length, `${m.name} reconnected`).toBeGreaterThanOrEqual(1);
    }
    expect(instance.errors()).toEqual([]);
    report('kill -9 and restart on the embedded database', {
      ...tally,
      acknowledgedBeforeKill: acknowledgedBefore,
      downMs,
      reconnectMs: members.map((m) => m.reconnects[0]),
    });
  });
});
