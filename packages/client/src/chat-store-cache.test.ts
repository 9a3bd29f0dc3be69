import type { HistoryResponse, Message, TimelineEvent } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore, type HistoryParams } from './chat-store';
import { CACHED_ITEMS_PER_CONVERSATION, type CachedHistory, type HistoryCache } from './history-cache';
import type { DecryptResult } from './message-decryptor';
import { storedMessage } from './testing';

const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const PAST = '2000-01-01T00:00:00.000Z';

/** The member's cache as plain copies, as a structured clone would store them. */
class MemoryCache implements HistoryCache {
  readonly held = new Map<string, CachedHistory>();
  readonly forgotten: string[] = [];
  async load(conversationId: string) {
    const history = this.held.get(conversationId);
    return history ? structuredClone(history) : null;
  }
  async save(conversationId: string, history: CachedHistory) {
    this.held.set(conversationId, structuredClone(history));
  }
  async forget(conversationId: string) {
    this.forgotten.push(conversationId);
    this.held.delete(conversationId);
  }
  async keepGroups(groupIds: readonly string[]) {
    for (const id of this.held.keys()) if (id.startsWith('group:') && !groupIds.includes(id)) await this.forget(id);
  }
}

const ok = (text: string): DecryptResult => ({ status: 'ok', text });
const edit = (text: string): DecryptResult => ({ status: 'ok', text: '', annotation: { kind: 'edit', text } });
const deletedNote = (id: number): TimelineEvent => ({
  id,
  conversationId: 'general',
  actorId: BOB,
  timestamp: PAST,
  event: { kind: 'message_deleted' },
});

/** A cache written by an earlier session: these messages as it decrypted them. */
function cached(messages: Message[], results: Map<number, DecryptResult> = new Map()): CachedHistory {
  return {
    messages,
    results: messages.map((m) => [m.id, results.get(m.id) ?? ok(`m${m.id}`)]),
    events: [],
    disappearingSeconds: 0,
  };
}

/**
 * A fake server holding `messages` and `events` of the general channel; each history request
 * waits until the test lets it answer, so that what the cache drew can be seen first.
 */
function setup(server: { messages: Message[]; events?: TimelineEvent[]; texts?: Map<number, DecryptResult> }, pageSize = 5) {
  const cache = new MemoryCache();
  const requests: HistoryParams[] = [];
  const decrypted: number[] = [];
  let answer: (() => void) | null = null;
  let refuse: ((error: unknown) => void) | null = null;
  const answered = () => new Promise<void>((resolve, reject) => ((answer = resolve), (refuse = reject)));
  const store = new ChatStore({
    selfId: ME,
    pageSize,
    cache,
    history: async (params): Promise<HistoryResponse> => {
      requests.push(params);
      await answered();
      const items = [...server.messages, ...(server.events ?? [])].sort((a, b) => a.id - b.id);
      const older = items.filter((i) => params.before === undefined || i.id < params.before);
      const page = older.slice(-(params.limit ?? 50));
      const ids = new Set(page.map((i) => i.id));
      return {
        messages: server.messages.filter((m) => ids.has(m.id)),
        events: (server.events ?? []).filter((e) => ids.has(e.id)),
        disappearingSeconds: 0,
        hasMore: older.length > page.length,
        shares: [],
      };
    },
    decrypt: async (messages) => {
      decrypted.push(...messages.map((m) => m.id));
      return new Map(messages.map((m): [number, DecryptResult] => [m.id, server.texts?.get(m.id) ?? ok(`m${m.id}`)]));
    },
  });
  const view = () => store.view('general');
  const ids = () => view().messages.map((m) => m.id);
  /** Opens the channel and waits until the history request is out (the cache is drawn by then). */
  async function openHeld(): Promise<{ opened: Promise<void> }> {
    const opened = store.open('general', 'all');
    await expect.poll(() => requests.length).toBe(1);
    return { opened };
  }
  const release = () => answer?.();
  const fail = (error: unknown) => refuse?.(error);
  return { store, cache, requests, decrypted, view, ids, openHeld, release, fail };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => storedMessage(from + i));

describe('chat store with a history cache', () => {
  it('draws the cached page before the server answers, then shows the server page once and in order', async () => {
    const t = setup({ messages: range(1, 10) });
    t.cache.held.set('general', cached(range(1, 8)));
    const { opened } = await t.openHeld();
    expect(t.ids()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(t.view().results.get(8)).toEqual(ok('m8'));
    // The newest page asked wide enough to span what the cache held.
    expect(t.requests[0]).toEqual({ receiverId: 'all', limit: 8 });
    t.release();
    await opened;
    // The server's page is what stays: 3..10, each once, in order; 1 and 2 lie beyond it, and
    // reading back brings them again from the server.
    expect(t.ids()).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(t.view().hasOlder).toBe(true);
    expect(t.view().status).toBe('ready');
    // Every message shown was decrypted (verified) from the server's copy, once.
    expect([...t.decrypted].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    const older = t.store.loadOlder('general');
    await expect.poll(() => t.requests.length).toBe(2);
    t.release();
    await older;
    expect(t.ids()).toEqual(range(1, 10).map((m) => m.id));
  });

  it('replaces a cache the newest page does not overlap, leaving no gap', async () => {
    const t = setup({ messages: range(1, 30) });
    t.cache.held.set('general', cached(range(1, 5)));
    const { opened } = await t.openHeld();
    expect(t.ids()).toEqual([1, 2, 3, 4, 5]);
    t.release();
    await opened;
    expect(t.ids()).toEqual([26, 27, 28, 29, 30]);
    expect(t.view().hasOlder).toBe(true);
  });

  it('keeps the cached objects of unchanged messages, so their rows are not drawn again', async () => {
    const t = setup({ messages: range(1, 6) });
    t.cache.held.set('general', cached(range(1, 6)));
    const { opened } = await t.openHeld();
    const before = t.view();
    t.release();
    await opened;
    const after = t.view();
    expect(after.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    after.messages.forEach((m, i) => expect(m).toBe(before.messages[i]));
    for (const id of [1, 6]) expect(after.results.get(id)).toBe(before.results.get(id));
  });

  it('drops a message deleted while the member was away, and never shows one that expired', async () => {
    const expired = storedMessage(5, { expiresAt: PAST });
    // On the server: 4 deleted for everyone (its note in its place), 5 expired and erased.
    const t = setup({ messages: [...range(1, 3), storedMessage(6)], events: [deletedNote(4)] });
    t.cache.held.set('general', cached([...range(1, 4), expired, storedMessage(6)]));
    const { opened } = await t.openHeld();
    expect(t.ids()).toEqual([1, 2, 3, 4, 6]);
    t.release();
    await opened;
    expect(t.ids()).toEqual([1, 2, 3, 6]);
    expect(t.view().events.map((e) => e.id)).toEqual([4]);
    expect(t.view().results.has(4)).toBe(false);
    // The expired one left the cached copy as soon as it was met; the next write holds the server's view.
    await t.store.flushCache();
    const saved = t.cache.held.get('general')!;
    expect(saved.messages.map((m) => m.id)).toEqual([1, 2, 3, 6]);
    expect(saved.events.map((e) => e.id)).toEqual([4]);
  });

  it('shows an edit made while the member was away, and not the one it replaced', async () => {
    const original = storedMessage(3);
    const oldEdit = storedMessage(4, { targetId: 3 });
    const newEdit = storedMessage(7, { targetId: 3 });
    // The server holds the new edit only (the client deletes the previous edits for everyone).
    const t = setup({ messages: [...range(1, 2), original, newEdit], texts: new Map([[7, edit('second words')]]) });
    t.cache.held.set('general', cached([...range(1, 2), original, oldEdit], new Map([[4, edit('first words')]])));
    const { opened } = await t.openHeld();
    expect(t.view().annotations.get(3)?.edit?.text).toBe('first words');
    expect(t.ids()).toEqual([1, 2, 3]);
    t.release();
    await opened;
    expect(t.ids()).toEqual([1, 2, 3]);
    expect(t.view().annotations.get(3)?.edit?.text).toBe('second words');
    expect(t.view().annotations.get(3)?.editIds).toEqual([7]);
  });

  it('decrypts again a message the server serves differently from the cached copy, and takes that result', async () => {
    const forged = storedMessage(2, { encryptedContent: 'other' });
    const t = setup({ messages: [storedMessage(1), forged], texts: new Map([[2, { status: 'bad_signature' }]]) });
    t.cache.held.set('general', cached(range(1, 2)));
    const { opened } = await t.openHeld();
    t.release();
    await opened;
    expect(t.view().messages[1]).toBe(t.view().messages.find((m) => m.encryptedContent === 'other'));
    expect(t.view().results.get(2)).toEqual({ status: 'bad_signature' });
  });

  it('forgets the cached copy of a conversation the server refuses, and shows nothing of it', async () => {
    const t = setup({ messages: range(1, 3) });
    t.cache.held.set('general', cached(range(1, 3)));
    const { opened } = await t.openHeld();
    expect(t.ids()).toEqual([1, 2, 3]);
    const error = console.error;
    console.error = () => undefined;
    t.fail({ status: 404, code: 'not_found' });
    await opened;
    console.error = error;
    expect(t.ids()).toEqual([]);
    await t.store.flushCache();
    expect(t.cache.forgotten).toEqual(['general']);
    expect(t.cache.held.has('general')).toBe(false);
  });

  it('writes a conversation only once the server has synced it, bounded to the newest items', async () => {
    const t = setup({ messages: range(1, 250) }, 50);
    const opened = t.store.open('general', 'all');
    await expect.poll(() => t.requests.length).toBe(1);
    await t.store.flushCache();
    expect(t.cache.held.has('general')).toBe(false);
    t.release();
    await opened;
    const older = t.store.loadOlder('general');
    await expect.poll(() => t.requests.length).toBe(2);
    t.release();
    await older;
    expect(t.ids().length).toBe(250);
    await t.store.flushCache();
    expect(t.cache.held.get('general')!.messages.map((m) => m.id)).toEqual(
      range(251 - CACHED_ITEMS_PER_CONVERSATION, 250).map((m) => m.id),
    );
  });

  it('takes a message erased on the server out of the cached copy of a conversation not open', async () => {
    const t = setup({ messages: [] });
    t.cache.held.set('general', cached(range(1, 3)));
    t.store.removed('general', [2], 'deleted');
    await t.store.flushCache();
    expect(t.cache.held.get('general')!.messages.map((m) => m.id)).toEqual([1, 3]);
  });

  it('lets go of the cached copy of a group the member is no longer in, and does not write it again', async () => {
    const kept = 'group:00000000-0000-4000-8000-00000000000a';
    const left = 'group:00000000-0000-4000-8000-00000000000b';
    const t = setup({ messages: range(1, 3) });
    for (const id of ['general', kept, left]) t.cache.held.set(id, cached(range(1, 3)));
    t.store.keepGroups([kept]);
    await t.store.flushCache();
    expect([...t.cache.held.keys()].sort()).toEqual(['general', kept]);
  });
});
