/**
 * Typing indicators over the member's socket: a `typing` frame goes to the other members of its
 * conversation, through the bus so that members on other instances see it. It carries ids only,
 * is never stored, and is throttled per socket and conversation.
 *
 * Nothing is answered: a frame over the throttle, or for a conversation the member may not write
 * to (a DM of others, a banned peer), is dropped silently, as a lost indicator harms nobody.
 */
import { GENERAL_CONVERSATION, isGroupConversation } from '@enclave/protocol';
import type { AppContext } from '../context';
import { audienceOf, conversationFor } from '../conversations/membership';
import { HttpError } from '../http/errors';
import type { FrameFailure, FrameHandler } from '../realtime/dispatch';
import type { EventSource } from '../security/events';
import { typing } from '../realtime/publish';

/** At most one frame relayed per socket and conversation in this window. */
export const TYPING_THROTTLE_MS = 2_000;

/**
 * What `me` names as the receiver of `conversationId` ('all' for the channel, the peer of a DM,
 * the group's own id), or null when `me` is not one of a DM's two members (a group's membership
 * is the write rule's to check).
 */
function receiverOf(me: string, conversationId: string): string | null {
  if (conversationId === GENERAL_CONVERSATION) return 'all';
  if (isGroupConversation(conversationId)) return conversationId;
  const [a, b] = conversationId.split(':').slice(1);
  if (me === a) return b ?? null;
  if (me === b) return a ?? null;
  return null;
}

/** An indicator is not worth an error frame: the next keystroke sends another. */
export const typingFrameFailed: FrameFailure = (err, _send, log) => log.warn({ err }, 'typing frame failed');

export function typingFrameHandler(ctx: AppContext, now: () => number = Date.now): FrameHandler<'typing'> {
  // Keyed by the socket's origin, which lives exactly as long as its socket.
  const lastRelayed = new WeakMap<EventSource, Map<string, number>>();
  return async ({ userId, origin }, frame) => {
    const { conversationId } = frame;
    const times = lastRelayed.get(origin) ?? new Map<string, number>();
    lastRelayed.set(origin, times);
    const last = times.get(conversationId);
    if (last !== undefined && now() - last < TYPING_THROTTLE_MS) return;
    times.set(conversationId, now());

    const receiverId = receiverOf(userId, conversationId);
    if (!receiverId) return;
    // The send path's rule: whoever may write here may say they are typing.
    try {
      await conversationFor(ctx.db, userId, receiverId, 'write');
    } catch (err) {
      if (err instanceof HttpError) return;
      throw err;
    }
    // As chat messages: the channel reaches every socket, a group its members (the sender's own tabs ignore it).
    const to = isGroupConversation(conversationId) ? await audienceOf(ctx.db, conversationId) : receiverId === 'all' ? 'all' : [receiverId];
    await typing(ctx.gateway, to, conversationId, userId);
  };
}
