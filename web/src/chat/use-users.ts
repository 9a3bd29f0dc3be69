import type { PublicUser } from '@enclave/protocol';
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

/** Applies a presence frame to the cached list. */
export function setPresence(queryClient: QueryClient, userId: string, online: boolean): void {
  queryClient.setQueryData<PublicUser[]>(usersQueryKey, (users) =>
    users?.map((u) => (u.id === userId ? { ...u, online } : u)),
  );
}
