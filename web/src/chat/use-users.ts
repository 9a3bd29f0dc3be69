import type { PublicUser, ServerFrame } from '@enclave/protocol';
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { listUsers } from '../net/http';

export const usersQueryKey = ['users'] as const;

/** The member list with real presence, bans, roles and public keys. */
export function useUsers() {
  return useQuery({ queryKey: usersQueryKey, queryFn: listUsers });
}

/** The member list for non-React code: cached, or fetched once (with `list`) when nothing is cached yet. */
export function ensureUsers(queryClient: QueryClient, list: () => Promise<PublicUser[]> = listUsers): Promise<PublicUser[]> {
  return queryClient.ensureQueryData({ queryKey: usersQueryKey, queryFn: list });
}

/** The member list fresh from the server (with `list`), updating the cache. */
export function refetchUsers(queryClient: QueryClient, list: () => Promise<PublicUser[]> = listUsers): Promise<PublicUser[]> {
  return queryClient.fetchQuery({ queryKey: usersQueryKey, queryFn: list, staleTime: 0 });
}

/**
 * Applies a presence frame to the cached list: a snapshot sets everyone, a change sets the members
 * it names.
 */
export function applyPresence(queryClient: QueryClient, frame: Extract<ServerFrame, { type: 'presence' | 'presence_snapshot' }>): void {
  const online = new Set(frame.online);
  const changed = frame.type === 'presence' ? new Set([...frame.online, ...frame.offline]) : null;
  queryClient.setQueryData<PublicUser[]>(usersQueryKey, (users) =>
    users?.map((u) => (changed && !changed.has(u.id)) || u.online === online.has(u.id) ? u : { ...u, online: online.has(u.id) }),
  );
}
