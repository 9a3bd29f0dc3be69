/**
 * The receiving half of sender keys. For a batch of messages it collects the epochs it has not met,
 * takes the member's shares of them from the history answer that brought the batch (or fetches
 * them in one call per 100 for a live message), unwraps each epoch once and caches it; after that
 * every message costs one AES decryption and one signature check.
 */
import type {
  ChannelSecret,
  Epoch,
  ShareIdentity,
  advanceChannelSecret,
  decryptMessage,
  openChannelShare,
  openEpochShare,
  senderChainKey,
} from '@enclave/crypto';
import { decodeContent, limits, type DerivedEpochShare, type EpochShare, type Message, type MessageContent } from '@enclave/protocol';
import { KEY_CHANGED, type KeyChanged } from './key-trust';

/** What became of one message. */
export type DecryptResult =
  /**
   * `text`: the message, or an attachment's caption (possibly empty); a reply's `replyTo`; an
   * annotation's `annotation` (then `text` is empty, annotations.ts).
   */
  | ({ status: 'ok' } & MessageContent)
  /**
   * `retryable`: the failure may pass (network, sender's keys not loaded yet). `noShare`: the
   * epoch was not wrapped for this member (sent before they joined, or while they were banned).
   */
  | { status: 'unreadable'; retryable: boolean; noShare?: true }
  /** The signature does not hold: possibly forged, never shown as the sender's text. */
  | { status: 'bad_signature' }
  /** The sender's key differs from the one pinned for them: nothing was verified, nothing is shown. */
  | { status: 'unverified' }
  /** Another message id already carried this (epochId, index): a replay, never shown as genuine. */
  | { status: 'replayed' };

/** Everything {@link MessageDecryptor} is built from. */
export type MessageDecryptorOptions = {
  selfId: string;
  decryptKey: CryptoKey;
  /** The member's own shares of these epochs (at most 100 ids); epochs without one are absent. */
  fetchShares(epochIds: readonly string[]): Promise<EpochShare[]>;
  /**
   * The sender's verify key ({@link KeyTrust.verifyKeyFor}): null when that member is not known
   * (yet), KEY_CHANGED when the listed key is not the one pinned for them (it is then not to be
   * trusted).
   */
  verifyKeyFor(userId: string): Promise<CryptoKey | null | KeyChanged>;
  crypto: { openEpochShare: typeof openEpochShare; decryptMessage: typeof decryptMessage };
  /**
   * The member's share key, to read sender epochs derived from the channel key (channel-key.ts);
   * without it (a session from before share keys) those read as not wrapped for the member.
   */
  channel?: {
    share: ShareIdentity;
    crypto: {
      openChannelShare: typeof openChannelShare;
      advanceChannelSecret: typeof advanceChannelSecret;
      senderChainKey: typeof senderChainKey;
    };
  };
};

type EpochOutcome = { epoch: Epoch } | { failure: DecryptResult & { status: 'unreadable' | 'bad_signature' | 'unverified' } };

/**
 * Work is started this many items at a time, with a turn of the event loop between groups: the
 * crypto itself runs off the main thread, but a page's worth of continuations in one task blocks
 * input and painting (the browser bench holds a main-thread block under 50 ms: bench/RESULTS.md).
 */
const CHUNK = 16;

/** Lets the browser paint and handle input between groups of work. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** `run` over every item, CHUNK at a time, one task per group; results in the items' order. */
async function inChunks<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    if (i > 0) await nextTask();
    out.push(...(await Promise.all(items.slice(i, i + CHUNK).map(run))));
  }
  return out;
}

const unreadable = { status: 'unreadable', retryable: false } as const;
const unreadableForNow = { status: 'unreadable', retryable: true } as const;
const notWrappedForMe = { status: 'unreadable', retryable: false, noShare: true } as const;
const badSignature = { status: 'bad_signature' } as const;
const unverified = { status: 'unverified' } as const;
const replayed = { status: 'replayed' } as const;

/** The `kind` of a CryptoError, read structurally so this module needs no runtime import. */
export function cryptoErrorKind(error: unknown): string | null {
  if (error instanceof Error && 'kind' in error && typeof error.kind === 'string') return error.kind;
  return null;
}

/**
 * The receiving half of sender keys for one member (see the top of this file).
 *
 * @example
 * ```ts
 * const decryptor = new MessageDecryptor({ selfId, decryptKey, fetchShares, verifyKeyFor: (id) => trust.verifyKeyFor(id), crypto });
 * const results = await decryptor.decrypt(page.messages); // message id → DecryptResult
 * ```
 */
export class MessageDecryptor {
  private readonly epochs = new Map<string, Promise<EpochOutcome>>();
  /** The member's opened share of each channel epoch, by channel epoch id: one unwrap each. */
  private readonly channelSecrets = new Map<string, Promise<ChannelSecret>>();
  /** `epochId/index` → the id of the first message that decrypted with it. */
  private readonly seen = new Map<string, number>();
  private readonly options: MessageDecryptorOptions;

  constructor(options: MessageDecryptorOptions) {
    this.options = options;
  }

  /** An epoch this member created: no share needs fetching to read their own messages. */
  addOwnEpoch(epoch: Epoch): void {
    this.epochs.set(epoch.epochId, Promise.resolve({ epoch }));
  }

  /** A message this member sent: its (epochId, index) is taken, so a copy under another id is a replay. */
  addOwnMessage(message: Message): void {
    const pair = `${message.epochId}/${message.index}`;
    if (!this.seen.has(pair)) this.seen.set(pair, message.id);
  }

  /**
   * Decrypts a batch; the result holds one entry per message id. `shares`: the member's own shares
   * of the batch's epochs as the history answer carried them (then an epoch without one was not
   * wrapped for this member); without it, they are fetched.
   */
  async decrypt(messages: readonly Message[], shares?: readonly EpochShare[]): Promise<Map<number, DecryptResult>> {
    const unknown = [...new Set(messages.map((m) => m.epochId))].filter((id) => !this.epochs.has(id));
    for (let i = 0; i < unknown.length; i += limits.sharesMaxEpochs) {
      const ids = unknown.slice(i, i + limits.sharesMaxEpochs);
      this.loadEpochs(ids, shares ? Promise.resolve(shares.filter((s) => ids.includes(s.epochId))) : this.options.fetchShares(ids));
    }
    const results = new Map(await inChunks(messages, async (m) => [m.id, await this.decryptOne(m)] as const));
    // The server refuses a repeated (epochId, index); one that comes anyway under a new id is a
    // replay. The first id met keeps the pair (within a batch, the lowest: the server's order).
    for (const m of [...messages].sort((a, b) => a.id - b.id)) {
      if (results.get(m.id)?.status !== 'ok') continue;
      const pair = `${m.epochId}/${m.index}`;
      const first = this.seen.get(pair);
      if (first === undefined) this.seen.set(pair, m.id);
      else if (first !== m.id) results.set(m.id, replayed);
    }
    return results;
  }

  private loadEpochs(epochIds: string[], shares: Promise<readonly EpochShare[]>): void {
    const resolvers = new Map<string, (outcome: EpochOutcome) => void>();
    for (const id of epochIds) {
      this.epochs.set(id, new Promise((resolve) => resolvers.set(id, resolve)));
    }
    const settle = (id: string, outcome: EpochOutcome) => {
      // A failure that may pass is not cached: the next batch that meets the epoch tries again
      // (a changed key may be accepted by the member).
      const failure = 'failure' in outcome ? outcome.failure : null;
      if (failure && ((failure.status === 'unreadable' && failure.retryable) || failure.status === 'unverified')) {
        this.epochs.delete(id);
      }
      resolvers.get(id)?.(outcome);
    };
    void shares.then(
      async (found) => {
        const byEpoch = new Map(found.map((s) => [s.epochId, s]));
        await inChunks(epochIds, async (id) => {
          const share = byEpoch.get(id);
          // No share: the epoch was not wrapped for this member (sent before they joined).
          settle(id, share ? await this.openShare(share) : { failure: notWrappedForMe });
        });
      },
      (error: unknown) => {
        console.error('could not fetch epoch shares', error);
        for (const id of epochIds) settle(id, { failure: unreadableForNow });
      },
    );
  }

  private async openShare(share: EpochShare): Promise<EpochOutcome> {
    // A re-key's wrap has yet to reach this member: tried again when their share arrives.
    if ('awaiting' in share) return { failure: unreadableForNow };
    if ('channel' in share) return this.openDerived(share);
    const senderVerifyKey = await this.options.verifyKeyFor(share.senderId);
    if (!senderVerifyKey) return { failure: unreadableForNow };
    if (senderVerifyKey === KEY_CHANGED) return { failure: unverified };
    try {
      const epoch = await this.options.crypto.openEpochShare({
        share,
        recipientId: this.options.selfId,
        decryptKey: this.options.decryptKey,
        senderVerifyKey,
      });
      return { epoch };
    } catch (error) {
      return { failure: cryptoErrorKind(error) === 'bad_signature' ? badSignature : unreadable };
    }
  }

  /**
   * A sender epoch derived from the channel key: the member's share of the channel epoch (its
   * header signed by the wrapper), ratcheted to the sender epoch's generation, then the sender's
   * chain. A server that names another sender, epoch or generation gets a chain that opens nothing.
   */
  private async openDerived(share: DerivedEpochShare): Promise<EpochOutcome> {
    const { channel } = this.options;
    if (!channel) return { failure: notWrappedForMe };
    const { header, wrappedKey } = share.channel.share;
    const wrapperVerifyKey = await this.options.verifyKeyFor(header.wrapperId);
    if (!wrapperVerifyKey) return { failure: unreadableForNow };
    if (wrapperVerifyKey === KEY_CHANGED) return { failure: unverified };
    try {
      let opened = this.channelSecrets.get(header.epochId);
      if (!opened) {
        opened = channel.crypto.openChannelShare({
          header,
          wrappedKey,
          self: { id: this.options.selfId, sharePublicKey: channel.share.sharePublicKey },
          sharePrivateKey: channel.share.privateKey,
          wrapperVerifyKey,
        });
        this.channelSecrets.set(header.epochId, opened);
        opened.catch(() => this.channelSecrets.delete(header.epochId));
      }
      const secret = await channel.crypto.advanceChannelSecret(await opened, share.channel.generation);
      const chainKey = await channel.crypto.senderChainKey(secret, share.senderId, share.epochId);
      return {
        epoch: {
          epochId: share.epochId,
          conversationId: secret.conversationId,
          senderId: share.senderId,
          membershipVersion: share.membershipVersion,
          chainKey,
        },
      };
    } catch (error) {
      return { failure: cryptoErrorKind(error) === 'bad_signature' ? badSignature : unreadable };
    }
  }

  private async decryptOne(message: Message): Promise<DecryptResult> {
    const outcome = await this.epochs.get(message.epochId);
    if (!outcome) return unreadableForNow;
    if ('failure' in outcome) return outcome.failure;
    const { epoch } = outcome;
    // The epoch's signed sender and conversation must be the message's: otherwise the server is
    // presenting one member's message as another's, or moving it between conversations.
    if (epoch.senderId !== message.senderId || epoch.conversationId !== message.conversationId) return badSignature;
    const senderVerifyKey = await this.options.verifyKeyFor(message.senderId);
    if (!senderVerifyKey) return unreadableForNow;
    if (senderVerifyKey === KEY_CHANGED) return unverified;
    let opened: Awaited<ReturnType<typeof decryptMessage>>;
    try {
      opened = await this.options.crypto.decryptMessage({
        epoch,
        index: message.index,
        encryptedContent: message.encryptedContent,
        senderVerifyKey,
      });
    } catch (error) {
      return cryptoErrorKind(error) === 'bad_signature' ? badSignature : unreadable;
    }
    // Decrypted plaintext is outside input too: parsed (a text within the limit, a body by its
    // schema), since no real client sends anything else.
    try {
      return { status: 'ok', ...decodeContent(opened) };
    } catch {
      return unreadable;
    }
  }
}
