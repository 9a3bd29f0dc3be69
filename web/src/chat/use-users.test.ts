import { listedMember } from '@enclave/client/testing';
import type { PublicUser } from '@enclave/protocol';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { applyPresence, applyUsersChanged, keepUsers, refetchUsers, usersQueryKey } from './use-users';

const ids = ['a', 'b', 'c'].map((x) => `00000000-0000-4000-8000-00000000000${x}`);
const keys = { encryptionPublicKey: 'enc', signingPublicKey: 'sig' };

function cached(online: boolean[]): QueryClient {
  const client = new QueryClient();
  client.setQueryData<PublicUser[]>(
    usersQueryKey,
    ids.map((id, i) => ({ ...listedMember(id, `user${i}`, keys), online: online[i]! })),
  );
  return client;
}

const onlineOf = (client: QueryClient) => client.getQueryData<PublicUser[]>(usersQueryKey)!.map((u) => u.online);

describe('applyPresence', () => {
  it('sets the members a change names and leaves the others', () => {
    const client = cached([false, true, false]);
    applyPresence(client, { type: 'presence', online: [ids[0]!], offline: [ids[1]!] });
    expect(onlineOf(client)).toEqual([true, false, false]);
  });

  it('sets everyone from a snapshot', () => {
    const client = cached([true, true, false]);
    applyPresence(client, { type: 'presence_snapshot', online: [ids[2]!] });
    expect(onlineOf(client)).toEqual([false, false, true]);
  });

  it('does nothing before the member list is loaded', () => {
    const client = new QueryClient();
    applyPresence(client, { type: 'presence_snapshot', online: [ids[0]!] });
    expect(client.getQueryData(usersQueryKey)).toBeUndefined();
  });
});

describe('a member list fetched while presence frames arrive', () => {
  it('keeps what the frames said: the answer, read before them, does not undo them', async () => {
    const client = cached([false, true, false]);
    let answer!: (users: PublicUser[]) => void;
    const fetching = refetchUsers(client, () => new Promise((resolve) => (answer = resolve)));
    // The server read presence (b and c online), then b's socket closed and a came online.
    applyPresence(client, { type: 'presence', online: [], offline: [ids[1]!] });
    applyPresence(client, { type: 'presence', online: [ids[0]!], offline: [] });
    answer(ids.map((id, i) => ({ ...listedMember(id, `user${i}`, keys), online: i > 0 })));
    await fetching;
    expect(onlineOf(client)).toEqual([true, false, true]);
  });

  it('replays nothing into a later fetch', async () => {
    const client = cached([false, false, false]);
    applyPresence(client, { type: 'presence', online: [ids[0]!], offline: [] });
    await refetchUsers(client, async () => ids.map((id, i) => ({ ...listedMember(id, `user${i}`, keys), online: i === 2 })));
    expect(onlineOf(client)).toEqual([false, false, true]);
  });
});

describe('applyUsersChanged', () => {
  const newcomer = '00000000-0000-4000-8000-00000000000d';
  const lookedUp: string[][] = [];
  const lookup = async (wanted: string[]) => {
    lookedUp.push(wanted);
    return wanted.map((id) => ({ ...listedMember(id, id === newcomer ? 'newcomer' : 'user1', keys), isBanned: id === ids[1] }));
  };
  const names = (client: QueryClient) =>
    client.getQueryData<PublicUser[]>(usersQueryKey)?.map((u) => `${u.username}${u.isBanned ? ' (banned)' : ''}`);

  it('fetches only the members a frame names, replacing their entries and adding newcomers', async () => {
    const client = cached([false, false, false]);
    await applyUsersChanged(client, [ids[1]!, newcomer], lookup);
    expect(lookedUp.at(-1)).toEqual([ids[1], newcomer]);
    expect(names(client)).toEqual(['user0', 'user1 (banned)', 'user2', 'newcomer']);
  });

  it('fetches the whole list again for a frame that names nobody, or when nothing is cached', async () => {
    const client = cached([false, false, false]);
    const asked = lookedUp.length;
    const whole = invalidationsOf(client);
    await applyUsersChanged(client, undefined, lookup);
    expect(whole.calls).toBe(1);
    const empty = new QueryClient();
    await applyUsersChanged(empty, [newcomer], lookup);
    expect(empty.getQueryData(usersQueryKey)).toBeUndefined();
    expect(lookedUp.length).toBe(asked);
  });

  it('fetches the whole list again when the look-up fails', async () => {
    const client = cached([false, false, false]);
    const whole = invalidationsOf(client);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await applyUsersChanged(client, [newcomer], () => Promise.reject(new Error('offline')));
    expect(whole.calls).toBe(1);
    expect(names(client)).toEqual(['user0', 'user1', 'user2']);
  });
});

describe('keepUsers', () => {
  it('puts members fetched by id into the cached list, or into the list held when nothing is cached', () => {
    const client = cached([false, false, false]);
    const newcomer = listedMember('00000000-0000-4000-8000-00000000000d', 'newcomer', keys);
    expect(keepUsers(client, [], [newcomer]).map((u) => u.username)).toEqual(['user0', 'user1', 'user2', 'newcomer']);
    const empty = new QueryClient();
    expect(keepUsers(empty, [newcomer], [newcomer])).toEqual([newcomer]);
    expect(empty.getQueryData(usersQueryKey)).toEqual([newcomer]);
  });
});

/** Counts invalidations of the member list: each refetches it whole wherever it is shown. */
function invalidationsOf(client: QueryClient): { calls: number } {
  const whole = { calls: 0 };
  client.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'invalidate') whole.calls += 1;
  });
  return whole;
}
