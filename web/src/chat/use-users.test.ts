import { listedMember } from '@enclave/client/testing';
import type { PublicUser } from '@enclave/protocol';
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyPresence, refetchUsers, usersQueryKey } from './use-users';

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
