import type { GroupView, MemberClient } from '@enclave/client';
import { isGroupConversation } from '@enclave/protocol';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useFrames } from '../realtime/realtime-context';

const groupsQueryKey = (selfId: string) => ['groups', selfId] as const;

/**
 * The member's private groups, names opened in this browser. The server tells every member of a
 * group, the added and the removed included, when its member set changes (membership_changed):
 * the list is fetched again then, and after every reconnection, which may have missed such frames.
 */
export function useGroups(client: MemberClient, selfId: string) {
  const queryClient = useQueryClient();
  const frames = useFrames();
  useEffect(() => {
    if (!frames) return;
    const refetch = () => void queryClient.invalidateQueries({ queryKey: groupsQueryKey(selfId) });
    const offs = [
      frames.on('membership_changed', ({ conversationId }) => {
        if (isGroupConversation(conversationId)) refetch();
      }),
      frames.on('authenticated', refetch),
    ];
    return () => offs.forEach((off) => off());
  }, [frames, queryClient, selfId]);
  return useQuery({ queryKey: groupsQueryKey(selfId), queryFn: () => client.groups.list() });
}

/**
 * Puts a group the member just created or changed into the list at once, so that it can open
 * before the list is fetched again; a fetch already under way (older than the change) is dropped.
 */
export async function rememberGroup(queryClient: QueryClient, selfId: string, group: GroupView): Promise<void> {
  const key = groupsQueryKey(selfId);
  await queryClient.cancelQueries({ queryKey: key });
  queryClient.setQueryData<GroupView[]>(key, (groups = []) =>
    groups.some((g) => g.id === group.id) ? groups.map((g) => (g.id === group.id ? group : g)) : [group, ...groups],
  );
}

/** Drops a group the member left from the list at once. */
export async function forgetGroup(queryClient: QueryClient, selfId: string, groupId: string): Promise<void> {
  const key = groupsQueryKey(selfId);
  await queryClient.cancelQueries({ queryKey: key });
  queryClient.setQueryData<GroupView[]>(key, (groups) => groups?.filter((g) => g.id !== groupId));
}
