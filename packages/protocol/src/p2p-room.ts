/**
 * The room protocol of a community node: what members send each other over the WebRTC data
 * channel between a joiner and the host (docs/architecture.md §P2P). The server never sees these
 * frames. The host keeps the roster and relays every other frame to its joiners; messages are
 * end-to-end encrypted with sender keys (@enclave/crypto), so relaying needs no plaintext.
 */
import { z } from 'zod';
import { userIdSchema } from './primitives';

/** One frame on the data channel, as text: an epoch frame with 50 shares stays well below this. */
export const P2P_ROOM_FRAME_MAX_CHARS = 64 * 1024;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');

/** A recipient's share of a sender's epoch (@enclave/crypto's EpochShareUpload). */
export const p2pRoomShareSchema = z.strictObject({
  recipientId: userIdSchema,
  wrappedKey: base64.max(1024),
  signature: base64.max(256),
});

/** A frame of the room protocol: the host's roster, a sender's epoch, or an encrypted message. */
export const p2pRoomFrameSchema = z.discriminatedUnion('type', [
  /**
   * Host to everyone, on every change: who is in the room, the host first. `version` grows with
   * each change; a sender's epoch is wrapped for one version's members.
   */
  z.strictObject({ type: z.literal('roster'), version: z.number().int().nonnegative(), members: z.array(userIdSchema).min(1).max(51) }),
  /** A sender's new epoch: its chain key wrapped and signed for each member of roster `version`. */
  z.strictObject({
    type: z.literal('epoch'),
    senderId: userIdSchema,
    epochId: z.uuid(),
    version: z.number().int().nonnegative(),
    shares: z.array(p2pRoomShareSchema).min(1).max(51),
  }),
  /** Message `index` of the sender's epoch: the envelope of encryptMessage (ciphertext and signature). */
  z.strictObject({
    type: z.literal('message'),
    senderId: userIdSchema,
    epochId: z.uuid(),
    index: z.number().int().nonnegative(),
    encryptedContent: z.string().min(1).max(4096),
  }),
  /**
   * Joiner to host, first thing once the joiner's channel is open: the host takes the joiner into
   * the roster on it. The host's end of a new channel can report open before it carries data
   * (Chromium drops what is sent then); a frame arriving on it shows that it does.
   */
  z.strictObject({ type: z.literal('hello') }),
]);
/** A parsed room frame. */
export type P2pRoomFrame = z.infer<typeof p2pRoomFrameSchema>;
/** The frames members handle: all but the joiner's hello, which only its host reads. */
export type P2pRoomMemberFrame = Exclude<P2pRoomFrame, { type: 'hello' }>;

/**
 * Parses one data-channel frame; null for anything that is not a valid frame (the other end is a
 * browser we do not control).
 */
export function parseP2pRoomFrame(data: unknown): P2pRoomFrame | null {
  if (typeof data !== 'string' || data.length > P2P_ROOM_FRAME_MAX_CHARS) return null;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = p2pRoomFrameSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
