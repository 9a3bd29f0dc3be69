/** Read receipts (docs/security.md §15): the member's opt-in, their read position in a DM or a small group, and the others'. */
import { routes, type ReadPosition } from '@enclave/protocol';
import { call, me } from './http';

/** Whether the member sends (and so sees) read receipts, as the server holds it. */
export async function fetchReadReceipts(): Promise<boolean> {
  return (await me()).readReceipts;
}

/** Turns the member's read receipts on or off (off: the server deletes their read positions). */
export async function saveReadReceipts(enabled: boolean): Promise<boolean> {
  return (await call(routes.setReadReceipts, { body: { enabled } })).enabled;
}

/** Tells the server the member has read the DM with `receiverId` (or the group `receiverId`) up to `messageId`. */
export async function postReadPosition(receiverId: string, messageId: number): Promise<void> {
  await call(routes.markRead, { body: { receiverId, messageId } });
}

/** The other members' read positions in the DM or group: those who have read receipts on, none unless the member has too. */
export async function fetchPositions(receiverId: string): Promise<ReadPosition[]> {
  return (await call(routes.readPosition, { query: { receiverId } })).positions;
}
