/**
 * The member's recent history as this client holds it after decryption, kept by the platform (the
 * browser seals it in IndexedDB: web/src/chat/history-cache.ts) so that a conversation opened
 * again is drawn before the server answers. The store (chat-store.ts) decides what goes in and
 * when; the server's answer always has the last word on what is shown.
 */
import { isGroupConversation, limits, type DisappearingTimer, type Message, type TimelineEvent } from '@enclave/protocol';
import type { Conversation } from './conversation';
import type { DecryptResult } from './message-decryptor';

/** One conversation's newest items (messages, annotations and events share one id order), oldest first. */
export type CachedHistory = {
  messages: Message[];
  /** What decrypting each message gave, by its id; a message without one is not cached. */
  results: [number, DecryptResult][];
  events: TimelineEvent[];
  disappearingSeconds: DisappearingTimer;
};

/** Where the cached histories live. Every method may fail (storage switched off, keys wiped); the store then does without. */
export type HistoryCache = {
  /** The conversation's cached history, or null when none is held (or it cannot be opened). */
  load(conversationId: string): Promise<CachedHistory | null>;
  save(conversationId: string, history: CachedHistory): Promise<void>;
  /** Drops the conversation's cached history (the member may no longer read it). */
  forget(conversationId: string): Promise<void>;
  /** Drops the cached history of every group but these (the member's groups now). */
  keepGroups(groupIds: readonly string[]): Promise<void>;
};

/**
 * Items (messages and events) kept per conversation: the first page. More would be drawn, and
 * verified again once the server answers, before anything is shown, and each row drawn costs the
 * opening page its time; reading back is the server's.
 */
export const CACHED_ITEMS_PER_CONVERSATION = limits.historyPageSize;

/** A result worth keeping: one that decrypting again could change (a key not loaded yet) is left to the server's page. */
const isSettled = (result: DecryptResult | undefined): result is DecryptResult =>
  result !== undefined && !(result.status === 'unreadable' && result.retryable);

/**
 * The conversation's newest {@link CACHED_ITEMS_PER_CONVERSATION} items, without the messages
 * expired by `now` and those whose decryption is not settled. Annotations are newer than their
 * targets, so a kept message keeps its reactions and edits.
 */
export function snapshotOf(conversation: Conversation, now: number): CachedHistory {
  const live = [...conversation.messages.values()].filter(
    (m) => (m.expiresAt === null || Date.parse(m.expiresAt) > now) && isSettled(conversation.results.get(m.id)),
  );
  const items = [...live.map((m) => m.id), ...conversation.events.keys()].sort((a, b) => a - b);
  const kept = items.slice(-CACHED_ITEMS_PER_CONVERSATION);
  const oldest = kept[0] ?? Infinity;
  const messages = live.filter((m) => m.id >= oldest).sort((a, b) => a.id - b.id);
  return {
    messages,
    results: messages.map((m) => [m.id, conversation.results.get(m.id)!]),
    events: [...conversation.events.values()].filter((e) => e.id >= oldest).sort((a, b) => a.id - b.id),
    disappearingSeconds: conversation.disappearingSeconds,
  };
}

/** The size of the newest page asked after a cached draw: wide enough to confirm or correct every cached item. */
export function pageSpanning(history: CachedHistory, pageSize: number): number {
  return Math.min(limits.historyMaxPageSize, Math.max(pageSize, history.messages.length + history.events.length));
}

/** Same message or result, field by field (an unchanged one keeps its object, so its row is not drawn again). */
export const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Changes to a conversation within this long go to the cache in one write. */
const SAVE_DELAY_MS = 300;

/**
 * Writes the store's conversations to a {@link HistoryCache}: a little after they change, one
 * write after another (a later one lands last), only once an HTTP answer has synced them (what
 * the cache drew alone is not confirmed yet), and never again one the server refused.
 */
export class CacheWriter {
  readonly cache: HistoryCache;
  /** Conversations changed since they were last written. */
  private readonly unsaved = new Set<Conversation>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writes: Promise<void> = Promise.resolve();
  /** Conversations the server refused to this member: never cached again in this session. */
  private readonly refused = new Set<string>();

  constructor(cache: HistoryCache) {
    this.cache = cache;
  }

  isRefused(conversationId: string): boolean {
    return this.refused.has(conversationId);
  }

  /** The conversation changed: written soon, if it is synced. */
  changed(conversation: Conversation): void {
    if (conversation.cursor === 0 || conversation.fromCache.size > 0 || this.refused.has(conversation.id)) return;
    this.unsaved.add(conversation);
    this.timer ??= setTimeout(() => void this.flush(), SAVE_DELAY_MS);
  }

  /** Writes every changed conversation now; resolves once every write queued so far is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const due = [...this.unsaved];
    this.unsaved.clear();
    if (!due.length) return this.queue(async () => undefined);
    // The snapshots are taken now; the writes queue behind the earlier ones.
    const now = Date.now();
    const snapshots = due.map((c) => [c.id, snapshotOf(c, now)] as const);
    return this.queue(() => Promise.all(snapshots.map(([id, history]) => this.cache.save(id, history))));
  }

  /** The server refused the conversation: its cached copy goes, and it is not written again. */
  refuse(conversation: Conversation): void {
    this.refused.add(conversation.id);
    this.unsaved.delete(conversation);
    void this.queue(() => this.cache.forget(conversation.id));
  }

  /**
   * The member's groups now: the cached copies of any other group go, and the conversations of
   * those held in memory are not written again.
   */
  keepGroups(held: Iterable<Conversation>, groupIds: readonly string[]): void {
    for (const c of held) if (isGroupConversation(c.id) && !groupIds.includes(c.id)) this.refuse(c);
    void this.queue(() => this.cache.keepGroups(groupIds));
  }

  /** Takes these messages (and the annotations of them) out of the conversation's cached copy. */
  prune(conversationId: string, ids: readonly number[]): void {
    if (!ids.length) return;
    const gone = new Set(ids);
    void this.queue(async () => {
      const cached = await this.cache.load(conversationId);
      if (!cached) return;
      const messages = cached.messages.filter((m) => !gone.has(m.id) && (m.targetId === null || !gone.has(m.targetId)));
      if (messages.length === cached.messages.length) return;
      const kept = new Set(messages.map((m) => m.id));
      await this.cache.save(conversationId, { ...cached, messages, results: cached.results.filter(([id]) => kept.has(id)) });
    });
  }

  private queue(write: () => Promise<unknown>): Promise<void> {
    const run = this.writes.then(write).then(
      () => undefined,
      (error: unknown) => console.error('could not write the history cache', error),
    );
    this.writes = run;
    return run;
  }
}
