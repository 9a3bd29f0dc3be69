/**
 * A history answer carries the caller's own shares of the epochs on that page (one round trip less
 * before a page can be read), and only the caller's: a member never receives another's share.
 */
import { routes, type EpochShare, type HistoryResponse } from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { channelShares, epochShares } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** A share's wrapped key, whichever way it opens. */
const keyOf = (s: EpochShare) => ('wrappedKey' in s ? s.wrappedKey : 'channel' in s ? s.channel.share.wrappedKey : 'awaiting');

describe.each(backends)('history with the caller’s own epoch shares (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;
  /** Every stored share: recipient → the wrapped keys wrapped for them. */
  let wrappedFor: Map<string, Set<string>>;

  const history = (member: TestMember, receiverId: string, query: { before?: number; after?: number; limit?: number } = {}) =>
    member.call(routes.history, { query: { receiverId, limit: 50, ...query } });
  const epochsOf = (page: HistoryResponse) => new Set(page.messages.map((m) => m.epochId));

  beforeAll(async () => {
    [alice, bob, carol] = await suite.members('alice', 'bob', 'carol');
    for (const [member, text] of [
      [alice, 'one'],
      [bob, 'two'],
      [alice, 'three'],
      [carol, 'four'],
    ] as const) {
      expect((await member.send('all', text)).status).toBe(201);
    }
    expect((await alice.send(bob.id, 'just for bob')).status).toBe(201);
    wrappedFor = new Map();
    // Direct messages' epochs have shares of their own; the channel's are derived from its key.
    for (const row of [
      ...(await suite.database.db.select().from(epochShares)),
      ...(await suite.database.db.select().from(channelShares)),
    ]) {
      wrappedFor.set(row.recipientId, (wrappedFor.get(row.recipientId) ?? new Set()).add(row.wrappedKey));
    }
  });

  it.each([
    ['alice', () => alice],
    ['bob', () => bob],
    ['carol', () => carol],
  ] as const)('gives %s exactly their own share of every epoch on the page, and the page opens with them alone', async (_name, member) => {
    const page = await history(member(), 'all');
    expect(page.messages.map((m) => m.senderUsername)).toEqual(['alice', 'bob', 'alice', 'carol']);
    expect(new Set(page.shares.map((s) => s.epochId))).toEqual(epochsOf(page));
    const own = wrappedFor.get(member().id)!;
    expect(page.shares.every((s) => own.has(keyOf(s)))).toBe(true);
    // The same shares the shares route gives for those epochs.
    const fetched = await member().call(routes.epochShares, { query: { ids: [...epochsOf(page)].join(',') } });
    expect([...page.shares].sort((a, b) => a.epochId.localeCompare(b.epochId))).toEqual(
      [...fetched.shares].sort((a, b) => a.epochId.localeCompare(b.epochId)),
    );
    const users = (await member().call(routes.users, {})).users;
    const opened = await member().decrypt(page.messages, { shares: page.shares, users });
    expect(opened.map((m) => m.text)).toEqual(['one', 'two', 'three', 'four']);
  });

  it('never gives a member the share wrapped for another', async () => {
    const pages = await Promise.all([history(alice, 'all'), history(bob, 'all'), history(carol, 'all'), history(alice, bob.id)]);
    const [forAlice, forBob, forCarol, dm] = pages.map((p) => new Set(p.shares.map((s) => keyOf(s))));
    expect([...forAlice!].some((k) => forBob!.has(k) || forCarol!.has(k))).toBe(false);
    expect([...forBob!].some((k) => forCarol!.has(k))).toBe(false);
    // Carol reads no one else's conversation, so no share of it either.
    const refused = await carol.attempt(routes.history, { query: { receiverId: bob.id, limit: 50 } });
    expect(refused.body?.messages ?? []).toEqual([]);
    expect(refused.body?.shares ?? []).toEqual([]);
    expect([...dm!].every((k) => wrappedFor.get(alice.id)!.has(k))).toBe(true);
  });

  it('carries the shares of each page, older pages and catch-up alike', async () => {
    const newest = await history(bob, 'all', { limit: 2 });
    expect(newest.hasMore).toBe(true);
    expect(new Set(newest.shares.map((s) => s.epochId))).toEqual(epochsOf(newest));
    const older = await history(bob, 'all', { before: newest.messages[0]!.id, limit: 2 });
    expect(new Set(older.shares.map((s) => s.epochId))).toEqual(epochsOf(older));
    const after = await history(bob, 'all', { after: older.messages[0]!.id, limit: 50 });
    expect(new Set(after.shares.map((s) => s.epochId))).toEqual(epochsOf(after));
  });

  it('has no shares for a member who joined after the messages (none were wrapped for them)', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const dave = await TestMember.join(suite.server.url, key!, 'dave');
    expect(await history(dave, 'all')).toEqual({ messages: [], events: [], disappearingSeconds: 0, hasMore: false, shares: [] });
  });
});
