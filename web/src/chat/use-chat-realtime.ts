import type { DecryptResult } from '@enclave/client';
import type { Message } from '@enclave/protocol';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useAuth } from '../auth/auth-context';
import { isApiError } from '../net/api-error';
import { me } from '../net/http';
import { useRealtimeSocket } from '../realtime/realtime-context';
import type { ChatServices } from './chat-services';
import { applyPresence, usersQueryKey } from './use-users';

/** What the chat hears besides the store: new messages once decrypted, and erased ones. */
export type ChatListeners = {
  /** Each live message once the store has decrypted it (notifications). */
  onIncoming: (message: Message, result: DecryptResult | undefined) => void;
  /** Messages erased on the server, held or not: whatever else keeps them (unread, notifications) lets go. */
  onRemoved: (conversationId: string, ids: readonly number[]) => void;
};

/** Feeds socket frames into the chat and catches up after every (re)authentication. */
export function useChatRealtime(services: ChatServices, openConversationId: string, listeners: ChatListeners): void {
  const socket = useRealtimeSocket();
  const queryClient = useQueryClient();
  const { endLocally } = useAuth();
  const openRef = useRef(openConversationId);
  const listenersRef = useRef(listeners);

  useEffect(() => {
    openRef.current = openConversationId;
    listenersRef.current = listeners;
  }, [openConversationId, listeners]);

  useEffect(() => {
    if (!socket) return;
    const { store, senderKeys } = services;
    const offFrame = socket.onFrame((frame) => {
      switch (frame.type) {
        case 'chat_message': {
          const { message } = frame;
          void store.live(message).then((result) => listenersRef.current.onIncoming(message, result));
          break;
        }
        case 'timeline_event':
          store.event(frame.event);
          break;
        case 'messages_deleted':
          store.removed(frame.conversationId, frame.ids, frame.reason);
          listenersRef.current.onRemoved(frame.conversationId, frame.ids);
          break;
        case 'membership_changed':
          senderKeys.membershipChanged(frame.conversationId, frame.membershipVersion);
          break;
        case 'users_changed':
          void queryClient.invalidateQueries({ queryKey: usersQueryKey });
          break;
        case 'presence':
        case 'presence_snapshot':
          applyPresence(queryClient, frame);
          break;
        case 'error':
          console.warn('realtime error:', frame.message);
          break;
        default:
          break;
      }
    });
    const offAuth = socket.onAuthenticated(() => {
      // Presence and joins may have changed while offline, and messages may have been missed.
      void queryClient.invalidateQueries({ queryKey: usersQueryKey });
      void store.authenticated(openRef.current);
    });
    const offState = socket.subscribeState((state) => {
      if (state !== 'auth_failed') return;
      // The socket refused the cookie: if the session is gone, leave; otherwise back-off retries.
      me().catch((error: unknown) => {
        if (isApiError(error, 401)) void endLocally();
      });
    });
    return () => {
      offFrame();
      offAuth();
      offState();
    };
  }, [socket, services, queryClient, endLocally]);
}
