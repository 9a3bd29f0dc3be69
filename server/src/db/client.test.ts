import os from 'node:os';
import { errorTexts, routes } from '@enclave/protocol';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, makeDatabase, POSTGRES_ADMIN_URL, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { openDatabase, type Database } from './client';
import { rowsOf } from './rows';

describe.runIf(backends.includes('postgres'))('PostgreSQL connections ended under the server', () => {
  let database: Database;
  let url: string;
  let drop: () => Promise<void>;
  let server: TestServer;
  const poolErrors: Error[] = [];

  beforeAll(async () => {
    const made = await makeDatabase('postgres', { onPoolError: (err) => poolErrors.push(err) });
    ({ database, drop } = made);
    url = made.url!;
    server = await startServer(database);
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
  });

  it('reports idle connections that PostgreSQL ends, and serves the next request on a new one', async () => {
    const anon = new TestMember.Anonymous(server.url);
    const validate = () => anon.call(routes.validateKey, { body: { inviteKey: 'a'.repeat(64) } });
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 4 }, validate));
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    const { rows } = await admin.query<{ ended: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [new URL(url).pathname.slice(1)],
    );
    await admin.end();
    expect(rows.length).toBeGreaterThan(0);
    // Every ended connection was idle in this pool (the database is this test's own).
    await expect.poll(() => poolErrors.length).toBe(rows.length);
    expect(poolErrors.every((e) => 'code' in e && e.code === '57P01')).toBe(true);
    // The process is still up, and the next request is served on a fresh connection.
    expect(await validate()).toMatchObject({ valid: false, reason: errorTexts.keyUnknown });
  });
});

describe.runIf(backends.includes('postgres'))('DATABASE_POOL_MAX', () => {
  it('bounds the connections an instance opens: queries beyond it wait their turn', async () => {
    const made = await makeDatabase('postgres');
    const database = await openDatabase({ databaseUrl: made.url!, dataDir: os.tmpdir(), databasePoolMax: 3 });
    try {
      const pids = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const result = await database.db.execute(sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.1)`);
          return rowsOf(result, z.object({ pid: z.number().int() }))[0]!.pid;
        }),
      );
      expect(new Set(pids).size).toBe(3);
    } finally {
      await database.close();
      await made.database.close();
      await made.drop();
    }
  });
});
