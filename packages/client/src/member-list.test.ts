/** The member list a client holds: fetched whole once, a member it lacks fetched by id. */
import { limits, type PublicUser } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { fetchedMemberList, mergeUsers } from './member-list';
import { fakeCall, listedMember } from './testing';

const keys = { encryptionPublicKey: 'enc', signingPublicKey: 'sig' };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const member = (n: number, fields: Partial<PublicUser> = {}) => ({ ...listedMember(id(n), `member${n}`, keys), ...fields });

/** A server holding `stored` members, counting whole-list fetches and the ids each look-up named. */
function server(stored: PublicUser[], options: { lookup?: boolean } = {}) {
  const asked = { lists: 0, lookups: [] as string[][] };
  const call = fakeCall({
    users: async () => {
      asked.lists += 1;
      return { users: [...stored] };
    },
    lookupUsers: async ({ body }) => {
      asked.lookups.push(body.ids);
      // An instance of 1.0.0 has no such route.
      if (options.lookup === false) throw Object.assign(new Error('No route POST /api/users/lookup'), { status: 404, code: 'not_found' });
      return { users: stored.filter((u) => body.ids.includes(u.id)) };
    },
  });
  return { asked, list: fetchedMemberList(call), join: (u: PublicUser) => stored.push(u) };
}

describe('fetchedMemberList', () => {
  it('fetches the whole list once, then a newcomer by id, and keeps them', async () => {
    const s = server([member(1), member(2)]);
    expect((await s.list.including([id(1)])).map((u) => u.id)).toEqual([id(1), id(2)]);
    s.join(member(3));
    expect((await s.list.including([id(3), id(1), id(3)])).map((u) => u.id)).toEqual([id(1), id(2), id(3)]);
    expect(s.asked).toEqual({ lists: 1, lookups: [[id(3)]] });
    expect((await s.list.current()).map((u) => u.id)).toEqual([id(1), id(2), id(3)]);
  });

  it('keeps the list as it was for an id the server does not know', async () => {
    const s = server([member(1)]);
    const before = await s.list.current();
    expect(await s.list.including([id(9)])).toBe(before);
    expect(s.asked.lookups).toEqual([[id(9)]]);
  });

  it('fetches the whole list again from a server without the look-up (an upgrade beside 1.0.0)', async () => {
    const s = server([member(1)], { lookup: false });
    await s.list.current();
    s.join(member(2));
    expect((await s.list.including([id(2)])).map((u) => u.id)).toEqual([id(1), id(2)]);
    expect(s.asked).toEqual({ lists: 2, lookups: [[id(2)]] });
  });

  it('fetches the whole list again when more members are missing than one look-up names', async () => {
    const s = server([member(1)]);
    await s.list.current();
    for (let n = 2; n <= limits.usersPerLookup + 2; n++) s.join(member(n));
    expect(await s.list.including(Array.from({ length: limits.usersPerLookup + 1 }, (_, i) => id(i + 2)))).toHaveLength(
      limits.usersPerLookup + 2,
    );
    expect(s.asked).toEqual({ lists: 2, lookups: [] });
  });
});

describe('mergeUsers', () => {
  it("replaces the entries of members fetched again and adds those the list lacked, in the list's order", () => {
    const merged = mergeUsers([member(1), member(2)], [member(3), member(1, { isBanned: true })]);
    expect(merged.map((u) => [u.id, u.isBanned])).toEqual([
      [id(1), true],
      [id(2), false],
      [id(3), false],
    ]);
  });
});
