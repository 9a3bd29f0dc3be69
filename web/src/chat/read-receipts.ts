/** Read receipts' pure rules (use-read-receipts.ts holds the React and network side). */
import type { Message, ReadPosition } from '@enclave/protocol';

/**
 * Where "Read" goes: under the member's own message `messageId`, read by `by` (the members whose
 * position reached it), the latest of them at `readAt`.
 */
export type ReadMark = { messageId: number; readAt: string; by: string[] };

/** The newest message from someone else: what the member has read once the conversation is in view; null when nobody else wrote. */
export function newestFromOthers(messages: readonly Message[], selfId: string): number | null {
  return messages.findLast((m) => m.senderId !== selfId)?.id ?? null;
}

/**
 * "Read" goes under the member's own last message that some member's position reached (in a DM,
 * the peer's; in a small group, anyone's), naming who has read it; nowhere without a position or
 * such a message.
 */
export function readMarkFor(messages: readonly Message[], selfId: string, positions: readonly ReadPosition[]): ReadMark | null {
  const furthest = Math.max(0, ...positions.map((p) => p.messageId));
  const own = messages.findLast((m) => m.senderId === selfId && m.id <= furthest);
  if (!own) return null;
  const readers = positions.filter((p) => p.messageId >= own.id);
  const readAt = readers.map((p) => p.readAt).reduce((a, b) => (a > b ? a : b));
  return { messageId: own.id, readAt, by: readers.map((p) => p.userId) };
}

/** Positions with one heard live: a member's is kept only when it moves forwards (a frame may arrive after a newer fetch). */
export function withPosition(positions: readonly ReadPosition[] | undefined, heard: ReadPosition): ReadPosition[] {
  const old = positions?.find((p) => p.userId === heard.userId);
  if (old && old.messageId >= heard.messageId) return [...(positions ?? [])];
  return [...(positions ?? []).filter((p) => p.userId !== heard.userId), heard];
}

/** What the mark says: "Read" in a DM; in a group, who read it ("Read by bob, carol", "Read by bob, carol, dave and 2 more"). */
export function readMarkText(names: readonly string[] | null): string {
  if (names === null) return 'Read';
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `Read by ${shown} and ${names.length - 3} more` : `Read by ${shown}`;
}
