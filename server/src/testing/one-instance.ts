/**
 * One server over a database made for the test file: the shape of most integration suites (two
 * instances meeting through Redis: two-instances.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { makeDatabase, startServer, type Backend, type ServerOptions, type TestServer } from './harness';
import { TestMember } from './member';

export type OneInstance = {
  readonly server: TestServer;
  readonly database: Database;
  /** Signs up a member per name, one after the other, each with a key minted for them. */
  members<N extends string[]>(...names: N): Promise<{ [K in keyof N]: TestMember }>;
};

/**
 * Starts it before the tests of the calling `describe` and closes it (and drops the database)
 * after; read the fields inside hooks and tests. Hooks registered after this call run after its
 * start and before its close.
 */
export function oneInstance(backend: Backend, opts: ServerOptions & { onQuery?: (query: string) => void } = {}): OneInstance {
  const one = {
    async members(...names: string[]) {
      const keys = await mintKeys(one.database.db, { count: names.length });
      const joined: TestMember[] = [];
      for (const [i, name] of names.entries()) joined.push(await TestMember.join(one.server.url, keys[i]!, name));
      return joined;
    },
  } as { server: TestServer; database: Database; drop: () => Promise<void> } & Pick<OneInstance, 'members'>;
  beforeAll(async () => {
    ({ database: one.database, drop: one.drop } = await makeDatabase(backend, { onQuery: opts.onQuery }));
    one.server = await startServer(one.database, opts);
  });
  afterAll(async () => {
    await one.server?.close();
    await one.database?.close();
    await one.drop?.();
  });
  return one;
}
