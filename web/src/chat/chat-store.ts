/**
 * Messages per conversation, kept without gaps or duplicates across reconnects.
 *
 * Each conversation has a `cursor`: the highest message id up to which it is known to hold
 * everything. Only HTTP answers move it, never live frames: ids are assigned before commit and
 * frames from different server instances may arrive out of order, so a frame for 102 says nothing
 * about 101. After a reconnect the open conversation catches up with `after=<cursor>` and the
 * others do when they are opened. Messages are keyed by their server id, so a message that comes
 * both as a frame and in a page is held once.
 */
import type { DecryptResult } from '@enclave/client';
import { limits, type EpochShare, type HistoryResponse, type Message, type MessageContent } from '@enclave/protocol';
import type { HistoryParams } from '../net/http';

/**
 * A message of this member's not stored yet: being sent, or failed after the client's own resends
 * (then kept, with its text, until the member retries or discards it: never silently lost).
 */
export type Outgoing = { localId: string; text: string; state: 'sending' | 'failed' };

export type ConversationView = {
  /** Oldest first. */
  messages: readonly Message[];
  results: ReadonlyMap<number, DecryptResult>;
  status: 'idle' | 'loading' | 'ready' | 'error';
  hasOlder: boolean;
  loadingOlder: boolean;
  /** In the order they were written. */
  outgoing: readonly Outgoing[];
};

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
};

/** Bound on catch-up pages per reconnect; a longer absence pages in on the next open. */
const MAX_CATCH_UP_PAGES = 50;

const emptyView: ConversationView = {
  messages: [],
  results: new Map(),
  status: 'idle',
  hasOlder: false,
  loadingOlder: false,
  outgoing: [],
};

type Conversation = {
  receiverId: string;
  messages: Map<number, Message>;
  results: Map<number, DecryptResult>;
  status: ConversationView['status'];
  hasOlder: boolean;
  loadingOlder: boolean;
  outgoing: Outgoing[];
  cursor: number;
  queue: Promise<void>;
  view: ConversationView;
  /** Results set since the last view was made. */
  resultsChanged: boolean;
};

export class ChatStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly listeners = new Set<() => void>();
  private readonly options: ChatStoreOptions;

  constructor(options: ChatStoreOptions) {
    this.options = options;
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
    // the stored message takes the place of the one being sent, so it is never shown twice.
    if (message.senderId === this.options.selfId && result?.status === 'ok') {
      const same = conversation.outgoing.find((o) => o.state === 'sending' && o.text === result.text);
      if (same) this.setOutgoing(conversation, conversation.outgoing.filter((o) => o !== same));
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

  /** Sending failed for good: the message stays, marked, for a retry. */
  failed(conversationId: string, localId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.setOutgoing(conversation, conversation.outgoing.map((o) => (o.localId === localId ? { ...o, state: 'failed' } : o)));
  }

  /** The member gave up on a message that failed. */
  discard(conversationId: string, localId: string): void {
    const conversation = this.conversations.get(conversationId);
    if (!conversation) return;
    this.setOutgoing(conversation, conversation.outgoing.filter((o) => o.localId !== localId));
  }

  /** Pages back from the oldest message held. */
  async loadOlder(conversationId: string): Promise<void> {
    const conversation = this.conversations.get(conversationId);
    if (!conversation || conversation.loadingOlder || !conversation.hasOlder) return;
    const oldest = Math.min(...conversation.messages.keys());
    this.update(conversation, { loadingOlder: true });
    try {
      const page = await this.options.history({ receiverId: conversation.receiverId, before: oldest, limit: this.olderPageSize });
      // Decrypted before they are shown, and shown in one view with the button back: these rows
      // are above what the reader is looking at.
      const undecrypted = page.messages.filter((m) => !conversation.messages.has(m.id) && !conversation.results.has(m.id));
      if (undecrypted.length) await this.decryptResults(conversation, undecrypted, page.shares);
      conversation.hasOlder = page.hasMore;
      this.insert(conversation, page.messages);
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

  private get pageSize(): number {
    return this.options.pageSize ?? limits.historyPageSize;
  }

  private get olderPageSize(): number {
    return this.options.olderPageSize ?? limits.historyMaxPageSize;
  }

  private create(conversationId: string, receiverId: string): Conversation {
    const conversation: Conversation = {
      receiverId,
      messages: new Map(),
      results: new Map(),
      status: 'loading',
      hasOlder: false,
      loadingOlder: false,
      outgoing: [],
      cursor: 0,
      queue: Promise.resolve(),
      view: emptyView,
      resultsChanged: false,
    };
    this.conversations.set(conversationId, conversation);
    this.refreshView(conversation);
    return conversation;
  }

  /** Loads run one after another per conversation, so each starts from the previous one's cursor. */
  private enqueue(conversation: Conversation, task: () => Promise<void>): Promise<void> {
    const run = conversation.queue.then(task).catch((error: unknown) => {
      // docs/spec.md §2: chat load failures are only logged.
      console.error('could not load messages', error);
      if (conversation.status === 'loading') this.update(conversation, { status: 'error' });
    });
    conversation.queue = run;
    return run;
  }

  private async loadRecent(conversation: Conversation): Promise<void> {
    const page = await this.options.history({ receiverId: conversation.receiverId, limit: this.pageSize });
    conversation.hasOlder = page.hasMore;
    this.markSynced(conversation, page.messages);
    await this.add(conversation, page.messages, page.shares);
  }

  private async catchUp(conversation: Conversation): Promise<void> {
    if (conversation.cursor === 0) return this.loadRecent(conversation);
    const fetched: Message[] = [];
    const shares: EpochShare[] = [];
    let after = conversation.cursor;
    let complete = false;
    for (let page = 0; page < MAX_CATCH_UP_PAGES && !complete; page++) {
      const result = await this.options.history({ receiverId: conversation.receiverId, after, limit: this.pageSize });
      fetched.push(...result.messages);
      shares.push(...result.shares);
      const last = result.messages.at(-1);
      complete = !result.hasMore || !last;
      if (last) after = last.id;
    }
    // Short of the end, the cursor still moves (pages are contiguous); the rest comes next time.
    this.markSynced(conversation, fetched);
    await this.add(conversation, fetched, shares);
  }

  /** Moves the cursor over an HTTP answer (the only thing that moves it). */
  private markSynced(conversation: Conversation, fetched: readonly Message[]): void {
    for (const m of fetched) if (m.id > conversation.cursor) conversation.cursor = m.id;
    conversation.status = 'ready';
  }

  private async add(conversation: Conversation, messages: readonly Message[], shares?: readonly EpochShare[]): Promise<void> {
    const fresh = this.insert(conversation, messages);
    this.refreshView(conversation, { messages: fresh.length > 0 });
    const undecrypted = fresh.filter((m) => !conversation.results.has(m.id));
    if (undecrypted.length) await this.decryptInto(conversation, undecrypted, shares);
  }

  /** Adds the messages not held yet (not shown until the next view); those it added. */
  private insert(conversation: Conversation, messages: readonly Message[]): Message[] {
    const fresh = messages.filter((m) => !conversation.messages.has(m.id));
    for (const m of fresh) conversation.messages.set(m.id, m);
    return fresh;
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

  /**
   * A new snapshot for the screens. The message list is sorted and the results copied again only
   * when they changed: rows whose message and result stay the same objects are not rendered again.
   */
  private refreshView(conversation: Conversation, changed: { messages?: boolean } = {}): void {
    const previous = conversation.view;
    const view: ConversationView = {
      messages: changed.messages ? [...conversation.messages.values()].sort((a, b) => a.id - b.id) : previous.messages,
      results: conversation.resultsChanged ? new Map(conversation.results) : previous.results,
      status: conversation.status,
      hasOlder: conversation.hasOlder,
      loadingOlder: conversation.loadingOlder,
      outgoing: conversation.outgoing,
    };
    conversation.resultsChanged = false;
    conversation.view = view;
    for (const listener of this.listeners) listener();
  }
}
