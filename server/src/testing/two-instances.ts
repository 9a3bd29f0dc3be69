/**
 * Two instances on one PostgreSQL database made for the test file, meeting through Redis: the
 * production shape of a scaled-out network.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { makeDatabase, startServer, type TestServer } from './harness';

export type TwoInstances = { readonly a: TestServer; readonly b: TestServer; readonly database: Database };

/**
 * Starts both before the tests of the calling `describe` and closes them (and drops the database)
 * after; read the fields inside the tests. Hooks registered after this call run before its close.
 */
export function twoInstances(config: Partial<Config> = {}): TwoInstances {
  const pair = {} as { a: TestServer; b: TestServer; database: Database; drop: () => Promise<void> };
  beforeAll(async () => {
    ({ database: pair.database, drop: pair.drop } = await makeDatabase('postgres'));
    pair.a = await startServer(pair.database, { redis: true, config });
    pair.b = await startServer(pair.database, { redis: true, config });
  });
  afterAll(async () => {
    // Each server's close also disconnects its Redis bus and its rate-limit connection.
    await pair.a?.close();
    await pair.b?.close();
    await pair.database?.close();
    await pair.drop?.();
  });
  return pair;
}
