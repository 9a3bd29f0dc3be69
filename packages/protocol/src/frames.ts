/** WebSocket frames, both ways. */
import { z } from 'zod';
import { conversationIdSchema, messageSchema } from './messages';
import { userIdSchema } from './primitives';

/** The socket authenticates with the session cookie sent at upgrade; no secret crosses it. */
export const clientFrameSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('authenticate') }),
  z.strictObject({ type: z.literal('ping') }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

export const serverFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('authenticated'), userId: userIdSchema }),
  z.object({ type: z.literal('auth_failed'), message: z.string() }),
  z.object({ type: z.literal('chat_message'), message: messageSchema }),
  z.object({ type: z.literal('presence'), userId: userIdSchema, online: z.boolean() }),
  /** The member list changed (join, ban, unban): refetch it. */
  z.object({ type: z.literal('users_changed') }),
  z.object({
    type: z.literal('membership_changed'),
    conversationId: conversationIdSchema,
    membershipVersion: z.number().int().nonnegative(),
  }),
  /** The server ended this session (logout elsewhere, ban, shutdown); the socket closes after. */
  z.object({ type: z.literal('session_ended'), reason: z.string(), message: z.string() }),
  z.object({ type: z.literal('security_breach'), message: z.string() }),
  z.object({ type: z.literal('network_security_alert'), message: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({ type: z.literal('pong') }),
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
