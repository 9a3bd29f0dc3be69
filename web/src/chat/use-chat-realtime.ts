import type { DecryptResult, MemberClient } from '@enclave/client';
import type { Message } from '@enclave/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useAuth } from '../auth/auth-context';
import { isApiError } from '../net/api-error';
import { lookupUsers, me } from '../net/http';
import { useFrames, useRealtimeSocket } from '../realtime/realtime-context';
import { applyPresence, applyUsersChanged, usersQueryKey } from './use-users';

/** What the chat hears besides the store: new messages once decrypted, and erased ones. */
export type ChatListeners = {
  /** Each live message once the store has decrypted it (notifications). */
  onIncoming: (message: Message, result: DecryptResult | undefined) => void;
  /** Messages erased on the server, held or not: whatever else keeps them (unread, notifications) lets go. */
  onRemoved: (conversationId: string, ids: readonly number[]) => void;
};

/**
 * The chat's React side of the socket: the member list and presence (TanStack Query) follow their
 * frames, the listeners hear the member client's messages, and a refused socket checks the session.
 * The messages themselves are the member client's (@enclave/client MemberClient).
 */
export function useChatRealtime(client: MemberClient, listeners: ChatListeners): void {
  const socket = useRealtimeSocket();
  const frames = useFrames();
  const queryClient = useQueryClient();
  const { endLocally } = useAuth();
  const listenersRef = useRef(listeners);

  useEffect(() => {
    listenersRef.current = listeners;
  }, [listeners]);

  useEffect(() => {
    if (!socket || !frames) return;
    const refetchUsers = () => void queryClient.invalidateQueries({ queryKey: usersQueryKey });
    const offs = [
      client.onIncoming((message, result) => listenersRef.current.onIncoming(message, result)),
      client.onRemoved((conversationId, ids) => listenersRef.current.onRemoved(conversationId, ids)),
      frames.on('users_changed', (frame) => void applyUsersChanged(queryClient, frame.userIds, lookupUsers)),
      frames.on('presence', (frame) => applyPresence(queryClient, frame)),
      frames.on('presence_snapshot', (frame) => applyPresence(queryClient, frame)),
      frames.on('error', (frame) => console.warn('realtime error:', frame.message)),
      // Presence and joins may have changed while offline.
      frames.on('authenticated', refetchUsers),
      socket.subscribeState((state) => {
        if (state !== 'auth_failed') return;
        // The socket refused the cookie: if the session is gone, leave; otherwise back-off retries.
        me().catch((error: unknown) => {
          if (isApiError(error, 401)) void endLocally();
        });
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [socket, frames, client, queryClient, endLocally]);
}
