/**
 * The sending half of the general channel's key (docs/scaling.md §6): a sender epoch in the channel
 * is derived from the channel epoch in force at its current generation, with no share of its own.
 * Before deriving, the member's client wraps the secret for members who have no share yet (the
 * newcomers since the last sender); when no key is in force (the first ever, or after a removal)
 * it claims the next one, wraps it for the most recently signed-in members, activates it so sends
 * go on, and wraps it for everyone else in the background, in batches. Another member's claim is
 * waited for; so is a wrap by another member when this one is the newcomer, for a while, before it
 * makes a key of its own.
 */
import type {
  ChannelSecret,
  ChannelShare,
  ChannelWrapHeader,
  Epoch,
  ShareIdentity,
  SignedShareRecipient,
  advanceChannelSecret,
  newChannelSecret,
  openChannelShare,
  senderChainKey,
  startWrap,
} from '@enclave/crypto';
import {
  GENERAL_CONVERSATION,
  type ChannelKeyState,
  type CreateSenderEpoch,
  type OwnChannelShare,
  type UploadChannelShares,
} from '@enclave/protocol';
import { isApiFailure, isMembershipChanged, isTransientFailure } from './api-failure';
import { KEY_CHANGED, RecipientKeyError, unknownKeyRefused, type KeyTrust } from './key-trust';
import type { MemberList } from './member-list';
import { cryptoErrorKind } from './message-decryptor';

/** The calls to the server the channel key needs; refusals are thrown carrying `status` and `code`. */
export type ChannelKeyApi = {
  state(): Promise<ChannelKeyState>;
  claim(epochId: string): Promise<void>;
  uploadShares(upload: UploadChannelShares): Promise<void>;
  activate(epochId: string): Promise<void>;
  createSenderEpoch(request: CreateSenderEpoch): Promise<void>;
};

/** The functions of `@enclave/crypto` the channel key needs. */
export type ChannelKeyCrypto = {
  newChannelSecret: typeof newChannelSecret;
  advanceChannelSecret: typeof advanceChannelSecret;
  openChannelShare: typeof openChannelShare;
  senderChainKey: typeof senderChainKey;
  startWrap: typeof startWrap;
};

/**
 * Checks these members' share keys and wraps the secret for them under one upload's header:
 * `wrapShares` of `@enclave/crypto`, or Web Workers running it.
 */
export type WrapShares = (args: {
  header: ChannelWrapHeader;
  secret: ChannelSecret;
  ephemeralPrivateKey: CryptoKey;
  recipients: SignedShareRecipient[];
}) => Promise<ChannelShare[]>;

/** Everything a {@link ChannelKey} is built from. */
export type ChannelKeyOptions = {
  /** The member, with their own signing key (SPKI, base64) and share key: local copies, never the server's. */
  self: { id: string; signingPublicKey: string; share: ShareIdentity };
  signKey: CryptoKey;
  api: ChannelKeyApi;
  crypto: ChannelKeyCrypto;
  wrap: WrapShares;
  trust: Pick<KeyTrust, 'checkShareRecipients' | 'verifyKeyFor'>;
  /** The member list the trust reads, with a wrapper fetched into it when it is not on it yet. */
  members: Pick<MemberList, 'including'>;
  /** Members a new key is wrapped for before it takes force ({@link WRAP_BEFORE_FORCE} by default). */
  wrapBeforeForce?: number;
  /** How long a member who has no share waits for another member to wrap for them before making a key. */
  newcomerWaitMs?: number;
  /** How long to wait between looks at another member's key in the making. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
};

/** A newcomer waits this long for a wrap by a member who sends, then makes the next key. */
export const NEWCOMER_WAIT_MS = 1500;
/**
 * Members a new key is wrapped for before it takes force: the most recently signed in, whom sends
 * wait for (about 65 ms of two Chromium workers); the rest are wrapped for after it.
 */
export const WRAP_BEFORE_FORCE = 500;
const POLL_MS = 500;
/** Longer than a claim lasts without an upload (server/src/conversations/channel-key.ts CLAIM_MS). */
const GIVE_UP_MS = 3 * 60_000;

/**
 * @example
 * ```ts
 * const channel = new ChannelKey({ self: { id, signingPublicKey, share }, signKey, api, crypto, wrap: wrapShares, trust });
 * const epoch = await channel.newSenderEpoch(); // its chain key derived; no share uploaded for a join
 * ```
 */
export class ChannelKey {
  /** The member's own opened share of each channel epoch, at the generation it was wrapped at. */
  private readonly opened = new Map<string, Promise<ChannelSecret>>();
  private making: Promise<void> | null = null;
  private backfilling: Promise<void> | null = null;
  private readonly options: ChannelKeyOptions;

  constructor(options: ChannelKeyOptions) {
    this.options = options;
  }

  /** A new sender epoch of the member in the channel, its chain derived from the key in force. */
  async newSenderEpoch(): Promise<Epoch> {
    const { api, self, crypto } = this.options;
    const sleep = this.options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const now = this.options.now ?? Date.now;
    const started = now();
    const pollMs = this.options.pollMs ?? POLL_MS;
    let made = 0;
    while (now() - started < GIVE_UP_MS) {
      const state = await api.state();
      const { epoch, rekey } = state;
      // The key this client made has a share for it only once the background wrap reaches it.
      const own = epoch?.ownShare ? await this.secretOf(epoch.ownShare) : epoch ? await this.opened.get(epoch.id) : undefined;
      if (!epoch || !own) {
        const waitForWrap = epoch !== null && now() - started < (this.options.newcomerWaitMs ?? NEWCOMER_WAIT_MS);
        if ((rekey && rekey.by !== self.id) || waitForWrap) await sleep(pollMs);
        // A key this member made and still holds no share of: their share key is not published.
        else if (made++ === 2) throw new Error("the channel's key has no share for this member");
        else await this.makeKey();
        continue;
      }
      const generation = state.membershipVersion - epoch.baseVersion;
      if (state.pending.length) {
        // This member's own claim, still wrapping for the rest (as after a reload): the wrap goes
        // on beside the send, which the server takes meanwhile.
        if (rekey?.by === self.id && rekey.epochId === epoch.id) this.backfill(own);
        else {
          await this.wrapFor(own, state.pending, generation);
          continue;
        }
      }
      const secret = await crypto.advanceChannelSecret(own, generation);
      const epochId = globalThis.crypto.randomUUID();
      try {
        await api.createSenderEpoch({ epochId, channelEpochId: epoch.id, membershipVersion: state.membershipVersion });
      } catch (error) {
        if (isMembershipChanged(error)) continue;
        throw error;
      }
      const chainKey = await crypto.senderChainKey(secret, self.id, epochId);
      return { epochId, conversationId: GENERAL_CONVERSATION, senderId: self.id, membershipVersion: state.membershipVersion, chainKey };
    }
    throw new Error("could not settle on the channel's key");
  }

  /** The secret at the generation of the member's own share (opened once per channel epoch). */
  private secretOf(own: OwnChannelShare): Promise<ChannelSecret> {
    let opened = this.opened.get(own.header.epochId);
    if (!opened) {
      opened = this.open(own);
      this.opened.set(own.header.epochId, opened);
      opened.catch(() => this.opened.delete(own.header.epochId));
    }
    return opened;
  }

  private async open({ header, wrappedKey }: OwnChannelShare): Promise<ChannelSecret> {
    const { self, crypto, trust } = this.options;
    // The wrapper may have joined since the member list was fetched.
    let wrapperVerifyKey = await trust.verifyKeyFor(header.wrapperId);
    if (wrapperVerifyKey === null) {
      await this.options.members.including([header.wrapperId]);
      wrapperVerifyKey = await trust.verifyKeyFor(header.wrapperId);
    }
    if (!wrapperVerifyKey || wrapperVerifyKey === KEY_CHANGED) throw new Error("the key of the channel key's wrapper is not trusted");
    return crypto.openChannelShare({
      header,
      wrappedKey,
      self: { id: self.id, sharePublicKey: self.share.sharePublicKey },
      sharePrivateKey: self.share.privateKey,
      wrapperVerifyKey,
    });
  }

  /**
   * Uploads the secret for these members (at most one page of them), each listed and pinned member
   * with the signing key their share key must be signed by (checked by the wrap): each at the
   * generation they joined at (`current` when the server does not say), or at
   * the member's own if later, since a secret only moves forward; one upload per generation.
   */
  private async wrapFor(own: ChannelSecret, pending: ChannelKeyState['pending'], current: number): Promise<void> {
    const { self, signKey, crypto, trust, api, wrap } = this.options;
    const others = pending.filter((p) => p.id !== self.id);
    const checked = await trust.checkShareRecipients(others);
    const byGeneration = new Map<number, SignedShareRecipient[]>();
    const add = (recipient: SignedShareRecipient, generation = current) => {
      const at = Math.max(generation, own.generation);
      byGeneration.set(at, [...(byGeneration.get(at) ?? []), recipient]);
    };
    checked.forEach((recipient, i) => add(recipient, others[i]!.generation));
    // The member's own share key is their local copy, never the listed one.
    const mine = pending.find((p) => p.id === self.id);
    if (mine)
      add(
        {
          id: self.id,
          sharePublicKey: self.share.sharePublicKey,
          signature: self.share.signature,
          signingPublicKey: self.signingPublicKey,
        },
        mine.generation,
      );
    for (const [generation, recipients] of byGeneration) {
      const secret = await crypto.advanceChannelSecret(own, generation);
      const { header, ephemeralPrivateKey } = await crypto.startWrap({ secret, wrapperId: self.id, signKey });
      const shares = await wrap({ header, secret, ephemeralPrivateKey, recipients }).catch((error: unknown) => {
        // A share key its member did not sign, or that is no key: the server's, not the member's.
        const kind = cryptoErrorKind(error);
        throw kind === 'bad_signature' || kind === 'malformed' ? new RecipientKeyError(unknownKeyRefused, { cause: error }) : error;
      });
      try {
        await api.uploadShares({ header, shares });
      } catch (error) {
        // The members or the key moved meanwhile: the caller looks again.
        if (!isMembershipChanged(error)) throw error;
        return;
      }
    }
  }

  /**
   * After a removal took the key out of force: makes the next one, unless it is in force again or
   * another member's client is making it. Every member's client hearing of the removal calls this
   * after a random delay, so one of them claims and the others find the claim.
   */
  async replaceRetired(): Promise<void> {
    const { epoch, rekey } = await this.options.api.state();
    if (!epoch && !rekey) await this.makeKey();
  }

  /** One key in the making per member's client: a send and the removal's announcement wait for the same. */
  private makeKey(): Promise<void> {
    this.making ??= this.claimWrapActivate().finally(() => (this.making = null));
    return this.making;
  }

  /**
   * Claims the next channel epoch, wraps it for the most recently signed-in members
   * ({@link WRAP_BEFORE_FORCE}), activates it, and leaves the rest of the wrap to {@link backfill}.
   */
  private async claimWrapActivate(): Promise<void> {
    const { api, crypto } = this.options;
    const secret = await crypto.newChannelSecret(GENERAL_CONVERSATION, globalThis.crypto.randomUUID());
    try {
      await api.claim(secret.epochId);
      // While the claim holds, the state's pending members are the claimed epoch's.
      const before = this.options.wrapBeforeForce ?? WRAP_BEFORE_FORCE;
      let wrapped = 0;
      for (let state = await api.state(); wrapped < before; state = await api.state()) {
        if (state.rekey?.epochId !== secret.epochId) return;
        const first = state.pending.slice(0, before - wrapped);
        if (!first.length) break;
        await this.wrapFor(secret, first, 0);
        wrapped += first.length;
      }
      await api.activate(secret.epochId);
      this.opened.set(secret.epochId, Promise.resolve(secret));
      // Stopped short of the members still without a share, the wrap goes on behind the sends.
      if (wrapped >= before) this.backfill(secret);
    } catch (error) {
      // Another member's claim or key came first, or this claim lapsed: the caller looks again.
      if (!isApiFailure(error, 409)) throw error;
    }
  }

  /**
   * Wraps the epoch in force, which this member's client made, for everyone it has yet to reach,
   * page by page in the background while the claim holds. If it stops (the page closed, the
   * network gone), the claim lapses and any sender wraps for the rest.
   */
  private backfill(own: ChannelSecret): void {
    const { api, self } = this.options;
    this.backfilling ??= (async () => {
      for (let state = await api.state(); state.pending.length; state = await api.state()) {
        const { epoch, rekey } = state;
        if (rekey?.by !== self.id || rekey.epochId !== own.epochId || epoch?.id !== own.epochId) return;
        await this.wrapFor(own, state.pending, state.membershipVersion - epoch.baseVersion);
      }
    })()
      .catch((error: unknown) => {
        if (!isTransientFailure(error) && !isApiFailure(error, 401))
          console.error("could not wrap the channel's key for every member", error);
      })
      .finally(() => (this.backfilling = null));
  }
}
