/**
 * The chat store's two steps with a history cache (history-cache.ts): drawing a conversation
 * from it before the server answers, and then taking the server's newest page over what was
 * drawn. They use the store's own steps (`StoreSteps`), so that a cached message is held, dropped
 * and decrypted by the same rules as any other.
 */
import type { EpochShare, HistoryResponse, Message } from '@enclave/protocol';
import type { Conversation } from './conversation';
import { sameValue, type CacheWriter, type CachedHistory } from './history-cache';
import type { DecryptResult } from './message-decryptor';

/** What the chat store lends these steps. */
export type StoreSteps = {
  /** Holds the messages not held yet (one expired or deleted is not taken); those it held. */
  insert(conversation: Conversation, messages: readonly Message[]): Message[];
  /** Moves the cursor over an HTTP answer, and takes its events and timer. */
  markSynced(conversation: Conversation, page: HistoryResponse): void;
  /** A new view for the screens. */
  refresh(conversation: Conversation, changed?: { messages?: boolean }): void;
  decrypt(messages: readonly Message[], shares?: readonly EpochShare[]): Promise<Map<number, DecryptResult>>;
};

/**
 * Draws the conversation, not loaded yet, from the cache if it holds it, its items marked as not
 * confirmed; resolves to what the cache held. A message expired by now is not drawn, and leaves
 * the cache. `hasOlder` stays false until the server answers: reading back starts from what the
 * server confirmed.
 */
export async function drawFromCache(conversation: Conversation, writer: CacheWriter, steps: StoreSteps): Promise<CachedHistory | null> {
  // Only into a conversation that holds nothing yet (a first load, or one that failed before any answer).
  if (conversation.cursor !== 0 || conversation.messages.size > 0 || writer.isRefused(conversation.id)) return null;
  const cached = await writer.cache.load(conversation.id).catch((error: unknown) => {
    console.error('could not read the history cache', error);
    return null;
  });
  if (!cached) return null;
  const now = Date.now();
  const results = new Map(cached.results);
  const fresh = steps.insert(
    conversation,
    cached.messages.filter((m) => results.has(m.id)),
  );
  for (const m of fresh) {
    conversation.results.set(m.id, results.get(m.id)!);
    conversation.fromCache.add(m.id);
  }
  for (const e of cached.events) {
    if (conversation.events.has(e.id)) continue;
    conversation.events.set(e.id, e);
    conversation.fromCache.add(e.id);
  }
  conversation.disappearingSeconds = cached.disappearingSeconds;
  conversation.resultsChanged = true;
  steps.refresh(conversation, { messages: true });
  writer.prune(
    conversation.id,
    cached.messages.filter((m) => m.expiresAt !== null && Date.parse(m.expiresAt) <= now).map((m) => m.id),
  );
  return cached;
}

/**
 * The server refused the conversation (404/403: the member was removed from a private group):
 * what the cache drew and no answer confirmed goes, and its cached copy with it.
 */
export function undraw(conversation: Conversation, writer: CacheWriter, steps: StoreSteps): void {
  writer.refuse(conversation);
  for (const id of conversation.fromCache) {
    conversation.messages.delete(id);
    conversation.results.delete(id);
    conversation.events.delete(id);
  }
  conversation.fromCache.clear();
  conversation.resultsChanged = true;
  steps.refresh(conversation, { messages: true });
}

/**
 * The server's newest page over what the cache drew. The page has the last word: a drawn item it
 * lacks is gone (deleted, expired, or older than the page: then the page replaces the cache
 * rather than leave a gap); a message it serves differently from the cached copy is shown as
 * served; and every drawn message is decrypted and verified again from the server's copy (a
 * sender's key changed since, a replay, a forgery), keeping its object, and its row, when
 * nothing changed.
 */
export async function mergeServerPage(conversation: Conversation, page: HistoryResponse, steps: StoreSteps): Promise<void> {
  const confirmed = new Set([...page.messages, ...page.events].map((item) => item.id));
  for (const id of conversation.fromCache) {
    if (confirmed.has(id)) continue;
    conversation.messages.delete(id);
    conversation.results.delete(id);
    conversation.events.delete(id);
  }
  const verify: Message[] = [];
  for (const m of page.messages) {
    const held = conversation.messages.get(m.id);
    if (!held || !conversation.fromCache.has(m.id)) continue;
    if (!sameValue(held, m)) {
      // Not the message the cache held: nothing of the cached one is shown for it.
      conversation.messages.set(m.id, m);
      conversation.results.delete(m.id);
    }
    verify.push(conversation.messages.get(m.id)!);
  }
  conversation.fromCache.clear();
  conversation.hasOlder = page.hasMore;
  steps.markSynced(conversation, page);
  const fresh = steps.insert(conversation, page.messages);
  conversation.resultsChanged = true;
  steps.refresh(conversation, { messages: true });
  const decrypt = [
    ...verify.filter((m) => conversation.messages.get(m.id) === m),
    ...fresh.filter((m) => !conversation.results.has(m.id)),
  ].sort((a, b) => a.id - b.id);
  if (!decrypt.length) return;
  const results = await steps.decrypt(decrypt, page.shares);
  for (const [id, result] of results) {
    // Dropped meanwhile (expired, deleted): its text is not taken back.
    if (!conversation.messages.has(id)) continue;
    const held = conversation.results.get(id);
    if (!held || !sameValue(held, result)) conversation.results.set(id, result);
  }
  conversation.resultsChanged = true;
  steps.refresh(conversation);
}
