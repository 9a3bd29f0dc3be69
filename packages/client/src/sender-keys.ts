/**
 * The sending half of sender keys (docs/security.md §4). Per conversation this keeps the member's
 * current epoch and its next message index, and starts a new epoch — fetch the members, wrap a
 * fresh chain key for each, upload the signed shares — when there is none, after 100 messages,
 * after 7 days, when the membership moved (a `membership_changed` frame) or when the server
 * refuses a message with 409 membership_changed (then the message is sent again once). Each message
 * carries an id of its own, and after a failure that may have come after the server stored it
 * (no answer, a 5xx) the very same request is sent again, which the server answers with the stored
 * message. Whether the recipients may have the chain key is not decided here but by the
 * {@link RecipientTrust} given, which may leave out channel members whose keys are not usable
 * (reported through `onRecipientsSkipped`; the server accepts an epoch without them,
 * docs/security.md §4).
 */
import type { Epoch, createEpoch, encryptMessage } from '@enclave/crypto';
import {
  conversationIdFor,
  encodeContent,
  limits,
  type MessageContent,
  type ConversationMembersResponse,
  type CreateEpochRequest,
  type Message,
  type SendMessageRequest,
} from '@enclave/protocol';
import { isMembershipChanged, isTransientFailure, requestedWaitMs } from './api-failure';
import type { KeyTrust, Recipient, SkippedRecipient } from './key-trust';

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
export type SenderKeysCrypto = {
  createEpoch: typeof createEpoch;
  encryptMessage: typeof encryptMessage;
};

/** What decides whether a new epoch's recipients may have its chain key: a {@link KeyTrust}. */
export type RecipientTrust = Pick<KeyTrust, 'checkRecipients'>;

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
  /** A new id for each message (by default a random UUID). */
  newMessageId?: () => string;
  /**
   * Waits before each resend of a message after a network failure or a 5xx; as many resends as
   * delays. By default {@link SEND_RETRY_DELAYS_MS}. A longer `Retry-After` (a busy server's 503)
   * is waited instead.
   */
  sendRetryDelaysMs?: readonly number[];
};

/** Two resends, after half a second and after two more. */
export const SEND_RETRY_DELAYS_MS: readonly number[] = [500, 2000];

type SendingEpoch = { epoch: Epoch; nextIndex: number; createdAt: number };

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
  private readonly epochs = new Map<string, SendingEpoch>();
  private readonly rotations = new Map<string, Promise<SendingEpoch>>();
  /** Highest membership version heard of per conversation (frames, members answers). */
  private readonly knownVersions = new Map<string, number>();
  /** Requests whose resends all failed in a way that may pass, by client message id, for a retry. */
  private readonly unsent = new Map<string, SendMessageRequest & { clientMessageId: string }>();
  private readonly options: SenderKeysOptions;
  private readonly now: () => number;

  constructor(options: SenderKeysOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** A `membership_changed` frame: the next message of that conversation starts a new epoch. */
  membershipChanged(conversationId: string, membershipVersion: number): void {
    const known = this.knownVersions.get(conversationId) ?? -1;
    if (membershipVersion > known) this.knownVersions.set(conversationId, membershipVersion);
  }

  /** Forces a new epoch for this conversation at its next message. */
  invalidate(conversationId: string): void {
    this.epochs.delete(conversationId);
  }

  /**
   * Encrypts and sends one message — a text, or an uploaded attachment with its caption (linked
   * to the message by the server) — and returns the message as the server stored it. Called again
   * with the `clientMessageId` of a send that failed (the member's Retry), it posts that send's very
   * request again: the server may have stored it without answering, and a new encryption would be a
   * second message.
   */
  async send(receiverId: string, message: string | MessageContent, clientMessageId = this.newMessageId()): Promise<Message> {
    const content = typeof message === 'string' ? { text: message } : message;
    const conversationId = conversationIdFor(this.options.self.id, receiverId);
    // One id for the message, kept through every resend. A 409 membership_changed says nothing was
    // stored under it, so the rotated resend may carry it too.
    try {
      const unsent = this.unsent.get(clientMessageId);
      if (unsent) return await this.deliver(unsent);
      return await this.sendOnce(receiverId, conversationId, content, clientMessageId);
    } catch (error) {
      if (!isMembershipChanged(error)) throw error;
      // The epoch was made for an older member set: rotate and resend exactly once.
      this.invalidate(conversationId);
      return this.sendOnce(receiverId, conversationId, content, clientMessageId);
    }
  }

  /** A new id for a message (see {@link send}). */
  newMessageId(): string {
    return (this.options.newMessageId ?? (() => crypto.randomUUID()))();
  }

  private async sendOnce(receiverId: string, conversationId: string, content: MessageContent, clientMessageId: string): Promise<Message> {
    let state = await this.currentEpoch(receiverId, conversationId);
    // Another send may have taken the last index while this one waited; indexes are taken
    // synchronously here so that two sends never share one.
    for (let tries = 0; this.needsRotation(state, conversationId); tries++) {
      if (tries === 3) throw new Error('could not settle on a sending epoch');
      state = await this.currentEpoch(receiverId, conversationId);
    }
    const index = state.nextIndex;
    state.nextIndex += 1;
    const encryptedContent = await this.options.crypto.encryptMessage({
      epoch: state.epoch,
      index,
      ...encodeContent(content),
      signKey: this.options.signKey,
    });
    return this.deliver({
      receiverId,
      epochId: state.epoch.epochId,
      index,
      encryptedContent,
      messageType: 'text',
      clientMessageId,
      ...(content.attachment ? { attachmentIds: [content.attachment.id] } : {}),
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

  private needsRotation(state: SendingEpoch, conversationId: string): boolean {
    if (this.epochs.get(conversationId) !== state) return true;
    if (state.nextIndex >= limits.epochMaxMessages) return true;
    if (this.now() - state.createdAt >= limits.epochMaxAgeMs) return true;
    return state.epoch.membershipVersion < (this.knownVersions.get(conversationId) ?? -1);
  }

  private currentEpoch(receiverId: string, conversationId: string): Promise<SendingEpoch> {
    const state = this.epochs.get(conversationId);
    if (state && !this.needsRotation(state, conversationId)) return Promise.resolve(state);
    const pending = this.rotations.get(conversationId);
    if (pending) return pending;
    const rotation = this.rotate(receiverId, conversationId).finally(() => this.rotations.delete(conversationId));
    this.rotations.set(conversationId, rotation);
    return rotation;
  }

  private async rotate(receiverId: string, conversationId: string): Promise<SendingEpoch> {
    for (let attempt = 0; ; attempt++) {
      const members = await this.options.api.conversationMembers(receiverId);
      const { recipients, skipped } = await this.options.trust.checkRecipients(receiverId, this.recipientsOf(members, conversationId));
      const { epoch, shares } = await this.options.crypto.createEpoch({
        conversationId,
        senderId: this.options.self.id,
        membershipVersion: members.membershipVersion,
        recipients,
        signKey: this.options.signKey,
      });
      try {
        await this.options.api.createEpoch({
          epochId: epoch.epochId,
          receiverId,
          membershipVersion: members.membershipVersion,
          shares,
        });
      } catch (error) {
        // Members changed between the two calls: ask again, once.
        if (isMembershipChanged(error) && attempt === 0) continue;
        throw error;
      }
      // The members answer is the freshest word on the version; trusting it (not a higher frame
      // seen meanwhile) cannot loop, and a stale epoch is still caught by the server's 409.
      this.knownVersions.set(conversationId, members.membershipVersion);
      const state: SendingEpoch = { epoch, nextIndex: 0, createdAt: this.now() };
      this.epochs.set(conversationId, state);
      this.options.onEpochCreated?.(epoch);
      this.options.onRecipientsSkipped?.(conversationId, skipped);
      return state;
    }
  }

  /**
   * The members to wrap for, as the server listed them (the trust checks them next), the sender
   * included: they must be able to read their own messages after a reload.
   */
  private recipientsOf(members: ConversationMembersResponse, conversationId: string): Recipient[] {
    const self = this.options.self;
    if (members.conversationId !== conversationId) {
      throw new Error(`members answer is for ${members.conversationId}, not ${conversationId}`);
    }
    const recipients = members.members.map((m) => ({ id: m.id, encryptionPublicKey: m.encryptionPublicKey }));
    if (!recipients.some((r) => r.id === self.id)) {
      recipients.push({ id: self.id, encryptionPublicKey: self.encryptionPublicKey });
    }
    return recipients;
  }
}
