import type { Message } from '@enclave/protocol';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useFrames } from '../realtime/realtime-context';
import { showUnreadOnBadge } from './app-badge';
import {
  firstUnreadId,
  forgetUnread,
  isInView,
  keepGroups,
  markRead,
  noteUnread,
  parseReadState,
  titleWithCount,
  totalUnread,
  unreadCount,
  type ReadState,
  type ViewState,
} from './unread';

const storageKey = (selfId: string) => `enclave:reads:${selfId}`;

function loadReads(selfId: string): ReadState {
  try {
    return parseReadState(localStorage.getItem(storageKey(selfId)));
  } catch {
    return {};
  }
}

const subscribeVisibility = (onChange: () => void) => {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
};
const isVisible = () => document.visibilityState === 'visible';

export type Unread = {
  countOf: (conversationId: string) => number;
  total: number;
  /** The message the "New messages" divider goes before in the open conversation, if any. */
  dividerBeforeId: number | null;
  /** Whether a conversation is in view now (open, tab visible): the same decision as the counts'. */
  isInView: (conversationId: string) => boolean;
  /** The member's groups now: the counts of any other group are dropped. */
  keepGroups: (groupIds: readonly string[]) => void;
};

/**
 * Unread counts per conversation, in the tab title and on the installed app's badge. The open conversation counts as read while
 * the tab is visible; others' messages in any other case are unread until it is.
 */
export function useUnread(selfId: string, conversationId: string, messages: readonly Message[]): Unread {
  const frames = useFrames();
  const [reads, setReads] = useState(() => loadReads(selfId));
  const visible = useSyncExternalStore(subscribeVisibility, isVisible);
  const inView = useRef<ViewState>({ conversationId, visible });
  const [seen, setSeen] = useState({ conversationId, visible });
  const [divider, setDivider] = useState<{ conversationId: string; id: number | null }>(() => ({
    conversationId,
    id: firstUnreadId(reads, conversationId),
  }));

  useEffect(() => {
    inView.current = { conversationId, visible };
  }, [conversationId, visible]);

  useEffect(() => {
    try {
      localStorage.setItem(storageKey(selfId), JSON.stringify(reads));
    } catch {
      // Storage full or refused: counts still work for this tab.
    }
  }, [selfId, reads]);

  // Another tab of the same member read or received something.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === storageKey(selfId)) setReads(parseReadState(event.newValue));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [selfId]);

  // Live messages of conversations not in view (frames for never-opened ones included), and
  // messages erased meanwhile, which no longer count.
  useEffect(() => {
    if (!frames) return;
    const offs = [
      frames.on('messages_deleted', (frame) => setReads((state) => forgetUnread(state, frame.conversationId, frame.ids))),
      frames.on('chat_message', ({ message }) => {
        if (message.senderId === selfId || isInView(inView.current, message.conversationId)) return;
        setReads((state) => noteUnread(state, message.conversationId, [message.id]));
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [frames, selfId]);

  // The divider goes where the member's reading stopped: caught on opening a conversation and on
  // coming back to the tab, before the conversation is marked read below.
  if (seen.conversationId !== conversationId || seen.visible !== visible) {
    const opened = seen.conversationId !== conversationId;
    setSeen({ conversationId, visible });
    const first = firstUnreadId(reads, conversationId);
    // Coming back to the tab keeps the divider there was when nothing new came meanwhile.
    if (opened || (visible && first !== null)) setDivider({ conversationId, id: first });
  }

  // In view, the conversation is read; hidden, what a catch-up brought in is unread like any frame.
  // Both return the same state once applied, so this settles in one more render.
  const newest = messages.at(-1)?.id ?? 0;
  const next = visible
    ? markRead(reads, conversationId, newest)
    : noteUnread(
        reads,
        conversationId,
        messages.filter((m) => m.senderId !== selfId).map((m) => m.id),
      );
  if (next !== reads) setReads(next);

  const total = totalUnread(reads);
  useEffect(() => {
    const base = document.title;
    return () => {
      document.title = base;
    };
  }, []);
  useEffect(() => {
    document.title = titleWithCount(document.title.replace(/^\(\d+\+?\) /, ''), total);
    showUnreadOnBadge(total);
  }, [total]);

  const countOf = useCallback((id: string) => unreadCount(reads, id), [reads]);
  const inViewNow = useCallback((id: string) => isInView(inView.current, id), []);
  const keepGroupsNow = useCallback((ids: readonly string[]) => setReads((state) => keepGroups(state, ids)), []);
  return {
    countOf,
    total,
    dividerBeforeId: divider.conversationId === conversationId ? divider.id : null,
    isInView: inViewNow,
    keepGroups: keepGroupsNow,
  };
}
