/** WebSocket frames, both ways. */
import { z } from 'zod';
import { conversationIdSchema, messageSchema, timelineEventSchema } from './messages';
import { p2pConnectionIdSchema, p2pNodeIdSchema, p2pSignalSchema } from './p2p';
import { userIdSchema } from './primitives';
import type { Access } from './routes';

/**
 * Who may send a client frame, in the words of routes.ts: `public` frames are answered on any
 * socket, before authentication too; `member` frames only once the socket has authenticated.
 */
export type FrameAccess = Extract<Access, 'public' | 'member'>;

export type ClientFrameDefinition = {
  readonly schema: z.ZodObject<{ type: z.ZodLiteral<string> }>;
  readonly access: FrameAccess;
  /** One line on what the frame does. */
  readonly summary: string;
  /** The server's rate limit (its configuration's `rateLimits` key) that counts the frame, over all the member's sockets. */
  readonly rateLimit?: 'p2pSignal';
};

/**
 * Every frame a client sends, declared once, keyed by its `type`: the server parses frames with
 * clientFrameSchema and routes them by this table (server/src/realtime/dispatch.ts).
 */
export const clientFrames = {
  authenticate: {
    schema: z.strictObject({ type: z.literal('authenticate') }),
    access: 'public',
    summary: 'Authenticates the socket with the session cookie sent at upgrade (no secret crosses it); once per socket, answered `authenticated` again after',
  },
  ping: { schema: z.strictObject({ type: z.literal('ping') }), access: 'public', summary: 'Answered with one `pong`, in order' },
  p2p_signal: {
    schema: z.strictObject({ type: z.literal('p2p_signal'), connectionId: p2pConnectionIdSchema, signal: p2pSignalSchema }),
    access: 'member',
    summary: 'WebRTC signaling for one connection, relayed to its other party only',
    rateLimit: 'p2pSignal',
  },
  p2p_close: {
    schema: z.strictObject({ type: z.literal('p2p_close'), connectionId: p2pConnectionIdSchema }),
    access: 'member',
    summary: 'Either party ends a connection',
    rateLimit: 'p2pSignal',
  },
  typing: {
    schema: z.strictObject({ type: z.literal('typing'), conversationId: conversationIdSchema }),
    access: 'member',
    summary: 'The member is typing in a conversation: ids only, relayed to its members, never stored (throttled per socket and conversation)',
  },
} as const satisfies Record<string, ClientFrameDefinition>;

export const clientFrameSchema = z.discriminatedUnion('type', [
  clientFrames.authenticate.schema,
  clientFrames.ping.schema,
  clientFrames.p2p_signal.schema,
  clientFrames.p2p_close.schema,
  clientFrames.typing.schema,
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

/**
 * Why the server ended a session: `logout` (signed out, in this browser or another tab), `revoked`
 * (ended from another session, by a newer sign-in past the device limit, or found over after a
 * bus gap), `expired`, `banned`, `locked` (a breach response locked the account).
 */
export const sessionEndReasonSchema = z.enum(['logout', 'revoked', 'expired', 'banned', 'locked']);
export type SessionEndReason = z.infer<typeof sessionEndReasonSchema>;

export const serverFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('authenticated'), userId: userIdSchema }),
  z.object({ type: z.literal('auth_failed'), message: z.string() }),
  z.object({ type: z.literal('chat_message'), message: messageSchema }),
  /** A timer change or a deletion for everyone, in a conversation of the member's. */
  z.object({ type: z.literal('timeline_event'), event: timelineEventSchema }),
  /**
   * Messages erased from the server: `expired` ones vanish, `deleted` ones (by their sender) leave
   * a "message deleted" note in their place.
   */
  z.object({
    type: z.literal('messages_deleted'),
    conversationId: conversationIdSchema,
    ids: z.array(z.number().int().positive()),
    reason: z.enum(['expired', 'deleted']),
  }),
  /**
   * Presence changes, coalesced per short tick on each server instance: members who came online
   * and members who went offline since the last frame.
   */
  z.object({ type: z.literal('presence'), online: z.array(userIdSchema), offline: z.array(userIdSchema) }),
  /** Every member online when the socket authenticated; the `presence` frames after it are changes to it. */
  z.object({ type: z.literal('presence_snapshot'), online: z.array(userIdSchema) }),
  /** The member list changed (join, ban, unban): refetch it. */
  z.object({ type: z.literal('users_changed') }),
  z.object({
    type: z.literal('membership_changed'),
    conversationId: conversationIdSchema,
    membershipVersion: z.number().int().nonnegative(),
  }),
  /** The server ended this session (see sessionEndReasonSchema); the socket closes after, with closeCodes.sessionEnded. */
  z.object({ type: z.literal('session_ended'), reason: sessionEndReasonSchema, message: z.string() }),
  z.object({ type: z.literal('security_breach'), message: z.string() }),
  z.object({ type: z.literal('network_security_alert'), message: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({ type: z.literal('pong') }),
  /** `userId` is typing in `conversationId` (shown for a few seconds after the last one). */
  z.object({ type: z.literal('typing'), conversationId: conversationIdSchema, userId: userIdSchema }),
  /** Signaling from the other party of a connection. */
  z.object({ type: z.literal('p2p_signal'), connectionId: p2pConnectionIdSchema, from: userIdSchema, signal: p2pSignalSchema }),
  /**
   * A connection changed, to both parties: 'requested' (a joiner called connect; to the host),
   * 'open' (the host's answer was relayed; it now counts in currentConnections), 'closed'.
   */
  z.object({
    type: z.literal('p2p_connection'),
    connectionId: p2pConnectionIdSchema,
    nodeId: p2pNodeIdSchema,
    hostId: userIdSchema,
    joinerId: userIdSchema,
    state: z.enum(['requested', 'open', 'closed']),
  }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
