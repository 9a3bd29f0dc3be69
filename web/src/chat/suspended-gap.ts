/**
 * The conversation's rows in timeline order, with the messages a member could not read because
 * they were sent while the member was banned folded into one explained gap. Such a message has no
 * share of its epoch for this member (packages/client/src/message-decryptor.ts: `noShare`, the
 * senders left a banned member out of their epochs) and was sent after the member joined, so it
 * is not one of the messages "sent before you joined".
 */
import type { DecryptResult } from '@enclave/client';
import type { Message, TimelineEvent } from '@enclave/protocol';

export type TimelineRow =
  | { kind: 'message'; message: Message }
  | { kind: 'event'; event: TimelineEvent }
  /** Consecutive messages sent while the member was suspended, oldest first (never empty). */
  | { kind: 'suspended'; messages: Message[] };

/** "3 messages sent while your account was suspended", "1 message sent while…". */
export function suspendedText(count: number): string {
  return `${count} ${count === 1 ? 'message' : 'messages'} sent while your account was suspended`;
}

/** A message this member cannot read because it was sent while they were banned. */
export function sentWhileSuspended(message: Message, result: DecryptResult | undefined, selfId: string, joinedAt: string | null): boolean {
  if (result?.status !== 'unreadable' || !result.noShare || message.senderId === selfId || joinedAt === null) return false;
  return Date.parse(message.timestamp) > Date.parse(joinedAt);
}

/**
 * Messages and events in one id order; runs of messages sent while suspended become one row (an
 * event between them, or a readable message, starts a new run).
 *
 * @param joinedAt when the signed-in member joined (the member list's `joinedAt`); null while unknown
 */
export function timelineRows(
  messages: readonly Message[],
  events: readonly TimelineEvent[],
  results: ReadonlyMap<number, DecryptResult>,
  selfId: string,
  joinedAt: string | null,
): TimelineRow[] {
  const items: TimelineRow[] = [
    ...messages.map((message) => ({ kind: 'message' as const, message })),
    ...events.map((event) => ({ kind: 'event' as const, event })),
  ].sort((a, b) => (a.kind === 'message' ? a.message.id : a.event.id) - (b.kind === 'message' ? b.message.id : b.event.id));
  const rows: TimelineRow[] = [];
  for (const item of items) {
    if (item.kind !== 'message' || !sentWhileSuspended(item.message, results.get(item.message.id), selfId, joinedAt)) {
      rows.push(item);
      continue;
    }
    const last = rows.at(-1);
    if (last?.kind === 'suspended') last.messages.push(item.message);
    else rows.push({ kind: 'suspended', messages: [item.message] });
  }
  return rows;
}
