import { conversationIdFor, isGroupConversation, type Message, type ReadPosition } from '@enclave/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { toast } from '../components/ui/toast-store';
import { fetchPositions, fetchReadReceipts, postReadPosition, saveReadReceipts } from '../net/read-receipts-api';
import { useFrames } from '../realtime/realtime-context';
import { newestFromOthers, readMarkFor, withPosition, type ReadMark } from './read-receipts';

export type { ReadMark } from './read-receipts';

const settingKey = ['read-receipts'] as const;
/** Keyed as a send names the conversation: the DM's peer, or the group. */
const positionKey = (receiverId: string) => ['read-position', receiverId] as const;
/** A burst of messages seen at once is one post: the position is sent once reading settles this long. */
export const READ_POST_DEBOUNCE_MS = 800;

/** The member's read-receipt setting: off until the server says otherwise. */
export type ReadReceiptsSetting = {
  /** As the server holds it: what is posted and shown follows this. */
  enabled: boolean;
  /** What the switch shows: the member's choice at once, while the server takes it. */
  checked: boolean;
  loaded: boolean;
  busy: boolean;
  set: (enabled: boolean) => void;
};

export function useReadReceiptsSetting(): ReadReceiptsSetting {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingKey, queryFn: fetchReadReceipts, staleTime: Infinity });
  // Set in the click's own event, so the switch moves at once (the mutation's state comes a tick later).
  const [choice, setChoice] = useState<boolean | null>(null);
  const mutation = useMutation({
    mutationFn: saveReadReceipts,
    onSuccess: (enabled) => {
      queryClient.setQueryData(settingKey, enabled);
      // Off: the server shows no one's positions any more; on: it may show them again.
      queryClient.removeQueries({ queryKey: ['read-position'] });
    },
    onError: (error) => {
      console.error('could not change read receipts', error);
      toast({ title: 'Read receipts', description: 'Could not change the setting. Try again.', tone: 'destructive' });
    },
    onSettled: () => setChoice(null),
  });
  const enabled = query.data ?? false;
  return {
    enabled,
    checked: choice ?? enabled,
    loaded: query.isSuccess,
    busy: mutation.isPending,
    set: (on) => {
      setChoice(on);
      mutation.mutate(on);
    },
  };
}

const subscribeAttention = (onChange: () => void) => {
  document.addEventListener('visibilitychange', onChange);
  window.addEventListener('focus', onChange);
  window.addEventListener('blur', onChange);
  return () => {
    document.removeEventListener('visibilitychange', onChange);
    window.removeEventListener('focus', onChange);
    window.removeEventListener('blur', onChange);
  };
};
/** The member is looking at this tab: visible (as the unread counts decide, use-unread.ts) and focused. */
const isAttended = () => document.visibilityState === 'visible' && document.hasFocus();

/** The open conversation's message list (MessageList.tsx). */
const conversationLog = () => document.querySelector<HTMLElement>('[role="log"][aria-label="Conversation history"]');

/** Whether the row of message `id` shows in the list; true when it is not rendered there at all (nothing to wait for). */
function rowInView(log: HTMLElement, id: number): boolean {
  const row = log.querySelector(`[data-message-id="${id}"]`);
  if (!row) return true;
  const box = log.getBoundingClientRect();
  const r = row.getBoundingClientRect();
  return r.top < box.bottom && r.bottom > box.top;
}

/**
 * Read receipts in the open DM or small group (`receiverId`; null in the channel and in larger
 * groups, which have none): posts how far the member has read while the conversation is open and
 * the tab attended, debounced, and gives the member's own last message others have read, with who,
 * from the server on opening and live from `read_position` frames. The server sends and shows
 * positions only while both sides opted in; with the setting off, nothing is posted or shown.
 */
export function useReadReceipts(
  selfId: string,
  receiverId: string | null,
  messages: readonly Message[],
  enabled: boolean,
): ReadMark | null {
  const queryClient = useQueryClient();
  const frames = useFrames();
  const attended = useSyncExternalStore(subscribeAttention, isAttended);
  const positions = useQuery({
    queryKey: positionKey(receiverId ?? ''),
    queryFn: () => fetchPositions(receiverId ?? ''),
    enabled: enabled && receiverId !== null,
  });

  useEffect(() => {
    if (!frames) return;
    const offs = [
      frames.on('read_position', (frame) => {
        const group = isGroupConversation(frame.conversationId);
        if (!group && frame.conversationId !== conversationIdFor(selfId, frame.userId)) return;
        const heard = { userId: frame.userId, messageId: frame.messageId, readAt: new Date().toISOString() };
        queryClient.setQueryData<ReadPosition[]>(positionKey(group ? frame.conversationId : frame.userId), (old) =>
          withPosition(old, heard),
        );
      }),
      // Positions may have moved while the socket was away.
      frames.on('authenticated', () => void queryClient.invalidateQueries({ queryKey: ['read-position'] })),
    ];
    return () => offs.forEach((off) => off());
  }, [frames, queryClient, selfId]);

  // The newest message from anyone else is what the member has now read.
  const newest = receiverId === null ? null : newestFromOthers(messages, selfId);
  const posted = useRef<{ receiverId: string; messageId: number } | null>(null);
  useEffect(() => {
    if (!enabled || !attended || receiverId === null || newest === null) return;
    const last = posted.current;
    if (last?.receiverId === receiverId && last.messageId >= newest) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let log: HTMLElement | null = null;
    const post = () => {
      // Scrolled up, the member has not seen it yet: try again once they scroll.
      log = conversationLog();
      if (log && !rowInView(log, newest)) {
        log.addEventListener('scroll', later, { once: true });
        return;
      }
      posted.current = { receiverId, messageId: newest };
      postReadPosition(receiverId, newest).catch((error: unknown) => {
        // Sent again the next time something is read.
        posted.current = null;
        console.warn('could not send the read position', error);
      });
    };
    function later() {
      clearTimeout(timer);
      timer = setTimeout(post, READ_POST_DEBOUNCE_MS);
    }
    later();
    return () => {
      clearTimeout(timer);
      log?.removeEventListener('scroll', later);
    };
  }, [enabled, attended, receiverId, newest]);

  if (!enabled || receiverId === null) return null;
  return readMarkFor(messages, selfId, positions.data ?? []);
}
