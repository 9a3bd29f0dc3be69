/**
 * Data of the creator console: query keys, the queries, and the one way an action runs (toast on
 * success or failure, then every figure of the console is fetched again).
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { toast } from '../components/ui/toast-store';
import type { ToastInput } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import * as api from '../net/creator-api';
import { getMasterKey, setMasterKey, subscribeMasterKey } from '../net/creator-session';
import { creatorToasts } from './creator-toasts';

/** docs/spec.md §9: the heatmap refreshes every 30 s and the risk visualizer every 10 s, while open. */
export const HEATMAP_REFRESH_MS = 30_000;
export const RISK_REFRESH_MS = 10_000;

export const creatorQueryKeys = {
  all: ['creator'] as const,
  overview: ['creator', 'overview'] as const,
  users: ['creator', 'users'] as const,
  keys: (filter: api.AccessKeysFilter) => ['creator', 'keys', { status: filter.status ?? null, q: filter.q ?? '' }] as const,
  heatmap: ['creator', 'heatmap'] as const,
  risk: ['creator', 'risk'] as const,
  compliance: ['creator', 'compliance'] as const,
};

/** The master key this tab holds (memory only), or null. */
export function useMasterKey(): string | null {
  return useSyncExternalStore(subscribeMasterKey, getMasterKey);
}

/** Forgets the key and every figure fetched with it. */
export function lockConsole(queryClient: QueryClient): void {
  setMasterKey(null);
  queryClient.removeQueries({ queryKey: creatorQueryKeys.all });
}

/** The server no longer accepts the key this tab holds (it changed, say): back to the sign-in card. */
export function isCreatorAuthFailure(error: unknown): boolean {
  return isApiError(error, 401) || isApiError(error, 403);
}

/** Locks the console when a query is refused for its credentials. */
export function useLockOnAuthFailure(error: unknown): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (error && isCreatorAuthFailure(error)) {
      lockConsole(queryClient);
      toast(creatorToasts.accessDenied);
    }
  }, [error, queryClient]);
}

export function useOverview() {
  const result = useQuery({ queryKey: creatorQueryKeys.overview, queryFn: api.fetchOverview });
  useLockOnAuthFailure(result.error);
  return result;
}

export function useMonitoredUsers() {
  const result = useQuery({ queryKey: creatorQueryKeys.users, queryFn: api.fetchMonitoredUsers });
  useLockOnAuthFailure(result.error);
  return result;
}

/** The key database page by page (`fetchNextPage` for more); `keys` the pages loaded, `total` the keys matching. */
export function useAccessKeys(filter: api.AccessKeysFilter) {
  const result = useInfiniteQuery({
    queryKey: creatorQueryKeys.keys(filter),
    queryFn: ({ pageParam }) => api.fetchAccessKeys(filter, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
    // A new filter keeps the old rows on screen until the answer arrives, instead of a flash of "loading".
    placeholderData: keepPreviousData,
  });
  useLockOnAuthFailure(result.error);
  const keys = useMemo(() => result.data?.pages.flatMap((p) => p.keys) ?? [], [result.data]);
  return { ...result, keys, total: result.data?.pages[0]?.total ?? 0 };
}

export function useHeatmap() {
  const result = useQuery({ queryKey: creatorQueryKeys.heatmap, queryFn: api.fetchHeatmap, refetchInterval: HEATMAP_REFRESH_MS });
  useLockOnAuthFailure(result.error);
  return result;
}

export function useRisk() {
  const result = useQuery({ queryKey: creatorQueryKeys.risk, queryFn: api.fetchRisk, refetchInterval: RISK_REFRESH_MS });
  useLockOnAuthFailure(result.error);
  return result;
}

export function useCompliance() {
  const result = useQuery({ queryKey: creatorQueryKeys.compliance, queryFn: api.fetchCompliance });
  useLockOnAuthFailure(result.error);
  return result;
}

type ActionOptions<TArgs, TResult> = {
  run: (args: TArgs) => Promise<TResult>;
  /** The toast for a success; null for none. */
  success: (result: TResult, args: TArgs) => ToastInput | null;
  failure: (error: unknown, args: TArgs) => ToastInput;
};

/** One creator action: runs on the server, says how it went, then refreshes the console. */
export function useCreatorAction<TArgs, TResult>({ run, success, failure }: ActionOptions<TArgs, TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: (result, args) => {
      const t = success(result, args);
      if (t) toast(t);
    },
    onError: (error, args) => {
      if (isCreatorAuthFailure(error)) {
        lockConsole(queryClient);
        toast(creatorToasts.accessDenied);
        return;
      }
      toast(failure(error, args));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: creatorQueryKeys.all }),
  });
}
