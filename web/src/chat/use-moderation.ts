import type { PublicUser } from '@enclave/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { banUser, unbanUser } from '../net/admin-api';
import { moderationToasts } from './moderation-texts';
import { usersQueryKey } from './use-users';

/**
 * Ban and unban for admins. The server is the authority (it refuses non-admins and admins banning
 * admins) and ends the banned member's sessions and sockets itself; the list follows from its
 * `users_changed` frame, and is refetched here too so the admin sees the result at once.
 */
export function useModeration() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: usersQueryKey });
  const ban = useMutation({
    mutationFn: ({ user, reason }: { user: PublicUser; reason: string }) => banUser(user.id, reason),
    onSuccess: () => {
      toast(moderationToasts.banned);
      void refresh();
    },
    onError: (error) => toast(moderationToasts.banFailed(isApiError(error) ? error.serverMessage : null)),
  });
  const unban = useMutation({
    mutationFn: (user: PublicUser) => unbanUser(user.id),
    onSuccess: () => {
      toast(moderationToasts.unbanned);
      void refresh();
    },
    onError: (error) => toast(moderationToasts.unbanFailed(isApiError(error) ? error.serverMessage : null)),
  });
  return { ban, unban };
}

/** Who an admin may ban: members who are not staff, not banned already, and not the admin. */
export function isBannable(user: PublicUser, selfId: string): boolean {
  return user.id !== selfId && user.role !== 'admin' && !user.isCreatorAccount && !user.isBanned;
}
