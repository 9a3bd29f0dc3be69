/**
 * The general channel's key (docs/scaling.md §6): its state, the upload of shares of a channel
 * epoch's secret (at a removal, for every member, in batches; after a join, for the newcomers),
 * and a sender's chain derived from it, which has no shares of its own.
 */
import { z } from 'zod';
import { GENERAL_CONVERSATION, limits } from './limits';
import { base64Bytes, epochIdSchema, isoDate, shareKeySchema, userIdSchema } from './primitives';

/** The signed header of one upload of shares (packages/crypto/src/channel-keys.ts `ChannelWrapHeader`). */
export const channelWrapHeaderSchema = z.strictObject({
  // A string, as @enclave/crypto types it; only the general channel has a channel key.
  conversationId: z.string().refine((id): boolean => id === GENERAL_CONVERSATION, 'must be the general channel'),
  epochId: epochIdSchema,
  generation: z.number().int().nonnegative().max(0xffffffff),
  wrapperId: userIdSchema,
  ephemeralPublicKey: base64Bytes(32, 32),
  signature: base64Bytes(64, 64),
});
/** One upload's signed header. */
export type ChannelWrapHeader = z.infer<typeof channelWrapHeaderSchema>;

/** One member's share: the secret wrapped with AES-KW, 40 bytes. */
export const channelShareSchema = z.strictObject({ recipientId: userIdSchema, wrappedKey: base64Bytes(40, 40) });

/** The caller's own share of a channel epoch, with the header it was wrapped under. */
export const ownChannelShareSchema = z.object({ header: channelWrapHeaderSchema, wrappedKey: base64Bytes(40, 40) });
/** The caller's share of a channel epoch. */
export type OwnChannelShare = z.infer<typeof ownChannelShareSchema>;

/**
 * `GET /api/channel-key`: the channel epoch in force (null after a removal, until a member's client
 * makes the next), the caller's share of it, the members the caller is to wrap it for (at most
 * `limits.channelSharesPerUpload`, most recently signed in first, with their share keys: of the
 * caller's claimed epoch while their claim holds, none while another member's claim holds) and who
 * is making the next epoch, or still wrapping the one in force for the members it has yet to reach.
 */
export const channelKeyStateSchema = z.object({
  membershipVersion: z.number().int().nonnegative(),
  epoch: z
    .object({
      id: epochIdSchema,
      /** The membership version it took effect at: the current generation is `membershipVersion - baseVersion`. */
      baseVersion: z.number().int().nonnegative(),
      ownShare: ownChannelShareSchema.nullable(),
    })
    .nullable(),
  /**
   * `generation`: the earliest the member may be given, the one they joined at (0 for everyone in
   * the channel when the epoch took force); absent from servers before it was kept, where it is
   * the current one.
   */
  pending: z.array(z.object({ id: userIdSchema, shareKey: shareKeySchema, generation: z.number().int().nonnegative().optional() })),
  rekey: z.object({ by: userIdSchema, epochId: epochIdSchema, until: isoDate }).nullable(),
});
/** The answer of `GET /api/channel-key`. */
export type ChannelKeyState = z.infer<typeof channelKeyStateSchema>;

/** `POST /api/channel-key/claim`: the caller's client will make the next channel epoch, under this id. */
export const claimChannelEpochSchema = z.strictObject({ epochId: epochIdSchema });

/**
 * `POST /api/channel-key/shares`: shares of the current channel epoch (for members who have none) at
 * a generation no later than the current one and no earlier than any recipient's joining, or of
 * the epoch the caller claimed at generation 0.
 */
export const uploadChannelSharesSchema = z.strictObject({
  header: channelWrapHeaderSchema,
  shares: z.array(channelShareSchema).min(1).max(limits.channelSharesPerUpload),
});
/** The body of `POST /api/channel-key/shares`. */
export type UploadChannelShares = z.infer<typeof uploadChannelSharesSchema>;

/** `POST /api/channel-key/activate`: the claimed epoch is uploaded; it becomes the channel's. */
export const activateChannelEpochSchema = z.strictObject({ epochId: epochIdSchema });

/**
 * `POST /api/channel-key/sender-epochs`: a sender's new epoch in the channel, its chain derived
 * from the channel epoch at the generation of `membershipVersion`; refused with
 * `membership_changed` while that is not current, or while a member still has no share and no
 * member's client is wrapping for them.
 */
export const createSenderEpochSchema = z.strictObject({
  epochId: epochIdSchema,
  channelEpochId: epochIdSchema,
  membershipVersion: z.number().int().nonnegative(),
});
/** The body of `POST /api/channel-key/sender-epochs`. */
export type CreateSenderEpoch = z.infer<typeof createSenderEpochSchema>;
