/**
 * Data of the Command Center. The keys sit under the console's (creatorQueryKeys.all), so locking
 * the console forgets them too. Live events, metrics and blocks are polled every 2 s only while
 * the monitor is Live (docs/spec.md §4); a failed fetch is only logged (docs/spec.md §8).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { toast } from '../components/ui/toast-store';
import { creatorQueryKeys, isCreatorAuthFailure, lockConsole, useLockOnAuthFailure } from '../creator/creator-queries';
import { creatorToasts } from '../creator/creator-toasts';
import * as api from '../net/creator-api';
import { liveMonitor } from '../security/constants';
import { BLOCK_REASON } from './advanced-security-texts';

export const securityQueryKeys = {
  all: [...creatorQueryKeys.all, 'security-monitor'] as const,
  events: [...creatorQueryKeys.all, 'security-monitor', 'events'] as const,
  metrics: [...creatorQueryKeys.all, 'security-monitor', 'metrics'] as const,
  blocked: [...creatorQueryKeys.all, 'security-monitor', 'blocked'] as const,
};

/** Logs each failed fetch once (the specification shows none of them). */
function useLogFailure(what: string, error: unknown, at: number): void {
  useEffect(() => {
    if (error) console.error(`Failed to fetch ${what}`, error);
  }, [what, error, at]);
}

function usePolled<T>(what: string, queryKey: readonly unknown[], queryFn: () => Promise<T>, live: boolean) {
  const result = useQuery({ queryKey, queryFn, refetchInterval: live ? liveMonitor.pollIntervalMs : false });
  useLockOnAuthFailure(result.error);
  useLogFailure(what, result.error, result.errorUpdatedAt);
  return result;
}

export function useLiveEvents(live: boolean) {
  return usePolled('security events', securityQueryKeys.events, api.fetchLiveEvents, live);
}

export function useSecurityMetrics(live: boolean) {
  return usePolled('security metrics', securityQueryKeys.metrics, api.fetchSecurityMetrics, live);
}

/** Polled with the rest so that the refused-request counts stay current. */
export function useBlockedIps(live: boolean) {
  return usePolled('blocked addresses', securityQueryKeys.blocked, api.fetchBlockedIps, live);
}

/**
 * "Block IP" on a live event: only success or failure is logged (docs/spec.md §7, §8); the block
 * list and the figures are fetched again either way, so the screen shows what the server holds.
 */
export function useBlockIp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (ip: string) => api.blockIp(ip, BLOCK_REASON),
    onSuccess: (block) => console.info(`Blocked ${block.ip}: ${block.reason}`),
    onError: (error, ip) => {
      if (isCreatorAuthFailure(error)) {
        lockConsole(queryClient);
        toast(creatorToasts.accessDenied);
        return;
      }
      console.error(`Failed to block ${ip}`, error);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all }),
  });
}
