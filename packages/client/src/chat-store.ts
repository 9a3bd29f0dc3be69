/**
 * Messages per conversation, kept without gaps or duplicates across reconnects.
 *
 * Each conversation has a `cursor`: the highest message id up to which it is known to hold
 * everything. Only HTTP answers move it, never live frames: ids are assigned before commit and
 * frames from different server instances may arrive out of order, so a frame for 102 says nothing
 * about 101. After a reconnect the open conversation catches up with `after=<cursor>` and the
 * others do when they are opened. Messages are keyed by their server id, so a message that comes
 * both as a frame and in a page is held once.
 *
 * A conversation's timeline also holds its events (timer changes, "message deleted" notes) in the
 * same id order. A message past its `expiresAt` (by this browser's clock) or erased on the server
 * is dropped with its decrypted text: nothing of it stays in memory.
 *
 * With a {@link HistoryCache}, a conversation opened for the first time is drawn from it at once
 * and the server's newest page then has the last word (cached-history.ts).
 */
import { limits, type EpochShare, type HistoryResponse, type Message, type MessageContent, type TimelineEvent } from '@enclave/protocol';
import { isApiFailure } from './api-failure';
import { emptyView, newConversation, nextView, takeTimer, type Conversation, type ConversationView, type Outgoing } from './conversation';
import { drawFromCache, mergeServerPage, undraw, type StoreSteps } from './cached-history';
import { CacheWriter, pageSpanning, type HistoryCache } from './history-cache';
import type { DecryptResult } from './message-decryptor';

/** A history request (routes.history's query): a conversation, and a page before or after an id. */
export type HistoryParams = { receiverId: string; before?: number; after?: number; limit?: number };

export type ChatStoreOptions = {
  /** The member: their own live messages settle what they are sending. */
  selfId: string;
  history(params: HistoryParams): Promise<HistoryResponse>;
  /** `shares`: those a history answer carried for these messages (message-decryptor.ts). */
  decrypt(messages: readonly Message[], shares?: readonly EpochShare[]): Promise<Map<number, DecryptResult>>;
  /** The newest page: small, so that it is shown soon. */
  pageSize?: number;
  /** Pages of older messages: large, so that reading back costs few round trips. */
  olderPageSize?: number;
  /** The member's copy of their recent history (none: every conversation starts from the server). */
  cache?: HistoryCache;
};

/** Bound on catch-up pages per reconnect; a longer absence pages in on the next open. */
const MAX_CATCH_UP_PAGES = 50;

export class ChatStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly listeners = new Set<() => void>();
  private readonly options: ChatStoreOptions;
  /** Wakes the store at the next expiry among the messages held. */
  private expiryTimer: ReturnType<typeof setTimeout> | undefined;
  private nextExpiry = Infinity;
  private readonly cacheWriter: CacheWriter | null;
  private readonly steps: StoreSteps = {
    insert: (conversation, messages) => this.insert(conversation, messages),
    markSynced: (conversation, page) => this.markSynced(conversation, page),
    refresh: (conversation, changed) => this.refreshView(conversation, changed),
    decrypt: (messages, shares) => this.options.decrypt(messages, shares),
  };

  constructor(options: ChatStoreOptions) {
    this.options = options;
    this.cacheWriter = options.cache ? new CacheWriter(options.cache) : null;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** A stable snapshot per conversation (for useSyncExternalStore). */
  view(conversationId: string): ConversationView {
    return this.conversations.get(conversationId)?.view ?? emptyView;
  }

  /** Opening a conversation loads it the first time and catches it up every later time. */
  open(conversationId: string, receiverId: string): Promise<void> {
    const existing = this.conversations.get(conversationId);
    const conversation = existing ?? this.create(conversationId, receiverId);
    return this.enqueue(conversation, () => (existing ? this.catchUp(conversation) : this.loadRecent(conversation)));
  }

  /** The socket (re)authenticated: the open conversation catches up now. */
  authenticated(openConversationId: string | null): Promise<void> {
    const conversation = openConversationId ? this.conversations.get(openConversationId) : undefined;
    if (!conversation) return Promise.resolve();
    return this.enqueue(conversation, () => this.catchUp(conversation));
  }

  /**
   * A `chat_message` frame. Frames for conversations never opened are left for their first load.
   * A frame does not move the cursor (see above): the next catch-up asks again from the cursor.
   * Resolves to what decrypting it gave (for notifications): undefined for a conversation never
   * opened, or while a load that brought the same message is still decrypting it.
   */
  async live(message: Message): Promise<DecryptResult | undefined> {
    const conversation = this.conversations.get(message.conversationId);
    if (!conversation) return undefined;
    await this.add(conversation, [message]);
    const result = conversation.results.get(message.id);
    // The frame of a message this member is still sending can come before the send's answer:
    // the stored message takes the place of the one being sent (known by the send's client
    // message id, which is its local id), so it is never shown twice.
    if (message.senderId === this.options.selfId && message.clientMessageId && result?.status === 'ok') {
      const same = conversation.outgoing.find((o) => o.localId === message.clientMessageId);
      if (same)
        this.setOutgoing(
          conversation,
          conversation.outgoing.filter((o) => o !== same),
        );
    }
    return result;
  }

  /** The member started sending `text` (shown as being sent until {@link sent} or {@link failed}). */
  sending(conversationId: string, localId: string, text: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    const others = conversation.outgoing.filter((o) => o.localId !== localId);
    this.setOutgoing(conversation, [...others, { localId, text, state: 'sending' }]);
  }

  /** The member's own message as the server stored it, with what they typed (and attached). */
  sent(message: Message, content: MessageContent, localId?: string): void {
    const conversation = this.conversations.get(message.conversationId);
    if (!conversation) return;
    conversation.results.set(message.id, { status: 'ok', ...content });
    conversation.resultsChanged = true;
    conversation.outgoing = conversation.outgoing.filter((o) => o.localId !== localId);
    void this.add(conversation, [message]);
  }

  /** A `timeline_event` frame: shown in place, and a timer change moves the conversation's timer. */
  event(event: TimelineEvent): void {
    const conversation = this.conversations.get(event.conversationId);
    if (!conversation) return;
    this.addEvents(conversation, [event]);
    this.refreshView(conversation, { messages: true });
  }

  /**
   * Messages erased on the server (a `messages_deleted` frame): dropped with their text; one its
   * sender deleted leaves a note in its place (an annotation none: it was never a row).
   */
  removed(conversationId: string, ids: readonly number[], reason: 'expired' | 'deleted'): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation || conversation.fromCache.size > 0) this.cacheWriter?.prune(conversationId, ids);
    if (!conversation) return;
    const held = ids.flatMap((id) => conversation.messages.get(id) ?? []);
    if (reason === 'deleted') {
      this.addEvents(
        conversation,
        held
          .filter((m) => m.targetId === null)
          .map((m) => ({ id: m.id, conversationId, actorId: m.senderId, timestamp: m.timestamp, event: { kind: 'message_deleted' } })),
      );
    }
    this.drop(
      conversation,
      held.map((m) => m.id),
    );
  }

  /** Sending failed for good: the message stays, marked, for a retry. */
  failed(conversationId: string, localId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.setOutgoing(
      conversation,
      conversation.outgoing.map((o) => (o.localId === localId ? { ...o, state: 'failed' } : o)),
    );
  }

  /** The member gave up on a message that failed. */
  discard(conversationId: string, localId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.setOutgoing(
      conversation,
      conversation.outgoing.filter((o) => o.localId !== localId),
    );
  }

  /** Pages back from the oldest message held. */
  async loadOlder(conversationId: string): Promise<void> {
    const conversation = this.conversations.get(conversationId);
    if (!conversation || conversation.loadingOlder || !conversation.hasOlder) return;
    const oldest = Math.min(...conversation.messages.keys(), ...conversation.events.keys());
    this.update(conversation, { loadingOlder: true });
    try {
      const page = await this.options.history({ receiverId: conversation.receiverId, before: oldest, limit: this.olderPageSize });
      // Decrypted before they are shown, and shown in one view with the button back: these rows
      // are above what the reader is looking at.
      const undecrypted = page.messages.filter((m) => !conversation.messages.has(m.id) && !conversation.results.has(m.id));
      if (undecrypted.length) await this.decryptResults(conversation, undecrypted, page.shares);
      conversation.hasOlder = page.hasMore;
      this.insert(conversation, page.messages);
      this.addEvents(conversation, page.events);
      conversation.loadingOlder = false;
      this.refreshView(conversation, { messages: true });
    } catch (error) {
      console.error('could not load older messages', error);
      this.update(conversation, { loadingOlder: false });
    }
  }

  /** Decrypts again what failed for a reason that may have passed (a member list refresh). */
  async retryUnreadable(): Promise<void> {
    await Promise.all(
      [...this.conversations.values()].map((conversation) => {
        const retry = [...conversation.messages.values()].filter((m) => {
          const result = conversation.results.get(m.id);
          return result?.status === 'unreadable' && result.retryable;
        });
        return retry.length ? this.decryptInto(conversation, retry) : undefined;
      }),
    );
  }

  /** Writes every conversation changed since its last write to the cache now (tests; otherwise soon after a change). */
  flushCache(): Promise<void> {
    return this.cacheWriter?.flush() ?? Promise.resolve();
  }

  /** The member's groups as the server lists them: the cache lets go of any other group. */
  keepGroups(groupIds: readonly string[]): void {
    this.cacheWriter?.keepGroups(this.conversations.values(), groupIds);
  }

  private get pageSize(): number {
    return this.options.pageSize ?? limits.historyPageSize;
  }

  private get olderPageSize(): number {
    return this.options.olderPageSize ?? limits.historyMaxPageSize;
  }

  private create(conversationId: string, receiverId: string): Conversation {
    const conversation = newConversation(conversationId, receiverId);
    this.conversations.set(conversationId, conversation);
    this.refreshView(conversation);
    return conversation;
  }

  /** Loads run one after another per conversation, so each starts from the previous one's cursor. */
  private enqueue(conversation: Conversation, task: () => Promise<void>): Promise<void> {
    const run = conversation.queue.then(task).catch((error: unknown) => {
      // The member may no longer read it (removed from a private group): nothing of it is shown from the cache again.
      if (this.cacheWriter && (isApiFailure(error, 404) || isApiFailure(error, 403))) undraw(conversation, this.cacheWriter, this.steps);
      // docs/spec.md §2: chat load failures are only logged.
      console.error('could not load messages', error);
      if (conversation.status === 'loading') this.update(conversation, { status: 'error' });
    });
    conversation.queue = run;
    return run;
  }

  private async loadRecent(conversation: Conversation): Promise<void> {
    const fromCache = this.cacheWriter && (await drawFromCache(conversation, this.cacheWriter, this.steps));
    const limit = fromCache ? pageSpanning(fromCache, this.pageSize) : this.pageSize;
    const page = await this.options.history({ receiverId: conversation.receiverId, limit });
    if (conversation.fromCache.size) return mergeServerPage(conversation, page, this.steps);
    conversation.hasOlder = page.hasMore;
    this.markSynced(conversation, page);
    await this.add(conversation, page.messages, page.shares);
  }

  private async catchUp(conversation: Conversation): Promise<void> {
    if (conversation.cursor === 0) return this.loadRecent(conversation);
    const fetched: Message[] = [];
    const events: TimelineEvent[] = [];
    const shares: EpochShare[] = [];
    let after = conversation.cursor;
    let complete = false;
    let disappearingSeconds = conversation.disappearingSeconds;
    for (let page = 0; page < MAX_CATCH_UP_PAGES && !complete; page++) {
      const result = await this.options.history({ receiverId: conversation.receiverId, after, limit: this.pageSize });
      fetched.push(...result.messages);
      events.push(...result.events);
      shares.push(...result.shares);
      disappearingSeconds = result.disappearingSeconds;
      const last = Math.max(0, ...result.messages.map((m) => m.id), ...result.events.map((e) => e.id));
      complete = !result.hasMore || last === 0;
      if (last) after = last;
    }
    // Short of the end, the cursor still moves (pages are contiguous); the rest comes next time.
    this.markSynced(conversation, { messages: fetched, events, disappearingSeconds });
    await this.add(conversation, fetched, shares);
  }

  /** Moves the cursor over an HTTP answer (the only thing that moves it), and takes its events and timer. */
  private markSynced(conversation: Conversation, page: Pick<HistoryResponse, 'messages' | 'events' | 'disappearingSeconds'>): void {
    for (const item of [...page.messages, ...page.events]) if (item.id > conversation.cursor) conversation.cursor = item.id;
    this.addEvents(conversation, page.events, page.disappearingSeconds);
    conversation.status = 'ready';
  }

  /** Adds timeline events (a deletion note also drops its message); a timer change, or an answer's timer, moves the timer. */
  private addEvents(conversation: Conversation, events: readonly TimelineEvent[], timer?: HistoryResponse['disappearingSeconds']): void {
    for (const e of events) conversation.events.set(e.id, e);
    const deleted = events.filter((e) => e.event.kind === 'message_deleted').map((e) => e.id);
    if (deleted.length) this.drop(conversation, deleted);
    takeTimer(conversation, events, timer);
  }

  /** Forgets messages and their decrypted text. */
  private drop(conversation: Conversation, ids: readonly number[]): void {
    for (const id of ids) {
      conversation.messages.delete(id);
      conversation.results.delete(id);
      conversation.fromCache.delete(id);
    }
    conversation.resultsChanged = true;
    this.refreshView(conversation, { messages: true });
  }

  private async add(conversation: Conversation, messages: readonly Message[], shares?: readonly EpochShare[]): Promise<void> {
    const fresh = this.insert(conversation, messages);
    this.refreshView(conversation, { messages: fresh.length > 0 });
    const undecrypted = fresh.filter((m) => !conversation.results.has(m.id));
    if (undecrypted.length) await this.decryptInto(conversation, undecrypted, shares);
  }

  /**
   * Adds the messages not held yet (not shown until the next view); those it added. One already
   * expired, or deleted (a note holds its id), is not taken.
   */
  private insert(conversation: Conversation, messages: readonly Message[]): Message[] {
    const now = Date.now();
    const fresh = messages.filter(
      (m) => !conversation.messages.has(m.id) && !conversation.events.has(m.id) && (m.expiresAt === null || Date.parse(m.expiresAt) > now),
    );
    for (const m of fresh) {
      conversation.messages.set(m.id, m);
      if (m.expiresAt !== null) this.scheduleExpiry(Date.parse(m.expiresAt));
    }
    return fresh;
  }

  /** Drops every message held whose time has come by this browser's clock. */
  private expire(now: number): void {
    for (const conversation of this.conversations.values()) {
      const due = [...conversation.messages.values()]
        .filter((m) => m.expiresAt !== null && Date.parse(m.expiresAt) <= now)
        .map((m) => m.id);
      if (due.length) this.drop(conversation, due);
    }
  }

  /** Wakes at `at` (or earlier, for an earlier expiry already scheduled) to drop what expired. */
  private scheduleExpiry(at: number): void {
    if (at >= this.nextExpiry) return;
    clearTimeout(this.expiryTimer);
    this.nextExpiry = at;
    this.expiryTimer = setTimeout(
      () => {
        this.nextExpiry = Infinity;
        this.expire(Date.now());
        const next = Math.min(
          ...[...this.conversations.values()].flatMap((c) =>
            [...c.messages.values()].flatMap((m) => (m.expiresAt ? [Date.parse(m.expiresAt)] : [])),
          ),
        );
        if (next !== Infinity) this.scheduleExpiry(next);
      },
      Math.max(0, at - Date.now()),
    );
  }

  private async decryptInto(conversation: Conversation, messages: readonly Message[], shares?: readonly EpochShare[]): Promise<void> {
    await this.decryptResults(conversation, messages, shares);
    this.refreshView(conversation);
  }

  /** Decrypts into the conversation's results, not shown yet. */
  private async decryptResults(conversation: Conversation, messages: readonly Message[], shares?: readonly EpochShare[]): Promise<void> {
    const results = await this.options.decrypt(messages, shares);
    for (const [id, result] of results) conversation.results.set(id, result);
    conversation.resultsChanged = true;
  }

  private setOutgoing(conversation: Conversation, outgoing: Outgoing[]): void {
    conversation.outgoing = outgoing;
    this.refreshView(conversation);
  }

  private update(conversation: Conversation, patch: Partial<Pick<Conversation, 'status' | 'loadingOlder'>>): void {
    Object.assign(conversation, patch);
    this.refreshView(conversation);
  }

  /** A new snapshot for the screens (conversation.ts), and the listeners told. */
  private refreshView(conversation: Conversation, changed: { messages?: boolean } = {}): void {
    if (changed.messages || conversation.resultsChanged) this.cacheWriter?.changed(conversation);
    nextView(conversation, changed);
    for (const listener of this.listeners) listener();
  }
}
