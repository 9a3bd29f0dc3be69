import { useCallback, useEffect, useRef, useState } from 'react';
import { useFrames, useRealtimeSocket } from '../realtime/realtime-context';

/** How long "is typing…" stays after the member's last frame. */
export const TYPING_SHOWN_MS = 5_000;
/** A frame at most this often per conversation; above the server's 2 s throttle, so none is dropped. */
const SEND_EVERY_MS = 3_000;

const optOutKey = (selfId: string) => `enclave:typing-off:${selfId}`;

function readOptOut(selfId: string): boolean {
  try {
    return localStorage.getItem(optOutKey(selfId)) === '1';
  } catch {
    return false;
  }
}

export type Typing = {
  /** Ids of the members typing in the open conversation now. */
  typingIds: readonly string[];
  /** Call on each edit of the composer. */
  onType: () => void;
  /** Whether this member tells others they are typing (they see others' either way). */
  sharing: boolean;
  setSharing: (on: boolean) => void;
};

export function useTyping(selfId: string, conversationId: string): Typing {
  const socket = useRealtimeSocket();
  const frames = useFrames();
  const [sharing, setSharingState] = useState(() => !readOptOut(selfId));
  // Per conversation, who typed and until when they are shown.
  const [typing, setTyping] = useState<ReadonlyMap<string, ReadonlyMap<string, number>>>(new Map());
  const lastSent = useRef(new Map<string, number>());

  useEffect(() => {
    if (!frames) return;
    const set = (id: string, userId: string, until: number | null) =>
      setTyping((all) => {
        const users = new Map(all.get(id));
        if (until === null && !users.has(userId)) return all;
        if (until === null) users.delete(userId);
        else users.set(userId, until);
        return new Map(all).set(id, users);
      });
    const offs = [
      frames.on('typing', (frame) => {
        if (frame.userId !== selfId) set(frame.conversationId, frame.userId, Date.now() + TYPING_SHOWN_MS);
      }),
      // Their message is what they were typing.
      frames.on('chat_message', ({ message }) => set(message.conversationId, message.senderId, null)),
    ];
    return () => offs.forEach((off) => off());
  }, [frames, selfId]);

  const shown = typing.get(conversationId);
  const nextExpiry = Math.min(...(shown?.values() ?? []));
  useEffect(() => {
    if (!Number.isFinite(nextExpiry)) return;
    const timer = setTimeout(
      () => {
        const now = Date.now();
        setTyping((all) => {
          const users = new Map([...(all.get(conversationId) ?? [])].filter(([, until]) => until > now));
          return new Map(all).set(conversationId, users);
        });
      },
      Math.max(0, nextExpiry - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [conversationId, nextExpiry]);

  const onType = useCallback(() => {
    if (!sharing || !socket) return;
    const now = Date.now();
    if (now - (lastSent.current.get(conversationId) ?? 0) < SEND_EVERY_MS) return;
    if (socket.send({ type: 'typing', conversationId })) lastSent.current.set(conversationId, now);
  }, [sharing, socket, conversationId]);

  const setSharing = useCallback(
    (on: boolean) => {
      setSharingState(on);
      try {
        if (on) localStorage.removeItem(optOutKey(selfId));
        else localStorage.setItem(optOutKey(selfId), '1');
      } catch {
        // Not remembered; the choice holds for this tab.
      }
    },
    [selfId],
  );

  return { typingIds: [...(shown?.keys() ?? [])], onType, sharing, setSharing };
}
