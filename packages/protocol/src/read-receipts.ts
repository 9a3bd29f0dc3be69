/**
 * Read receipts: opt-in per member and reciprocal. A member who sends none sees none; the server
 * holds a read position (a message id) only for members who opted in, and only in direct messages
 * and groups of up to `limits.readReceiptsMaxGroupMembers` members.
 */
import { z } from 'zod';
import { groupConversationIdSchema, isoDate, userIdSchema } from './primitives';

/** A DM's peer or a group: the general channel has no read receipts. */
const readReceiverIdSchema = z.union([userIdSchema, groupConversationIdSchema]);

/** `POST /api/users/me/read-receipts`: turns the member's read receipts on or off (off deletes their read positions). */
export const setReadReceiptsRequestSchema = z.strictObject({ enabled: z.boolean() });
/** The body of `POST /api/users/me/read-receipts`. */
export type SetReadReceiptsRequest = z.infer<typeof setReadReceiptsRequestSchema>;

/** The member's read-receipt setting, as it now stands. */
export const readReceiptsSettingSchema = z.object({ enabled: z.boolean() });
/** The answer of `POST /api/users/me/read-receipts`. */
export type ReadReceiptsSetting = z.infer<typeof readReceiptsSettingSchema>;

/** The id of a stored message, as a body carries it. */
const messageIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * `POST /api/conversations/read`: the caller has read the DM with `receiverId` (or the group
 * `receiverId`) up to `messageId`, a message of it.
 */
export const markReadRequestSchema = z.strictObject({ receiverId: readReceiverIdSchema, messageId: messageIdSchema });
/** The body of `POST /api/conversations/read`. */
export type MarkReadRequest = z.infer<typeof markReadRequestSchema>;

/**
 * Whether the position was stored: false while the caller has read receipts off, or when it
 * would move backwards (an older message than the one stored).
 */
export const markReadResponseSchema = z.object({ stored: z.boolean() });
/** The answer of `POST /api/conversations/read`. */
export type MarkReadResponse = z.infer<typeof markReadResponseSchema>;

/** `GET /api/conversations/reads`: the peer of the DM (or the group) whose read positions the caller asks for. */
export const readPositionQuerySchema = z.strictObject({ receiverId: readReceiverIdSchema });

/** How far a member has read a DM or a group: the last message id they saw, and when. */
export const readPositionSchema = z.object({ userId: userIdSchema, messageId: messageIdSchema, readAt: isoDate });
/** A member's read position in a DM. */
export type ReadPosition = z.infer<typeof readPositionSchema>;

/**
 * The other members' positions (a DM's peer, a small group's members) who have read receipts on
 * and have read something; none unless the caller has them on too.
 */
export const readPositionResponseSchema = z.object({ positions: z.array(readPositionSchema) });
/** The answer of `GET /api/conversations/reads`. */
export type ReadPositionResponse = z.infer<typeof readPositionResponseSchema>;
