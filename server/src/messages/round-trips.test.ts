/**
 * The hot paths' database round trips, counted (docs/scaling.md): a figure that the load on the
 * machine does not move. A send is the session read of the access check and one insert; a
 * socket authenticates with one read. Counted through Drizzle's query log, which sees every
 * statement the server sends (on PGlite a transaction's own BEGIN and COMMIT are PGlite's and not
 * seen, but none of these paths opens one).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe.each(backends)('round trips to the database (%s)', (backend) => {
  /** Statements sent while `counting`. */
  let counting = false;
  const statements: string[] = [];
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits }, onQuery: (query) => counting && statements.push(query) });
  let alice: TestMember;
  let bob: TestMember;

  beforeAll(async () => {
    [alice, bob] = await suite.members('alice', 'bob');
  });

  /** The statements `action` caused, presence's own writes and reads (per tick, not per socket) left out. */
  async function countedDuring(action: () => Promise<unknown>): Promise<string[]> {
    statements.length = 0;
    counting = true;
    try {
      await action();
    } finally {
      counting = false;
    }
    return statements.filter((s) => !/"presence"/.test(s));
  }

  it('stores a channel message and a direct message in two round trips: the session, then the insert', async () => {
    // The first message of each conversation uploads its sender's epoch: not the hot path.
    for (const to of ['all', bob.id]) {
      expect((await alice.send(to, 'first')).status).toBe(201);
      const sent = await countedDuring(async () => expect((await alice.send(to, 'hot path')).status).toBe(201));
      console.log(`send to ${to === 'all' ? 'the channel' : 'a member'} (${backend}): ${sent.length} statements`);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/from "sessions"/);
      expect(sent[1]).toMatch(/INSERT INTO messages/);
    }
    // Both stored, in order, and readable.
    const history = await bob.history('all');
    expect((await bob.decrypt(history)).map((m) => m.text)).toEqual(['first', 'hot path']);
  });

  it('authenticates a socket with one read', async () => {
    let socket: Awaited<ReturnType<TestMember['connect']>> | undefined;
    const read = await countedDuring(async () => (socket = await bob.connect()));
    console.log(`socket authentication (${backend}): ${read.length} statements`);
    expect(socket?.frames).toContainEqual({ type: 'authenticated', userId: bob.id });
    expect(read).toHaveLength(1);
    expect(read[0]).toMatch(/from "sessions"/);
    socket?.close();
  });
});
