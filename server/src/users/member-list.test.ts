/**
 * The member list by id (`POST /api/users/lookup`), and the `users_changed` frame that names whom
 * to fetch: a join, a ban or a role change costs each client the members it names, not the list.
 */
import { limits, routes } from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import type { TestSocket } from '../testing/test-socket';

describe.each(backends)('the member list by id (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
  const creator = () => new TestMember.Anonymous(suite.server.url);
  let alice: TestMember;
  let bob: TestMember;
  let watcher: TestSocket;

  beforeAll(async () => {
    alice = await join('alice');
    bob = await join('bob');
    watcher = await alice.connect();
  });

  it('gives the members asked for as the whole list gives them, and leaves out ids it does not know', async () => {
    const { users: all } = await alice.call(routes.users, {});
    const unknown = crypto.randomUUID();
    const { users } = await alice.call(routes.lookupUsers, { body: { ids: [bob.id, unknown, alice.id] } });
    expect(users.map((u) => u.id).sort()).toEqual([alice.id, bob.id].sort());
    for (const u of users) expect(u).toEqual(all.find((a) => a.id === u.id));
  });

  it('refuses more ids than one look-up names, an empty list, an id that is not one, and a caller not signed in', async () => {
    const many = Array.from({ length: limits.usersPerLookup + 1 }, () => crypto.randomUUID());
    for (const ids of [many, [], ['not-an-id']]) expect((await alice.attempt(routes.lookupUsers, { body: { ids } })).status).toBe(400);
    expect((await creator().attempt(routes.lookupUsers, { body: { ids: [bob.id] } })).status).toBe(401);
  });

  it('names the newcomer in users_changed when a member joins, and the member when a ban or a role changes them', async () => {
    const carol = await join('carol');
    await watcher.waitFor((f) => f.type === 'users_changed' && f.userIds?.[0] === carol.id);
    await creator().call(routes.setRole, { body: { userId: carol.id, role: 'admin' } }, creatorHeaders);
    await creator().call(routes.creatorBan, { body: { userId: bob.id, reason: 'spam' } }, creatorHeaders);
    await watcher.waitFor((f) => f.type === 'users_changed' && f.userIds?.[0] === bob.id);
    const named = watcher.frames.flatMap((f) => (f.type === 'users_changed' ? [f.userIds] : []));
    expect(named).toEqual([[carol.id], [carol.id], [bob.id]]);
    const { users } = await alice.call(routes.lookupUsers, { body: { ids: [bob.id] } });
    expect(users[0]).toMatchObject({ isBanned: true, bannedReason: 'spam' });
  });
});
