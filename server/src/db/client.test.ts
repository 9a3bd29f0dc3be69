import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from './schema';
import { backends, makeDatabase, POSTGRES_ADMIN_URL } from '../testing/harness';
import type { Database } from './client';

describe.runIf(backends.includes('postgres'))('PostgreSQL connections ended under the server', () => {
  let database: Database;
  let url: string;
  let drop: () => Promise<void>;
  const poolErrors: Error[] = [];

  beforeAll(async () => {
    const made = await makeDatabase('postgres', { onPoolError: (err) => poolErrors.push(err) });
    ({ database, drop } = made);
    url = made.url!;
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('reports idle connections that PostgreSQL ends, and serves the next query on a new one', async () => {
    // Fill the pool with idle connections.
    await Promise.all(Array.from({ length: 4 }, () => database.db.select().from(users)));
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    const { rows } = await admin.query<{ ended: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [new URL(url).pathname.slice(1)],
    );
    await admin.end();
    expect(rows.length).toBeGreaterThan(0);
    await expect.poll(() => poolErrors.length).toBeGreaterThan(0);
    expect(poolErrors.every((e) => 'code' in e && e.code === '57P01')).toBe(true);
    expect(await database.db.select().from(users)).toEqual([]);
  });
});
