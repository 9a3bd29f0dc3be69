/**
 * The member's sending epochs, whatever carries them (docs/security.md §4): per conversation one
 * current epoch and its next message index, and a new epoch — the members' keys checked by the
 * trust, a fresh chain key wrapped for each, the signed shares handed over — when there is none,
 * after `limits.epochMaxMessages` messages, after `limits.epochMaxAgeMs`, or when the membership
 * version moved. The chat's {@link SenderKeys} gets members from the server and uploads epochs to
 * it; a P2P room takes them from its roster and sends them as room frames.
 */
import type { Epoch, EpochShareUpload, createEpoch, encryptMessage } from '@enclave/crypto';
import { encodeContent, limits, type MessageContent } from '@enclave/protocol';
import { isMembershipChanged } from './api-failure';
import type { KeyTrust, Recipient, SkippedRecipient } from './key-trust';

/** The functions of `@enclave/crypto` that sending needs (fakes in tests). */
export type SendingCrypto = {
  createEpoch: typeof createEpoch;
  encryptMessage: typeof encryptMessage;
};

/** What decides whether a new epoch's recipients may have its chain key: a {@link KeyTrust}. */
export type RecipientTrust = Pick<KeyTrust, 'checkRecipients'>;

/**
 * Where one conversation's new epochs come from: wrapped here for its members and handed over, or
 * (the general channel) derived from its channel key by `derive` (channel-key.ts), with no wrap.
 */
export type EpochTransport = WrappingTransport | { receiverId: string; derive(): Promise<Epoch> };

/** Where one conversation's members come from and where its new epochs go. */
export type WrappingTransport = {
  /** Whom the trust checks recipients for: `'all'` for a many-member conversation, else the other member of a direct one. */
  receiverId: string;
  /** The members, with the keys listed for them (the trust checks those), at their membership version. */
  members(): Promise<{ membershipVersion: number; recipients: Recipient[] }>;
  /**
   * Hands the new epoch's shares to its recipients. Throwing a membership_changed refusal (the
   * members moved since they were asked) asks for them again, once.
   */
  upload(epoch: Epoch, shares: EpochShareUpload[]): Promise<void> | void;
};

/** A new epoch: whom it was wrapped for, and whom the trust left out (unusable keys; usually none). */
export type CreatedEpoch = { conversationId: string; epoch: Epoch; recipients: Recipient[]; skipped: SkippedRecipient[] };

/** Everything {@link SendingEpochs} is built from. */
export type SendingEpochsOptions = {
  /** The member; `encryptionPublicKey` is their own copy (derived from their private key), never a listed one. */
  self: { id: string; encryptionPublicKey: string };
  signKey: CryptoKey;
  crypto: SendingCrypto;
  /** Throws unless every recipient may have the chain key. Required: no epoch is wrapped unchecked. */
  trust: RecipientTrust;
  now?: () => number;
  /** Each new epoch, once its shares are handed over. */
  onEpochCreated?: (created: CreatedEpoch) => void;
};

/** One message encrypted under the conversation's current epoch, at an index no other message has. */
export type EncryptedMessage = { epoch: Epoch; index: number; encryptedContent: string };

type SendingEpoch = { epoch: Epoch; nextIndex: number; createdAt: number };

/**
 * @example
 * ```ts
 * const epochs = new SendingEpochs({ self, signKey, crypto: { createEpoch, encryptMessage }, trust });
 * const { epoch, index, encryptedContent } = await epochs.encrypt(conversationId, { text: 'hi' }, transport);
 * ```
 */
export class SendingEpochs {
  private readonly epochs = new Map<string, SendingEpoch>();
  private readonly rotations = new Map<string, Promise<SendingEpoch>>();
  /** Highest membership version heard of per conversation. */
  private readonly knownVersions = new Map<string, number>();
  private readonly options: SendingEpochsOptions;
  private readonly now: () => number;

  constructor(options: SendingEpochsOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** The membership moved to `membershipVersion`: a newer one starts a new epoch at the next message. */
  membershipChanged(conversationId: string, membershipVersion: number): void {
    const known = this.knownVersions.get(conversationId) ?? -1;
    if (membershipVersion > known) this.knownVersions.set(conversationId, membershipVersion);
  }

  /** Forces a new epoch for this conversation at its next message. */
  invalidate(conversationId: string): void {
    this.epochs.delete(conversationId);
  }

  /** Encrypts one message with the conversation's current epoch, starting one through `transport` first when due. */
  async encrypt(conversationId: string, content: MessageContent, transport: EpochTransport): Promise<EncryptedMessage> {
    let state = await this.currentEpoch(conversationId, transport);
    // Another message may have taken the last index while this one waited; indexes are taken
    // synchronously here so that two messages never share one.
    for (let tries = 0; this.needsRotation(state, conversationId); tries++) {
      if (tries === 3) throw new Error('could not settle on a sending epoch');
      state = await this.currentEpoch(conversationId, transport);
    }
    const index = state.nextIndex;
    state.nextIndex += 1;
    const encryptedContent = await this.options.crypto.encryptMessage({
      epoch: state.epoch,
      index,
      ...encodeContent(content),
      signKey: this.options.signKey,
    });
    return { epoch: state.epoch, index, encryptedContent };
  }

  private needsRotation(state: SendingEpoch, conversationId: string): boolean {
    if (this.epochs.get(conversationId) !== state) return true;
    if (state.nextIndex >= limits.epochMaxMessages) return true;
    if (this.now() - state.createdAt >= limits.epochMaxAgeMs) return true;
    return state.epoch.membershipVersion < (this.knownVersions.get(conversationId) ?? -1);
  }

  /** The current epoch, or the one rotation under way for the conversation (concurrent messages wait for one). */
  private currentEpoch(conversationId: string, transport: EpochTransport): Promise<SendingEpoch> {
    const state = this.epochs.get(conversationId);
    if (state && !this.needsRotation(state, conversationId)) return Promise.resolve(state);
    const pending = this.rotations.get(conversationId);
    if (pending) return pending;
    const rotation = this.rotate(conversationId, transport).finally(() => this.rotations.delete(conversationId));
    this.rotations.set(conversationId, rotation);
    return rotation;
  }

  private async rotate(conversationId: string, transport: EpochTransport): Promise<SendingEpoch> {
    if ('derive' in transport) {
      const epoch = await transport.derive();
      return this.started({ conversationId, epoch, recipients: [], skipped: [] });
    }
    const { self, signKey, crypto, trust } = this.options;
    for (let attempt = 0; ; attempt++) {
      const { membershipVersion, recipients: listed } = await transport.members();
      // The sender too: they must be able to read their own messages after a reload.
      const withSelf = listed.some((r) => r.id === self.id)
        ? listed
        : [...listed, { id: self.id, encryptionPublicKey: self.encryptionPublicKey }];
      const { recipients, skipped } = await trust.checkRecipients(transport.receiverId, withSelf);
      const { epoch, shares } = await crypto.createEpoch({ conversationId, senderId: self.id, membershipVersion, recipients, signKey });
      try {
        await transport.upload(epoch, shares);
      } catch (error) {
        if (isMembershipChanged(error) && attempt === 0) continue;
        throw error;
      }
      return this.started({ conversationId, epoch, recipients, skipped });
    }
  }

  private started(created: CreatedEpoch): SendingEpoch {
    // The server's answer is the freshest word on the version; trusting it (not a higher one
    // heard of meanwhile) cannot loop, and a stale epoch is still caught by the server's 409.
    this.knownVersions.set(created.conversationId, created.epoch.membershipVersion);
    const state: SendingEpoch = { epoch: created.epoch, nextIndex: 0, createdAt: this.now() };
    this.epochs.set(created.conversationId, state);
    this.options.onEpochCreated?.(created);
    return state;
  }
}
