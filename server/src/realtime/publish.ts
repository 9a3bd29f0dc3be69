/**
 * Every frame the server publishes, one function each: features call these instead of writing a
 * frame or a bus event by hand, so that a frame's shape is written once (its schema is in
 * packages/protocol/src/frames.ts, its bus event in bus.ts). Each publishes after a commit, through
 * Gateway.publishCommitted: a failure is logged, and made good by the bus's `resync`.
 */
import type { Message, ServerFrame, SessionEndReason, TimelineEvent } from '@enclave/protocol';
import type { BusEvent } from './bus';

/** What publishes (the Gateway): a failure is logged, not thrown. */
export type FramePublisher = { publishCommitted(event: BusEvent): Promise<void> };
/** Every authenticated socket, or the sockets of these members. */
export type Audience = 'all' | string[];
type EndSessions = Extract<BusEvent, { kind: 'end_sessions' }>;
/** Whose sockets an `end_sessions` closes: one session, these sessions, or every session of these members. */
export type EndTarget = { sessionId: string } | { sessionIds: string[] } | { userIds: string[] };
type Frame<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;

const deliver = (out: FramePublisher, to: Audience, frame: ServerFrame) => out.publishCommitted({ kind: 'deliver', to, frame });

export const sessionEndedFrame = (reason: SessionEndReason, message: string): Frame<'session_ended'> => ({ type: 'session_ended', reason, message });

/** The `end_sessions` event that closes `target`'s sockets with `frame` (Gateway.endSessionsTimed takes it too). */
export const endSessionsEvent = (target: EndTarget, frame: Frame<'session_ended' | 'security_breach'>): EndSessions => ({
  kind: 'end_sessions',
  ...target,
  frame,
});

/** Ends `target`'s sessions on every instance: a `session_ended` frame, then the close (closeCodes.sessionEnded). */
export const sessionEnded = (out: FramePublisher, target: EndTarget, reason: SessionEndReason, message: string) =>
  out.publishCommitted(endSessionsEvent(target, sessionEndedFrame(reason, message)));

/** As sessionEnded, with a `security_breach` frame: the client wipes what it holds. */
export const securityBreach = (out: FramePublisher, target: EndTarget, message: string) =>
  out.publishCommitted(endSessionsEvent(target, { type: 'security_breach', message }));

export const usersChanged = (out: FramePublisher) => deliver(out, 'all', { type: 'users_changed' });

export const membershipChanged = (out: FramePublisher, to: Audience, conversationId: string, membershipVersion: number) =>
  deliver(out, to, { type: 'membership_changed', conversationId, membershipVersion });

export const chatMessage = (out: FramePublisher, to: Audience, message: Message) => deliver(out, to, { type: 'chat_message', message });

export const timelineEvent = (out: FramePublisher, to: Audience, event: TimelineEvent) => deliver(out, to, { type: 'timeline_event', event });

export const messagesDeleted = (out: FramePublisher, to: Audience, conversationId: string, ids: number[], reason: Frame<'messages_deleted'>['reason']) =>
  deliver(out, to, { type: 'messages_deleted', conversationId, ids, reason });

export const presence = (out: FramePublisher, online: string[], offline: string[]) => deliver(out, 'all', { type: 'presence', online, offline });

export const typing = (out: FramePublisher, to: Audience, conversationId: string, userId: string) => deliver(out, to, { type: 'typing', conversationId, userId });

export const p2pSignal = (out: FramePublisher, to: string, connectionId: string, from: string, signal: Frame<'p2p_signal'>['signal']) =>
  deliver(out, [to], { type: 'p2p_signal', connectionId, from, signal });

/** Tells both parties of a connection how it stands. */
export const p2pConnection = (
  out: FramePublisher,
  c: { id: string; nodeId: string; hostId: string; joinerId: string },
  state: Frame<'p2p_connection'>['state'],
) => deliver(out, [c.hostId, c.joinerId], { type: 'p2p_connection', connectionId: c.id, nodeId: c.nodeId, hostId: c.hostId, joinerId: c.joinerId, state });
