/**
 * One signed-in member's client, the same in the browser and in the server's integration tests:
 * one {@link KeyTrust} over the member's pins, sending with {@link SenderKeys}, reading with
 * {@link MessageDecryptor}, and the {@link ChatStore} those feed, all built from one transport —
 * the route table's calls and the socket's frames. The web app adds only React bindings; the test
 * member adds only a Node transport (server/src/testing/member.ts).
 */
import * as e2e from '@enclave/crypto';
import type { PrivateIdentity, PublicIdentity, ShareIdentity } from '@enclave/crypto';
import {
  conversationIdFor,
  routes,
  type Message,
  type ReactionEmoji,
  type RouteDefinition,
  type RouteInput,
  type RouteResponse,
} from '@enclave/protocol';
import { isAnnotation } from './annotations';
import { Groups } from './groups';
import { isApiFailure, isTransientFailure } from './api-failure';
import { ChannelKey, type WrapShares } from './channel-key';
import { ChatStore } from './chat-store';
import type { FrameSource } from './frame-dispatcher';
import type { HistoryCache } from './history-cache';
import { KeyTrust, type PinStore } from './key-trust';
import { fetchedMemberList, type MemberList } from './member-list';
import { MessageDecryptor, type DecryptResult } from './message-decryptor';
import { SenderKeys, type Outbound } from './sender-keys';
import { SkippedRecipients } from './skipped-recipients';

/** A call through the route table: the route's parsed answer, or a thrown refusal carrying `status` and `code`. */
export type CallRoute = <R extends RouteDefinition>(route: R, input: RouteInput<R>) => Promise<RouteResponse<R>>;

/** How a member client reaches the server: the calls of the route table, and the frames of its socket. */
export type MemberTransport = { call: CallRoute; frames: FrameSource };

/** Everything a {@link MemberClient} is built from. */
export type MemberClientOptions = {
  /** The member, with their own public keys as derived from their private keys at login, never the server's copy. */
  self: { id: string } & PublicIdentity;
  keys: PrivateIdentity;
  /**
   * The member's share key (from their key bundle), for the general channel's key; absent in a
   * session from before share keys, whose channel epochs are then wrapped for every member.
   */
  share?: ShareIdentity;
  /** Wraps the channel's key for many members: by default on this thread, in the browser in Web Workers. */
  wrap?: WrapShares;
  transport: MemberTransport;
  /** Where the member's pinned fingerprints of their contacts are kept (IndexedDB in the browser). */
  pins: PinStore;
  /** The member list; by default fetched through the transport and kept until `fresh()` is asked. */
  members?: MemberList;
  /** SenderKeys' waits before resending a message that got no answer. */
  sendRetryDelaysMs?: readonly number[];
  /** After a removal, the window within which this client may make the channel's next key (by default {@link REKEY_SPREAD_MS}). */
  rekeySpreadMs?: number;
  /** Members a new channel key is wrapped for before it takes force (by default channel-key.ts's WRAP_BEFORE_FORCE). */
  wrapBeforeForce?: number;
  /** The member's sealed copy of their recent history (the browser's IndexedDB); none by default. */
  historyCache?: HistoryCache;
};

/** Members' clients spread their attempts to make the channel's next key after a removal over 2 s. */
export const REKEY_SPREAD_MS = 2000;

/** A live message once the store has decrypted it (undefined: in a conversation never opened). */
export type IncomingListener = (message: Message, result: DecryptResult | undefined) => void;
/** Messages erased on the server, held or not. */
export type RemovedListener = (conversationId: string, ids: readonly number[]) => void;

/**
 * @example
 * ```ts
 * const client = new MemberClient({ self, keys, transport: { call, frames }, pins });
 * await client.open('all');
 * await client.send('all', { text: 'hello' });
 * client.store.view(conversationIdFor(self.id, 'all')).messages;
 * ```
 */
export class MemberClient {
  readonly trust: KeyTrust;
  readonly senderKeys: SenderKeys;
  readonly decryptor: MessageDecryptor;
  readonly store: ChatStore;
  /** The member's private groups: list, create, add, remove, leave. */
  readonly groups: Groups;
  /** Members the latest epoch of each conversation left out (unusable keys), for the warning banner. */
  readonly skipped = new SkippedRecipients();
  readonly members: MemberList;
  private readonly selfId: string;
  private readonly call: CallRoute;
  private openConversationId: string | null = null;
  private readonly incoming = new Set<IncomingListener>();
  private readonly removed = new Set<RemovedListener>();
  private readonly unsubscribe: (() => void)[];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(options: MemberClientOptions) {
    const { self, keys, transport } = options;
    const { call, frames } = transport;
    this.selfId = self.id;
    this.call = call;
    this.members = options.members ?? fetchedMemberList(call);
    const trust = new KeyTrust({
      self,
      pins: options.pins,
      members: this.members,
      crypto: { fingerprint: e2e.fingerprint, importPublicIdentity: e2e.importPublicIdentity },
    });
    const decryptor = new MessageDecryptor({
      selfId: self.id,
      decryptKey: keys.decryptKey,
      fetchShares: async (epochIds) => (await call(routes.epochShares, { query: { ids: epochIds.join(',') } })).shares,
      verifyKeyFor: (userId) => trust.verifyKeyFor(userId),
      crypto: { openEpochShare: e2e.openEpochShare, decryptMessage: e2e.decryptMessage },
      ...(options.share
        ? {
            channel: {
              share: options.share,
              crypto: {
                openChannelShare: e2e.openChannelShare,
                advanceChannelSecret: e2e.advanceChannelSecret,
                senderChainKey: e2e.senderChainKey,
              },
            },
          }
        : {}),
    });
    const channelKey =
      options.share &&
      new ChannelKey({
        self: { id: self.id, signingPublicKey: self.signingPublicKey, share: options.share },
        signKey: keys.signKey,
        api: {
          state: () => call(routes.channelKey, {}),
          claim: async (epochId) => void (await call(routes.claimChannelEpoch, { body: { epochId } })),
          uploadShares: async (body) => void (await call(routes.uploadChannelShares, { body })),
          activate: async (epochId) => void (await call(routes.activateChannelEpoch, { body: { epochId } })),
          createSenderEpoch: async (body) => void (await call(routes.createSenderEpoch, { body })),
        },
        crypto: {
          newChannelSecret: e2e.newChannelSecret,
          advanceChannelSecret: e2e.advanceChannelSecret,
          openChannelShare: e2e.openChannelShare,
          senderChainKey: e2e.senderChainKey,
          startWrap: e2e.startWrap,
        },
        wrap: options.wrap ?? e2e.wrapShares,
        trust,
        members: this.members,
        ...(options.wrapBeforeForce ? { wrapBeforeForce: options.wrapBeforeForce } : {}),
      });
    this.senderKeys = new SenderKeys({
      self: { id: self.id, encryptionPublicKey: self.encryptionPublicKey },
      signKey: keys.signKey,
      api: {
        conversationMembers: (receiverId) => call(routes.conversationMembers, { query: { receiverId } }),
        createEpoch: async (body) => void (await call(routes.createEpoch, { body })),
        sendMessage: async (body) => (await call(routes.sendMessage, { body })).message,
      },
      crypto: { createEpoch: e2e.createEpoch, encryptMessage: e2e.encryptMessage },
      onEpochCreated: (epoch) => decryptor.addOwnEpoch(epoch),
      onRecipientsSkipped: this.skipped.report,
      trust,
      ...(channelKey ? { channelKey } : {}),
      ...(options.sendRetryDelaysMs ? { sendRetryDelaysMs: options.sendRetryDelaysMs } : {}),
    });
    this.trust = trust;
    this.decryptor = decryptor;
    this.groups = new Groups({ self, keys, call, trust, members: this.members });
    this.store = new ChatStore({
      selfId: self.id,
      history: (query) => call(routes.history, { query }),
      decrypt: (messages, shares) => decryptor.decrypt(messages, shares),
      ...(options.historyCache ? { cache: options.historyCache } : {}),
    });
    this.unsubscribe = [
      frames.on('chat_message', ({ message }) => {
        // An annotation (reaction, edit) is folded into its target: never unread, never a notification.
        void this.store.live(message).then((result) => {
          if (!isAnnotation(message)) this.incoming.forEach((listener) => listener(message, result));
        });
      }),
      frames.on('timeline_event', ({ event }) => this.store.event(event)),
      frames.on('messages_deleted', ({ conversationId, ids, reason }) => {
        this.store.removed(conversationId, ids, reason);
        this.removed.forEach((listener) => listener(conversationId, ids));
      }),
      frames.on('membership_changed', ({ conversationId, membershipVersion, keyRetired }) => {
        this.senderKeys.membershipChanged(conversationId, membershipVersion);
        if (keyRetired && channelKey) this.replaceRetiredKey(channelKey, options.rekeySpreadMs ?? REKEY_SPREAD_MS);
      }),
      // A re-key's wrap reached this member: what was sent meanwhile opens now.
      frames.on('channel_share', () => void this.store.retryUnreadable()),
      // Every (re)authentication, and the server's call for a catch-up after a gap: the open conversation catches up.
      frames.on('authenticated', () => void this.store.authenticated(this.openConversationId)),
    ];
  }

  /**
   * A removal took the channel's key out of force: after a random delay within `spreadMs`, this
   * member's client makes the next unless another's did, so a ban by the creator (whose console
   * holds no member keys) is followed by a re-key without waiting for a sender.
   */
  private replaceRetiredKey(channelKey: ChannelKey, spreadMs: number): void {
    const delay = crypto.getRandomValues(new Uint32Array(1))[0]! % (spreadMs + 1);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      channelKey.replaceRetired().catch((error: unknown) => {
        // Offline or signed out meanwhile: the next sender makes the key.
        if (!isTransientFailure(error) && !isApiFailure(error, 401)) console.error("could not make the channel's next key", error);
      });
    }, delay);
    this.timers.add(timer);
  }

  /** Opens the conversation with `receiverId` ('all': the general channel): loads it, or catches it up. */
  open(receiverId: string): Promise<void> {
    const conversationId = conversationIdFor(this.selfId, receiverId);
    this.openConversationId = conversationId;
    return this.store.open(conversationId, receiverId);
  }

  /**
   * Sends (or, with the `localId` of one that failed, sends again) a message, shown as being sent
   * in the store until the server's answer or the frame of it, matched by that id. A message that
   * could not be sent stays in the store, marked failed, and the reason is thrown.
   */
  async send(receiverId: string, content: Outbound, localId = this.senderKeys.newMessageId()): Promise<Message> {
    const conversationId = conversationIdFor(this.selfId, receiverId);
    // An annotation is no row of its own, not even while it is being sent.
    if (!content.annotation) this.store.sending(conversationId, localId, content.text);
    try {
      const message = await this.senderKeys.send(receiverId, content, localId);
      this.decryptor.addOwnMessage(message);
      this.store.sent(message, content, localId);
      return message;
    } catch (error) {
      this.store.failed(conversationId, localId);
      throw error;
    }
  }

  /** Reacts to a message with one of the allowed emoji (a repeat of one's own is not sent). */
  async react(receiverId: string, targetId: number, emoji: ReactionEmoji): Promise<void> {
    if (this.ownReactions(receiverId, targetId, emoji).length) return;
    await this.send(receiverId, { text: '', annotation: { kind: 'reaction', emoji }, targetId });
  }

  /** Removes one's reaction: deleted for everyone, so the server keeps nothing of it. */
  async unreact(receiverId: string, targetId: number, emoji: ReactionEmoji): Promise<void> {
    await this.deleteForEveryone(receiverId, this.ownReactions(receiverId, targetId, emoji));
  }

  /**
   * Edits one's own message: a new edit annotation, then the previous ones deleted, so that the
   * server keeps only the latest text.
   */
  async edit(receiverId: string, targetId: number, text: string): Promise<void> {
    const conversationId = conversationIdFor(this.selfId, receiverId);
    const previous = this.store.view(conversationId).annotations.get(targetId)?.editIds ?? [];
    await this.send(receiverId, { text: '', annotation: { kind: 'edit', text }, targetId });
    await this.deleteForEveryone(receiverId, previous);
  }

  /**
   * One message by id, decrypted (a reply's quote whose target is not loaded): null when it is
   * erased or not the member's to read.
   */
  async fetchMessage(id: number): Promise<{ message: Message; result: DecryptResult | undefined } | null> {
    try {
      const { message, shares } = await this.call(routes.message, { params: { id } });
      const results = await this.decryptor.decrypt([message], shares);
      return { message, result: results.get(message.id) };
    } catch (error) {
      if (isApiFailure(error, 404)) return null;
      throw error;
    }
  }

  private ownReactions(receiverId: string, targetId: number, emoji: ReactionEmoji): readonly number[] {
    const folded = this.store.view(conversationIdFor(this.selfId, receiverId)).annotations.get(targetId);
    return folded?.reactions.find((r) => r.emoji === emoji)?.by.get(this.selfId) ?? [];
  }

  private async deleteForEveryone(receiverId: string, ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    await Promise.all(ids.map((id) => this.call(routes.deleteMessage, { params: { id } })));
    // The frame says so too; the member sees it at once.
    this.store.removed(conversationIdFor(this.selfId, receiverId), ids, 'deleted');
  }

  /** Each live message once decrypted (notifications); returns the unsubscribe. */
  onIncoming(listener: IncomingListener): () => void {
    this.incoming.add(listener);
    return () => this.incoming.delete(listener);
  }

  /** Messages erased on the server (unread counts and notifications let go of them); returns the unsubscribe. */
  onRemoved(listener: RemovedListener): () => void {
    this.removed.add(listener);
    return () => this.removed.delete(listener);
  }

  /** Stops listening to the transport's frames (the member signed out). */
  close(): void {
    for (const off of this.unsubscribe) off();
    for (const timer of this.timers) clearTimeout(timer);
  }
}
