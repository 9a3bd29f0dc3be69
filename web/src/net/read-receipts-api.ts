/** Read receipts (docs/security.md §15): the member's opt-in, their read position in a DM, and the peer's. */
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

/** Tells the server the member has read the DM with `receiverId` up to `messageId`. */
export async function postReadPosition(receiverId: string, messageId: number): Promise<void> {
  await call(routes.markRead, { body: { receiverId, messageId } });
}

/** The peer's read position in the DM, or null unless both have read receipts on. */
export async function fetchPeerPosition(receiverId: string): Promise<ReadPosition | null> {
  return (await call(routes.readPosition, { query: { receiverId } })).positions.find((p) => p.userId === receiverId) ?? null;
}
