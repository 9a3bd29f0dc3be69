import { mergeUsers } from '@enclave/client';
import type { PublicUser, ServerFrame } from '@enclave/protocol';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { listUsers } from '../net/http';

export const usersQueryKey = ['users'] as const;

type PresenceFrame = Extract<ServerFrame, { type: 'presence' | 'presence_snapshot' }>;

/** Per cache, the presence frames heard by each member-list fetch still under way. */
const heardDuringFetch = new WeakMap<QueryClient, Set<PresenceFrame[]>>();

/**
 * The member-list query. The server reads presence when it answers, so a frame that arrived while
 * the list was on its way may be newer than the list: the frames heard meanwhile are replayed on
 * the answer, in order, instead of the answer undoing them (a member shown online for good after
 * their socket closed).
 */
export function usersQuery(queryClient: QueryClient, list: () => Promise<PublicUser[]> = listUsers) {
  return { queryKey: usersQueryKey, queryFn: () => withPresenceHeard(queryClient, list) };
}

/** Members fetched with `fetch`, with the presence frames heard while it was on its way replayed on them. */
async function withPresenceHeard(queryClient: QueryClient, fetch: () => Promise<PublicUser[]>): Promise<PublicUser[]> {
  const heard: PresenceFrame[] = [];
  const fetches = heardDuringFetch.get(queryClient) ?? new Set();
  heardDuringFetch.set(queryClient, fetches.add(heard));
  try {
    return heard.reduce(withPresence, await fetch());
  } finally {
    fetches.delete(heard);
  }
}

/**
 * Members fetched by id (`POST /api/users/lookup`) put into the cached list, or into `held` when
 * nothing is cached: their old entries replaced, newcomers added. The list as kept after.
 */
export function keepUsers(queryClient: QueryClient, held: readonly PublicUser[], found: readonly PublicUser[]): PublicUser[] {
  const kept = mergeUsers(queryClient.getQueryData<PublicUser[]>(usersQueryKey) ?? held, found);
  queryClient.setQueryData(usersQueryKey, kept);
  return kept;
}

/**
 * A `users_changed` frame: the members it names fetched by id into the cached list (about 1 KB
 * each, where the whole list is some 80 MB at 100,000 members), or the whole list fetched again
 * when it names none, nothing is cached yet, or the look-up fails.
 */
export async function applyUsersChanged(
  queryClient: QueryClient,
  userIds: string[] | undefined,
  lookup: (ids: string[]) => Promise<PublicUser[]>,
): Promise<void> {
  const refetch = () => queryClient.invalidateQueries({ queryKey: usersQueryKey });
  if (!userIds || !queryClient.getQueryData(usersQueryKey)) return refetch();
  try {
    const found = await withPresenceHeard(queryClient, () => lookup(userIds));
    queryClient.setQueryData<PublicUser[]>(usersQueryKey, (users) => users && mergeUsers(users, found));
  } catch (error) {
    console.warn('could not fetch the changed members; fetching the whole list', error);
    await refetch();
  }
}

/** The member list with real presence, bans, roles and public keys. */
export function useUsers() {
  return useQuery(usersQuery(useQueryClient()));
}

/** The member list for non-React code: cached, or fetched once (with `list`) when nothing is cached yet. */
export function ensureUsers(queryClient: QueryClient, list?: () => Promise<PublicUser[]>): Promise<PublicUser[]> {
  return queryClient.ensureQueryData(usersQuery(queryClient, list));
}

/** The member list fresh from the server (with `list`), updating the cache. */
export function refetchUsers(queryClient: QueryClient, list?: () => Promise<PublicUser[]>): Promise<PublicUser[]> {
  return queryClient.fetchQuery({ ...usersQuery(queryClient, list), staleTime: 0 });
}

/** The list after a presence frame: a snapshot sets everyone, a change sets the members it names. */
function withPresence(users: PublicUser[], frame: PresenceFrame): PublicUser[] {
  const online = new Set(frame.online);
  const changed = frame.type === 'presence' ? new Set([...frame.online, ...frame.offline]) : null;
  return users.map((u) => ((changed && !changed.has(u.id)) || u.online === online.has(u.id) ? u : { ...u, online: online.has(u.id) }));
}

/** Applies a presence frame to the cached list, and to the lists being fetched when they answer. */
export function applyPresence(queryClient: QueryClient, frame: PresenceFrame): void {
  for (const heard of heardDuringFetch.get(queryClient) ?? []) heard.push(frame);
  queryClient.setQueryData<PublicUser[]>(usersQueryKey, (users) => users && withPresence(users, frame));
}
