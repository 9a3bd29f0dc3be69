import type { KeyStats } from '@enclave/protocol';
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { fetchAdminGroups, fetchKeyStats, fetchUnusedKeys } from '../net/admin-api';

export const keyStatsQueryKey = ['admin', 'key-stats'] as const;
export const unusedKeysQueryKey = ['admin', 'unused-keys'] as const;
const adminGroupsQueryKey = ['admin', 'groups'] as const;

export function useKeyStats() {
  return useQuery({ queryKey: keyStatsQueryKey, queryFn: fetchKeyStats });
}

/** The first 20 keys that can still be sold. */
export function useUnusedKeys() {
  return useQuery({ queryKey: unusedKeysQueryKey, queryFn: fetchUnusedKeys });
}

/** The network's private groups as administrators see them (refreshed with the rest of the panel). */
export function useAdminGroups() {
  return useQuery({ queryKey: adminGroupsQueryKey, queryFn: fetchAdminGroups });
}

/** After keys were made, revoked or redeemed: the figures and the list are fetched again. */
export function refreshKeys(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: ['admin'] });
}

/** The master-key check already fetched the statistics: keep them instead of asking twice. */
export function seedKeyStats(queryClient: QueryClient, stats: KeyStats): void {
  queryClient.setQueryData(keyStatsQueryKey, stats);
}
