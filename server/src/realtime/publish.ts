/**
 * Every frame the server sends, built here and nowhere else: one builder per frame type
 * (serverFrame), typed from the protocol's frame table (serverFrames in
 * packages/protocol/src/frames.ts), and one publisher per frame the bus carries (its bus event in
 * bus.ts), so that a frame's shape is written once. The table's audience decides which: `socket`
 * frames are sent by the gateway on the socket they answer (connection.ts, dispatch.ts, flow.ts,
 * and a feature's frame handler through its `send`); `members` and `all` frames are delivered
 * and `sessions` frames end sessions through the bus, after a commit, through
 * Gateway.publishCommitted: a failure is logged, and made good by the bus's `resync`.
 */
import {
  limits,
  type Message,
  type ServerFrameOf,
  type ServerFrameType,
  type ServerFrameTypeTo,
  type SessionEndReason,
  type TimelineEvent,
} from '@enclave/protocol';
import type { BusEvent } from './bus';

/** What publishes (the Gateway): a failure is logged, not thrown. */
export type FramePublisher = { publishCommitted(event: BusEvent): Promise<void> };
/** Every authenticated socket, or the sockets of these members. */
export type Audience = 'all' | string[];
type EndSessions = Extract<BusEvent, { kind: 'end_sessions' }>;
/** Whose sockets an `end_sessions` closes: one session, these sessions, or every session of these members. */
export type EndTarget = { sessionId: string } | { sessionIds: string[] } | { userIds: string[] };
/** A frame the bus delivers: one the table sends to members or to all. */
type Delivered = ServerFrameOf<ServerFrameTypeTo<'members' | 'all'>>;
/** A frame that ends sessions: one the table sends to `sessions`. */
type SessionsFrame = ServerFrameOf<ServerFrameTypeTo<'sessions'>>;
type Builders = { [T in Exclude<ServerFrameType, ServerFrameTypeTo<'none'>>]: (...args: never[]) => ServerFrameOf<T> };
type Party = { id: string; nodeId: string; hostId: string; joinerId: string };

/** Builds each frame the server sends, keyed by its type: a frame of the table without one does not compile. */
export const serverFrame = {
  authenticated: (userId: string) => ({ type: 'authenticated', userId }),
  auth_failed: (message: string) => ({ type: 'auth_failed', message }),
  presence_snapshot: (online: string[]) => ({ type: 'presence_snapshot', online }),
  pong: () => ({ type: 'pong' }),
  error: (message: string) => ({ type: 'error', message }),
  chat_message: (message: Message) => ({ type: 'chat_message', message }),
  timeline_event: (event: TimelineEvent) => ({ type: 'timeline_event', event }),
  messages_deleted: (conversationId: string, ids: number[], reason: ServerFrameOf<'messages_deleted'>['reason']) => ({
    type: 'messages_deleted',
    conversationId,
    ids,
    reason,
  }),
  membership_changed: (conversationId: string, membershipVersion: number, keyRetired?: true) => ({
    type: 'membership_changed',
    conversationId,
    membershipVersion,
    ...(keyRetired ? { keyRetired } : {}),
  }),
  channel_share: (epochId: string) => ({ type: 'channel_share', epochId }),
  typing: (conversationId: string, userId: string) => ({ type: 'typing', conversationId, userId }),
  read_position: (conversationId: string, userId: string, messageId: number) => ({
    type: 'read_position',
    conversationId,
    userId,
    messageId,
  }),
  p2p_signal: (connectionId: string, from: string, signal: ServerFrameOf<'p2p_signal'>['signal']) => ({
    type: 'p2p_signal',
    connectionId,
    from,
    signal,
  }),
  p2p_connection: (c: Party, state: ServerFrameOf<'p2p_connection'>['state']) => ({
    type: 'p2p_connection',
    connectionId: c.id,
    nodeId: c.nodeId,
    hostId: c.hostId,
    joinerId: c.joinerId,
    state,
  }),
  presence: (online: string[], offline: string[]) => ({ type: 'presence', online, offline }),
  // Past one lookup's worth of members, clients fetch the whole list instead.
  users_changed: (userIds?: readonly string[]) =>
    userIds && userIds.length <= limits.usersPerLookup ? { type: 'users_changed', userIds: [...userIds] } : { type: 'users_changed' },
  session_ended: (reason: SessionEndReason, message: string) => ({ type: 'session_ended', reason, message }),
  security_breach: (message: string) => ({ type: 'security_breach', message }),
} satisfies Builders;

const deliver = (out: FramePublisher, to: Audience, frame: Delivered) => out.publishCommitted({ kind: 'deliver', to, frame });

/** The `end_sessions` event that closes `target`'s sockets with `frame` (Gateway.endSessionsTimed takes it too). */
export const endSessionsEvent = (target: EndTarget, frame: SessionsFrame): EndSessions => ({ kind: 'end_sessions', ...target, frame });

/** Ends `target`'s sessions on every instance: a `session_ended` frame, then the close (closeCodes.sessionEnded). */
export const sessionEnded = (out: FramePublisher, target: EndTarget, reason: SessionEndReason, message: string) =>
  out.publishCommitted(endSessionsEvent(target, serverFrame.session_ended(reason, message)));

/** As sessionEnded, with a `security_breach` frame: the client wipes what it holds. */
export const securityBreach = (out: FramePublisher, target: EndTarget, message: string) =>
  out.publishCommitted(endSessionsEvent(target, serverFrame.security_breach(message)));

/** Tells every socket that these members' entries of the member list changed (or joined it). */
export const usersChanged = (out: FramePublisher, userIds: readonly string[]) => deliver(out, 'all', serverFrame.users_changed(userIds));

/** Tells a conversation's members that its member set moved to `membershipVersion` (and, after a removal, that the channel's key left force). */
export const membershipChanged = (
  out: FramePublisher,
  to: Audience,
  conversationId: string,
  membershipVersion: number,
  keyRetired?: true,
) => deliver(out, to, serverFrame.membership_changed(conversationId, membershipVersion, keyRetired));

/** Tells these members their share of the channel's key `epochId` is stored. */
export const channelShare = (out: FramePublisher, to: string[], epochId: string) => deliver(out, to, serverFrame.channel_share(epochId));

/** Hands a stored message to its conversation's members. */
export const chatMessage = (out: FramePublisher, to: Audience, message: Message) => deliver(out, to, serverFrame.chat_message(message));

/** Hands a timer change or a deletion for everyone to its conversation's members. */
export const timelineEvent = (out: FramePublisher, to: Audience, event: TimelineEvent) =>
  deliver(out, to, serverFrame.timeline_event(event));

/** Tells a conversation's members which of its messages the server erased, and why. */
export const messagesDeleted = (
  out: FramePublisher,
  to: Audience,
  conversationId: string,
  ids: number[],
  reason: ServerFrameOf<'messages_deleted'>['reason'],
) => deliver(out, to, serverFrame.messages_deleted(conversationId, ids, reason));

/** Announces to every socket who came online and who went offline. */
export const presence = (out: FramePublisher, online: string[], offline: string[]) =>
  deliver(out, 'all', serverFrame.presence(online, offline));

/** Relays that `userId` is typing in a conversation to its other members. */
export const typing = (out: FramePublisher, to: Audience, conversationId: string, userId: string) =>
  deliver(out, to, serverFrame.typing(conversationId, userId));

/** Tells the other member of a DM how far `userId` has read it (both opted in to read receipts). */
export const readPosition = (out: FramePublisher, to: string[], conversationId: string, userId: string, messageId: number) =>
  deliver(out, to, serverFrame.read_position(conversationId, userId, messageId));

/** Relays a signal to the other party of a connection. */
export const p2pSignal = (
  out: FramePublisher,
  to: string,
  connectionId: string,
  from: string,
  signal: ServerFrameOf<'p2p_signal'>['signal'],
) => deliver(out, [to], serverFrame.p2p_signal(connectionId, from, signal));

/** Tells both parties of a connection how it stands. */
export const p2pConnection = (out: FramePublisher, c: Party, state: ServerFrameOf<'p2p_connection'>['state']) =>
  deliver(out, [c.hostId, c.joinerId], serverFrame.p2p_connection(c, state));
