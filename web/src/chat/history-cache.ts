/**
 * The member's recent history, sealed in this browser's IndexedDB (the `history` store of
 * lib/enclave-db.ts) so that a conversation opened again is drawn before the server answers
 * (@enclave/client's HistoryCache; the chat store decides what goes in).
 *
 * Each conversation is one record: its key is HMAC-SHA-256 of the member and the conversation
 * under the member's `nameKey`, its value `{ iv, ciphertext }` only, AES-GCM under their
 * `sealKey` with a fresh random IV per seal and the record's key as associated data (a record
 * moved to another key does not open). Both keys are non-extractable and kept in the member's
 * identity record (auth/key-store.ts), so clearing the identity leaves nothing that opens the
 * records, and clearKeyStore deletes the records too. A write happens only in a transaction that
 * still finds those keys, so a save racing a logout cannot put a record back. Bounds: a page of
 * items per conversation (CACHED_ITEMS_PER_CONVERSATION) and the {@link MAX_CACHED_CONVERSATIONS} most
 * recently written conversations, listed (record key and conversation id) in one more sealed
 * record, which also lets the cache of a group the member is no longer in be dropped.
 */
import type { CachedHistory, HistoryCache } from '@enclave/client';
import { toHex } from '@enclave/crypto';
import { isGroupConversation } from '@enclave/protocol';
import { historyKeysOf, loadHistoryKeys, type HistoryKeys } from '../auth/key-store';
import { HISTORY_STORE, IDENTITY_STORE, transact, withStore } from '../lib/enclave-db';

/** Conversations kept per member; the least recently written goes first. */
export const MAX_CACHED_CONVERSATIONS = 20;

/** A record as stored: nothing else is readable. */
type Sealed = { iv: Uint8Array<ArrayBuffer>; ciphertext: ArrayBuffer };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function seal(keys: HistoryKeys, slot: string, value: unknown): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plaintext = encoder.encode(JSON.stringify(value));
  const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(slot) }, keys.sealKey, plaintext);
  return { iv, ciphertext };
}

/** The record's value, or null when it is not one of ours (another key, another slot, not a sealed record). */
async function unseal(keys: HistoryKeys, slot: string, record: unknown): Promise<unknown> {
  if (typeof record !== 'object' || record === null) return null;
  const { iv, ciphertext } = record as Record<string, unknown>;
  if (!(iv instanceof Uint8Array) || !(ciphertext instanceof ArrayBuffer)) return null;
  try {
    const plaintext = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: new Uint8Array(iv), additionalData: encoder.encode(slot) },
      keys.sealKey,
      ciphertext,
    );
    return JSON.parse(decoder.decode(plaintext)) as unknown;
  } catch {
    return null;
  }
}

/** The shape a history was written in (authenticated by the seal, so only its shape is checked). */
function asHistory(value: unknown): CachedHistory | null {
  if (typeof value !== 'object' || value === null) return null;
  const { messages, results, events, disappearingSeconds } = value as Record<string, unknown>;
  if (!Array.isArray(messages) || !Array.isArray(results) || !Array.isArray(events) || typeof disappearingSeconds !== 'number') return null;
  return value as CachedHistory;
}

/** One conversation in the sealed list of those cached, least recently written first. */
type Entry = { slot: string; conversationId: string };

const asEntries = (value: unknown): Entry[] =>
  Array.isArray(value)
    ? value.filter(
        (e): e is Entry => typeof e === 'object' && e !== null && typeof e.slot === 'string' && typeof e.conversationId === 'string',
      )
    : [];

/**
 * The history cache of member `userId` in this browser.
 *
 * @example
 * ```ts
 * new MemberClient({ ...options, historyCache: indexedDbHistoryCache(session.user.id) });
 * ```
 */
export function indexedDbHistoryCache(userId: string): HistoryCache {
  let keys: Promise<HistoryKeys | null> | null = null;
  const keysNow = () => {
    keys ??= loadHistoryKeys(userId).catch((error: unknown) => {
      console.error('no history cache', error);
      return null;
    });
    return keys;
  };
  // Read now, while the chat screen is still being drawn: the first conversation opened needs them.
  void keysNow();
  const slotOf = async (k: HistoryKeys, name: string) =>
    toHex(new Uint8Array(await crypto.subtle.sign('HMAC', k.nameKey, encoder.encode(`${userId}\n${name}`))));
  // Writes one after another: each reads and rewrites the list of conversations.
  let writes: Promise<unknown> = Promise.resolve();

  const read = (slot: string) => withStore(HISTORY_STORE, 'readonly', (store) => store.get(slot));

  /**
   * Rewrites the list of conversations as `update` says, puts its record if it gives one, and
   * deletes the records that left the list: only while the member's keys are still stored.
   */
  function write(update: (entries: Entry[]) => { entries: Entry[]; put?: [string, unknown] }): Promise<void> {
    const run = writes.then(async () => {
      const k = await keysNow();
      if (!k) return;
      const indexSlot = await slotOf(k, '\0conversations');
      const before = asEntries(await unseal(k, indexSlot, await read(indexSlot)));
      const { entries, put } = update(before);
      const kept = entries.slice(-MAX_CACHED_CONVERSATIONS).map((e) => e.slot);
      const gone = before.map((e) => e.slot).filter((s) => !kept.includes(s));
      const sealedIndex = await seal(k, indexSlot, entries.slice(-MAX_CACHED_CONVERSATIONS));
      const sealedRecord = put ? await seal(k, put[0], put[1]) : null;
      await transact([IDENTITY_STORE, HISTORY_STORE], 'readwrite', (tx) => {
        const identity = tx.objectStore(IDENTITY_STORE).get(userId);
        identity.onsuccess = () => {
          if (!historyKeysOf(identity.result)) return;
          const history = tx.objectStore(HISTORY_STORE);
          for (const slot of gone) history.delete(slot);
          if (put && sealedRecord && kept.includes(put[0])) history.put(sealedRecord, put[0]);
          history.put(sealedIndex, indexSlot);
        };
      });
    });
    writes = run.catch(() => undefined);
    return run;
  }

  return {
    async load(conversationId) {
      const k = await keysNow();
      if (!k) return null;
      const slot = await slotOf(k, conversationId);
      return asHistory(await unseal(k, slot, await read(slot)));
    },
    async save(conversationId, history) {
      const k = await keysNow();
      if (!k) return;
      const slot = await slotOf(k, conversationId);
      await write((entries) => ({ entries: [...entries.filter((e) => e.slot !== slot), { slot, conversationId }], put: [slot, history] }));
    },
    async forget(conversationId) {
      const k = await keysNow();
      if (!k) return;
      const slot = await slotOf(k, conversationId);
      // A conversation not in the list (written by another tab) goes too.
      await write((entries) => ({ entries: entries.filter((e) => e.slot !== slot) }));
      await withStore(HISTORY_STORE, 'readwrite', (store) => store.delete(slot));
    },
    async keepGroups(groupIds) {
      await write((entries) => ({
        entries: entries.filter((e) => !isGroupConversation(e.conversationId) || groupIds.includes(e.conversationId)),
      }));
    },
  };
}
