/**
 * The sending half of sender keys (docs/security.md §4), over the server. The epochs are
 * {@link SendingEpochs}' (one current epoch per conversation, rotated after 100 messages, after 7
 * days or when the membership moved); here the members come from the server, new epochs' shares
 * are uploaded to it (in the general channel, epochs are derived from its key instead:
 * channel-key.ts), a `membership_changed` frame moves the version, and a message the server
 * refuses with 409 membership_changed is sent again under a new epoch (up to 3 times). Each message
 * carries an id of its own, and after a failure that may have come after the server stored it
 * (no answer, a 5xx) the very same request is sent again, which the server answers with the stored
 * message. Whether the recipients may have the chain key is not decided here but by the
 * {@link RecipientTrust} given, which may leave out channel members whose keys are not usable
 * (reported through `onRecipientsSkipped`; the server accepts an epoch without them,
 * docs/security.md §4).
 */
import type { Epoch } from '@enclave/crypto';
import {
  conversationIdFor,
  GENERAL_CONVERSATION,
  type MessageContent,
  type ConversationMembersResponse,
  type CreateEpochRequest,
  type Message,
  type SendMessageRequest,
} from '@enclave/protocol';
import { isMembershipChanged, isTransientFailure, requestedWaitMs } from './api-failure';
import type { ChannelKey } from './channel-key';
import type { Recipient, SkippedRecipient } from './key-trust';
import { SendingEpochs, type EpochTransport, type RecipientTrust, type SendingCrypto } from './sending-epochs';

export type { RecipientTrust } from './sending-epochs';

/**
 * The calls to the server sending needs. A refusal is thrown as an error carrying `status` and
 * `code` (see {@link isMembershipChanged}).
 */
export type SenderKeysApi = {
  conversationMembers(receiverId: string): Promise<ConversationMembersResponse>;
  createEpoch(request: CreateEpochRequest): Promise<void>;
  sendMessage(request: SendMessageRequest): Promise<Message>;
};

/** The functions of `@enclave/crypto` that sending needs (fakes in tests). */
export type SenderKeysCrypto = SendingCrypto;

/** Everything {@link SenderKeys} is built from. */
export type SenderKeysOptions = {
  /** The member; `encryptionPublicKey` is their own copy (derived from their private key), never the server's. */
  self: { id: string; encryptionPublicKey: string };
  signKey: CryptoKey;
  api: SenderKeysApi;
  crypto: SenderKeysCrypto;
  now?: () => number;
  /** Each new epoch, so the receiving side can read the member's own messages without a share fetch. */
  onEpochCreated?: (epoch: Epoch) => void;
  /**
   * Throws unless every recipient may have the chain key (their keys are the ones this member
   * knows): a server that offers its own key for someone gets nothing. Required: no epoch is
   * wrapped unchecked.
   */
  trust: RecipientTrust;
  /**
   * After each new epoch, the members it was not wrapped for because their keys are not usable
   * (usually none: an empty list), so the member can be told who cannot read them.
   */
  onRecipientsSkipped?: (conversationId: string, skipped: SkippedRecipient[]) => void;
  /**
   * The general channel's key: the channel's sender epochs are derived from it, with no wrap for a
   * join. Without it (a session from before share keys), they are wrapped for every member.
   */
  channelKey?: Pick<ChannelKey, 'newSenderEpoch'>;
  /** A new id for each message (by default a random UUID). */
  newMessageId?: () => string;
  /**
   * Waits before each resend of a message after a network failure or a 5xx; as many resends as
   * delays. By default {@link SEND_RETRY_DELAYS_MS}. A longer `Retry-After` (a busy server's 503)
   * is waited instead.
   */
  sendRetryDelaysMs?: readonly number[];
};

/** How many times a message refused with 409 membership_changed is sent again under a new epoch. */
export const MEMBERSHIP_RESENDS = 3;

/** Two resends, after half a second and after two more. */
export const SEND_RETRY_DELAYS_MS: readonly number[] = [500, 2000];

/** What a send carries: the encrypted content, and for an annotation the server-visible id of its target. */
export type Outbound = MessageContent & { targetId?: number };

/**
 * The sending half of sender keys for one member: one current epoch per conversation, rotated as
 * docs/security.md §4 says.
 *
 * @example
 * ```ts
 * const senderKeys = new SenderKeys({ self, signKey, api, crypto: { createEpoch, encryptMessage }, trust });
 * const message = await senderKeys.send('all', 'hello');
 * const photo = await senderKeys.send(peerId, { text: 'caption', attachment });
 * ```
 */
export class SenderKeys {
  private readonly epochs: SendingEpochs;
  /** Requests whose resends all failed in a way that may pass, by client message id, for a retry. */
  private readonly unsent = new Map<string, SendMessageRequest & { clientMessageId: string }>();
  private readonly options: SenderKeysOptions;

  constructor(options: SenderKeysOptions) {
    this.options = options;
    const { self, signKey, crypto, trust, now, onEpochCreated, onRecipientsSkipped } = options;
    this.epochs = new SendingEpochs({
      self,
      signKey,
      crypto,
      trust,
      ...(now ? { now } : {}),
      onEpochCreated: ({ conversationId, epoch, skipped }) => {
        onEpochCreated?.(epoch);
        onRecipientsSkipped?.(conversationId, skipped);
      },
    });
  }

  /** A `membership_changed` frame: the next message of that conversation starts a new epoch. */
  membershipChanged(conversationId: string, membershipVersion: number): void {
    this.epochs.membershipChanged(conversationId, membershipVersion);
  }

  /** Forces a new epoch for this conversation at its next message. */
  invalidate(conversationId: string): void {
    this.epochs.invalidate(conversationId);
  }

  /**
   * Encrypts and sends one message — a text, or an uploaded attachment with its caption (linked
   * to the message by the server) — and returns the message as the server stored it. Called again
   * with the `clientMessageId` of a send that failed (the member's Retry), it posts that send's very
   * request again: the server may have stored it without answering, and a new encryption would be a
   * second message.
   */
  async send(receiverId: string, message: string | Outbound, clientMessageId = this.newMessageId()): Promise<Message> {
    const content = typeof message === 'string' ? { text: message } : message;
    const conversationId = conversationIdFor(this.options.self.id, receiverId);
    // One id for the message, kept through every resend. A 409 membership_changed says nothing was
    // stored under it, so the rotated resend may carry it too.
    const unsent = this.unsent.get(clientMessageId);
    for (let resends = 0; ; resends++) {
      try {
        if (unsent && resends === 0) return await this.deliver(unsent);
        return await this.sendOnce(receiverId, conversationId, content, clientMessageId);
      } catch (error) {
        if (!isMembershipChanged(error) || resends === MEMBERSHIP_RESENDS) throw error;
        // The epoch was made for an older member set: rotate and resend. Members who join one
        // after another can move the set again meanwhile, so this is tried a few times.
        this.invalidate(conversationId);
      }
    }
  }

  /** A new id for a message (see {@link send}). */
  newMessageId(): string {
    return (this.options.newMessageId ?? (() => crypto.randomUUID()))();
  }

  private async sendOnce(receiverId: string, conversationId: string, content: Outbound, clientMessageId: string): Promise<Message> {
    const { epoch, index, encryptedContent } = await this.epochs.encrypt(
      conversationId,
      content,
      this.transport(receiverId, conversationId),
    );
    return this.deliver({
      receiverId,
      epochId: epoch.epochId,
      index,
      encryptedContent,
      messageType: 'text',
      clientMessageId,
      ...(content.attachment ? { attachmentIds: [content.attachment.id] } : {}),
      ...(content.targetId !== undefined ? { targetId: content.targetId } : {}),
    });
  }

  /**
   * Posts a message; after a failure the server may have stored it despite (no answer, a 5xx),
   * posts the very same request again: the same id, epoch, index and ciphertext, which the server
   * answers with the message it stored rather than a second copy or a replay refusal. A new index
   * or a new encryption would be a second message.
   */
  private async deliver(request: SendMessageRequest & { clientMessageId: string }): Promise<Message> {
    const delays = this.options.sendRetryDelaysMs ?? SEND_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const message = await this.options.api.sendMessage(request);
        this.unsent.delete(request.clientMessageId);
        return message;
      } catch (error) {
        const delay = delays[attempt];
        if (!isTransientFailure(error)) {
          this.unsent.delete(request.clientMessageId);
          throw error;
        }
        if (delay === undefined) {
          // Perhaps stored without an answer: a retry must post exactly this again.
          this.unsent.set(request.clientMessageId, request);
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(delay, requestedWaitMs(error))));
      }
    }
  }

  /** The conversation's members as the server lists them, and its new epochs uploaded to it. */
  private transport(receiverId: string, conversationId: string): EpochTransport {
    const { api, channelKey } = this.options;
    if (conversationId === GENERAL_CONVERSATION && channelKey) return { receiverId, derive: () => channelKey.newSenderEpoch() };
    return {
      receiverId,
      members: async () => {
        const members = await api.conversationMembers(receiverId);
        return { membershipVersion: members.membershipVersion, recipients: this.recipientsOf(members, conversationId) };
      },
      upload: (epoch, shares) =>
        api.createEpoch({ epochId: epoch.epochId, receiverId, membershipVersion: epoch.membershipVersion, shares }),
    };
  }

  /**
   * The members to wrap for, as the server listed them (the trust checks them next; the sender is
   * added by {@link SendingEpochs} when the server left them out).
   */
  private recipientsOf(members: ConversationMembersResponse, conversationId: string): Recipient[] {
    if (members.conversationId !== conversationId) {
      throw new Error(`members answer is for ${members.conversationId}, not ${conversationId}`);
    }
    return members.members.map((m) => ({ id: m.id, encryptionPublicKey: m.encryptionPublicKey }));
  }
}
