/**
 * WebSocket frames, both ways, each declared once in a table keyed by its `type`, as routes are in
 * routes.ts: clientFrames (what a client sends, who may send it) and serverFrames (what the server
 * sends, who receives it). The schemas that parse frames are built from these tables.
 */
import { z } from 'zod';
import { conversationIdSchema, messageSchema, timelineEventSchema } from './messages';
import { p2pConnectionIdSchema, p2pNodeIdSchema, p2pSignalSchema } from './p2p';
import { limits } from './limits';
import { epochIdSchema, userIdSchema } from './primitives';
import type { Access } from './routes';

/** The schema of one frame: an object whose `type` is a literal, the key of its table entry. */
type FrameSchema = z.ZodObject<{ type: z.ZodLiteral<string> }>;

/** The union of a frame table's schemas, told apart by `type`: every entry of the table, and nothing else. */
function unionOf<T extends Record<string, { readonly schema: FrameSchema }>>(table: T) {
  type Schema = T[keyof T]['schema'];
  return z.discriminatedUnion('type', Object.values(table).map((d) => d.schema) as [Schema, ...Schema[]]);
}

/**
 * Who may send a client frame, in the words of routes.ts: `public` frames are answered on any
 * socket, before authentication too; `member` frames only once the socket has authenticated.
 */
export type FrameAccess = Extract<Access, 'public' | 'member'>;

/** One client frame of the table: its schema, who may send it, what it does, what limits it. */
export type ClientFrameDefinition = {
  /** A `z.strictObject`: a field the server does not know is an error frame, not ignored. */
  readonly schema: FrameSchema;
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
    summary:
      'Authenticates the socket with the session cookie sent at upgrade (no secret crosses it); once per socket, answered `authenticated` again after',
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
    summary:
      'The member is typing in a conversation: ids only, relayed to its members, never stored (throttled per socket and conversation)',
  },
} as const satisfies Record<string, ClientFrameDefinition>;

/** Parses a frame from a client: one of clientFrames, with nothing the table does not declare. */
export const clientFrameSchema = unionOf(clientFrames);
/** A frame a client sends. */
export type ClientFrame = z.infer<typeof clientFrameSchema>;

/**
 * Why the server ended a session: `logout` (signed out, in this browser or another tab), `revoked`
 * (ended from another session, by a newer sign-in past the device limit, or found over after a
 * bus gap), `expired`, `banned`, `locked` (a breach response locked the account).
 */
export const sessionEndReasonSchema = z.enum(['logout', 'revoked', 'expired', 'banned', 'locked']);
/** Why the server ended a session (sessionEndReasonSchema). */
export type SessionEndReason = z.infer<typeof sessionEndReasonSchema>;

/**
 * Who receives a server frame: `socket`, only the socket whose frame (or authentication) it
 * answers; `members`, the sockets of the members it names (a conversation's members, every
 * member's in the general conversation, a connection's parties); `all`, every authenticated
 * socket; `sessions`, the sockets of the sessions it ends, closed right after it
 * (closeCodes.sessionEnded); `none`, a frame this server never sends.
 */
export type FrameAudience = 'socket' | 'members' | 'all' | 'sessions' | 'none';

/** One server frame of the table: its schema, who receives it, what it says. */
export type ServerFrameDefinition = {
  /** A plain `z.object`: a reader drops the fields a newer server adds (docs/architecture.md §3). */
  readonly schema: FrameSchema;
  readonly audience: FrameAudience;
  /** One line on what the frame says. */
  readonly summary: string;
};

/**
 * Every frame the server sends, declared once, keyed by its `type`: clients parse frames with
 * serverFrameSchema, and the server builds each one in one place (server/src/realtime/publish.ts),
 * sent to the audience the table gives.
 */
export const serverFrames = {
  authenticated: {
    schema: z.object({ type: z.literal('authenticated'), userId: userIdSchema }),
    audience: 'socket',
    summary:
      'The socket is signed in as `userId` and gets every frame from here; sent again after a bus `resync`, and the client catches up from history on each',
  },
  auth_failed: {
    schema: z.object({ type: z.literal('auth_failed'), message: z.string() }),
    audience: 'socket',
    summary: 'No live session behind the socket’s cookie; the socket closes next (closeCodes.authFailed)',
  },
  presence_snapshot: {
    schema: z.object({ type: z.literal('presence_snapshot'), online: z.array(userIdSchema) }),
    audience: 'socket',
    summary: 'Every member online when the socket authenticated; the `presence` frames after it are changes to it',
  },
  pong: { schema: z.object({ type: z.literal('pong') }), audience: 'socket', summary: 'Answers a `ping`, in order' },
  error: {
    schema: z.object({ type: z.literal('error'), message: z.string() }),
    audience: 'socket',
    summary:
      'A frame of the socket’s was refused (malformed, too large, not signed in, too busy, refused by its handler) or its authentication could not be checked',
  },
  chat_message: {
    schema: z.object({ type: z.literal('chat_message'), message: messageSchema }),
    audience: 'members',
    summary: 'A message stored in a conversation of the member’s, to its members (the sender’s own sockets too)',
  },
  timeline_event: {
    schema: z.object({ type: z.literal('timeline_event'), event: timelineEventSchema }),
    audience: 'members',
    summary: 'A timer change or a deletion for everyone, in a conversation of the member’s',
  },
  messages_deleted: {
    schema: z.object({
      type: z.literal('messages_deleted'),
      conversationId: conversationIdSchema,
      ids: z.array(z.number().int().positive()),
      reason: z.enum(['expired', 'deleted']),
    }),
    audience: 'members',
    summary:
      'Messages erased from the server: `expired` ones vanish, `deleted` ones (by their sender) leave a “message deleted” note in their place',
  },
  membership_changed: {
    schema: z.object({
      type: z.literal('membership_changed'),
      conversationId: conversationIdSchema,
      membershipVersion: z.number().int().nonnegative(),
      /** The general channel's key left force (a removal): one member's client makes the next (docs/scaling.md §6). */
      keyRetired: z.literal(true).optional(),
    }),
    audience: 'members',
    summary:
      'A conversation’s members changed (a join, a ban, a group’s addition or removal; the member added or removed is told too): its next message starts a new sender key epoch at `membershipVersion`; `keyRetired`: the channel’s key left force and a client makes the next',
  },
  channel_share: {
    schema: z.object({ type: z.literal('channel_share'), epochId: epochIdSchema }),
    audience: 'members',
    summary:
      'The member’s share of the channel’s key `epochId` was stored (a re-key wraps for the most active members first and for the rest after it takes force): messages that waited for it can be read now',
  },
  typing: {
    schema: z.object({ type: z.literal('typing'), conversationId: conversationIdSchema, userId: userIdSchema }),
    audience: 'members',
    summary: '`userId` is typing in `conversationId` (shown for a few seconds after the last one)',
  },
  read_position: {
    schema: z.object({
      type: z.literal('read_position'),
      conversationId: conversationIdSchema,
      userId: userIdSchema,
      messageId: z.number().int().positive(),
    }),
    audience: 'members',
    summary:
      '`userId` read a DM or a small group up to `messageId`: to its other members only, and only to those who have read receipts on too',
  },
  p2p_signal: {
    schema: z.object({ type: z.literal('p2p_signal'), connectionId: p2pConnectionIdSchema, from: userIdSchema, signal: p2pSignalSchema }),
    audience: 'members',
    summary: 'Signaling from the other party of a connection, to this party only',
  },
  p2p_connection: {
    schema: z.object({
      type: z.literal('p2p_connection'),
      connectionId: p2pConnectionIdSchema,
      nodeId: p2pNodeIdSchema,
      hostId: userIdSchema,
      joinerId: userIdSchema,
      state: z.enum(['requested', 'open', 'closed']),
    }),
    audience: 'members',
    summary:
      'A connection changed, to both parties: `requested` (a joiner called connect), `open` (the host’s answer was relayed; it now counts in currentConnections), `closed`',
  },
  presence: {
    schema: z.object({ type: z.literal('presence'), online: z.array(userIdSchema), offline: z.array(userIdSchema) }),
    audience: 'all',
    summary: 'Members who came online and who went offline since the last one, coalesced per short tick on each server instance',
  },
  users_changed: {
    schema: z.object({ type: z.literal('users_changed'), userIds: z.array(userIdSchema).max(limits.usersPerLookup).optional() }),
    audience: 'all',
    summary:
      'The member list changed (a join, a ban or unban, a role, an unlock): fetch the members it names, or all of it when it names none',
  },
  session_ended: {
    schema: z.object({ type: z.literal('session_ended'), reason: sessionEndReasonSchema, message: z.string() }),
    audience: 'sessions',
    summary: 'The server ended this session (sessionEndReasonSchema says why); the socket closes next',
  },
  security_breach: {
    schema: z.object({ type: z.literal('security_breach'), message: z.string() }),
    audience: 'sessions',
    summary: 'A breach response ended the member’s sessions: the client wipes what it holds; the socket closes next',
  },
  network_security_alert: {
    schema: z.object({ type: z.literal('network_security_alert'), message: z.string() }),
    audience: 'none',
    summary: 'Not sent by this server; the web app logs its message as a warning',
  },
} as const satisfies Record<string, ServerFrameDefinition>;

/** Parses a frame from the server: one of serverFrames (fields it does not declare are dropped). */
export const serverFrameSchema = unionOf(serverFrames);
/** A frame the server sends. */
export type ServerFrame = z.infer<typeof serverFrameSchema>;
/** A server frame's `type`: a key of serverFrames. */
export type ServerFrameType = keyof typeof serverFrames;
/** The server frame of one type, or of each of several: `ServerFrameOf<'presence'>`. */
export type ServerFrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;
/** The types of the server frames the table sends to `A`: `ServerFrameTypeTo<'all'>` is `'presence' | 'users_changed'`. */
export type ServerFrameTypeTo<A extends FrameAudience> = {
  [T in ServerFrameType]: (typeof serverFrames)[T]['audience'] extends A ? T : never;
}[ServerFrameType];
