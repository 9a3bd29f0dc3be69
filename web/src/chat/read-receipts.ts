/** Read receipts' pure rules (use-read-receipts.ts holds the React and network side). */
import type { Message, ReadPosition } from '@enclave/protocol';

/** Where "Read" goes: under the member's own message `messageId`, read at `readAt`. */
export type ReadMark = { messageId: number; readAt: string };

/** The newest message from the peer: what the member has read once the DM is in view; null when the peer wrote none. */
export function newestFrom(messages: readonly Message[], peerId: string): number | null {
  return messages.findLast((m) => m.senderId === peerId)?.id ?? null;
}

/** "Read" goes under the member's own last message at or before the peer's position; nowhere without a position or such a message. */
export function readMarkFor(messages: readonly Message[], selfId: string, position: ReadPosition | null | undefined): ReadMark | null {
  if (!position) return null;
  const own = messages.findLast((m) => m.senderId === selfId && m.id <= position.messageId);
  return own ? { messageId: own.id, readAt: position.readAt } : null;
}

/** A position heard live: kept only when it moves forwards (a frame may arrive after a newer fetch). */
export function laterPosition(old: ReadPosition | null | undefined, heard: ReadPosition): ReadPosition {
  return old && old.messageId >= heard.messageId ? old : heard;
}
