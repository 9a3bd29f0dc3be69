import 'fake-indexeddb/auto';
import type { CachedHistory } from '@enclave/client';
import { storedMessage } from '@enclave/client/testing';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clearKeyStore, saveIdentity } from '../auth/key-store';
import { HISTORY_STORE, IDENTITY_STORE, transact, withStore } from '../lib/enclave-db';
import { wipeBrowser } from '../security/wipe';
import { MAX_CACHED_CONVERSATIONS, indexedDbHistoryCache } from './history-cache';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const GROUP = 'group:00000000-0000-4000-8000-0000000000ff';
const SECRET = 'the vault code is 4471 behind the painting';
const USERNAME = 'bartholomew-the-sender';
const publicIdentity = { encryptionPublicKey: 'alice-rsa-spki', signingPublicKey: 'alice-ec-spki' };

async function signIn(userId = ALICE): Promise<void> {
  const rsa = await crypto.subtle.generateKey(
    { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    false,
    ['encrypt', 'decrypt'],
  );
  const ec = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  await saveIdentity(userId, { privateIdentity: { decryptKey: rsa.privateKey, signKey: ec.privateKey }, publicIdentity });
}

function history(conversationId = GROUP): CachedHistory {
  const messages = [1, 2, 3].map((id) => storedMessage(id, { conversationId, senderUsername: USERNAME }));
  return {
    messages,
    results: messages.map((m) => [m.id, { status: 'ok', text: `${SECRET} #${m.id}` }]),
    events: [],
    disappearingSeconds: 0,
  };
}

/** Every record of the history store, key and value. */
async function records(): Promise<{ key: string; value: unknown }[]> {
  const out: { key: string; value: unknown }[] = [];
  await transact([HISTORY_STORE], 'readonly', (tx) => {
    const cursor = tx.objectStore(HISTORY_STORE).openCursor();
    cursor.onsuccess = () => {
      if (!cursor.result) return;
      out.push({ key: String(cursor.result.key), value: cursor.result.value });
      cursor.result.continue();
    };
  });
  return out;
}

/** All the bytes of the store, keys and values, read as text both ways a search could read them. */
async function storedBytes(): Promise<string> {
  const parts: string[] = [];
  for (const { key, value } of await records()) {
    parts.push(key);
    const { iv, ciphertext } = value as { iv: Uint8Array; ciphertext: ArrayBuffer };
    for (const bytes of [iv, new Uint8Array(ciphertext)]) {
      parts.push(new TextDecoder().decode(bytes), String.fromCharCode(...bytes));
    }
  }
  return parts.join('\n');
}

beforeEach(() => {
  // A fresh, empty browser database for each test.
  globalThis.indexedDB = new IDBFactory();
});

describe('history cache', () => {
  it('stores only iv and ciphertext, with nothing of the messages, conversation or names readable', async () => {
    await signIn();
    const cache = indexedDbHistoryCache(ALICE);
    await cache.save(GROUP, history());
    const stored = await records();
    expect(stored.length).toBe(2); // the conversation and the list of conversations
    for (const { value } of stored) expect(Object.keys(value as object).sort()).toEqual(['ciphertext', 'iv']);
    const bytes = await storedBytes();
    for (const clear of [SECRET, 'behind the painting', GROUP, 'group:', USERNAME, ALICE, '"messages"', '"senderId"'])
      expect(bytes).not.toContain(clear);
    expect(await cache.load(GROUP)).toEqual(history());
  });

  it('seals each write under a fresh IV', async () => {
    await signIn();
    const cache = indexedDbHistoryCache(ALICE);
    await cache.save(GROUP, history());
    const first = (await records()).map((r) => (r.value as { iv: Uint8Array }).iv.join());
    await cache.save(GROUP, history());
    const second = (await records()).map((r) => (r.value as { iv: Uint8Array }).iv.join());
    expect(second.filter((iv) => first.includes(iv))).toEqual([]);
  });

  it('cannot be opened with another key, nor under another conversation', async () => {
    await signIn();
    await indexedDbHistoryCache(ALICE).save(GROUP, history());
    await indexedDbHistoryCache(ALICE).save('general', history('general'));
    // Another member's keys (made for them at their first save) do not open Alice's records.
    await signIn('00000000-0000-4000-8000-00000000000b');
    expect(await indexedDbHistoryCache('00000000-0000-4000-8000-00000000000b').load(GROUP)).toBeNull();
    // Records moved under one another's keys (each to the next) do not open there.
    const stored = await records();
    await transact([HISTORY_STORE], 'readwrite', (tx) =>
      stored.forEach((r, i) => tx.objectStore(HISTORY_STORE).put(r.value, stored[(i + 1) % stored.length]!.key)),
    );
    expect(await Promise.all([GROUP, 'general'].map((c) => indexedDbHistoryCache(ALICE).load(c)))).toEqual([null, null]);
    await withStore(HISTORY_STORE, 'readwrite', (store) => store.clear());
    await indexedDbHistoryCache(ALICE).save(GROUP, history());
    // Alice's keys replaced (a new sign-in elsewhere made new ones): her old records no longer open.
    const identity = await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(ALICE));
    const sealKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const nameKey = (identity as { historyKeys: { nameKey: CryptoKey } }).historyKeys.nameKey;
    await withStore(IDENTITY_STORE, 'readwrite', (store) =>
      store.put({ ...(identity as object), historyKeys: { sealKey, nameKey } }, ALICE),
    );
    expect(await indexedDbHistoryCache(ALICE).load(GROUP)).toBeNull();
  });

  it('keeps its keys non-extractable, beside the identity', async () => {
    await signIn();
    await indexedDbHistoryCache(ALICE).save(GROUP, history());
    const identity = (await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(ALICE))) as {
      historyKeys: { sealKey: CryptoKey; nameKey: CryptoKey };
    };
    expect(identity.historyKeys.sealKey.extractable).toBe(false);
    expect(identity.historyKeys.nameKey.extractable).toBe(false);
    expect(identity.historyKeys.sealKey.algorithm.name).toBe('AES-GCM');
  });

  it('is gone after clearKeyStore, and a save racing it writes nothing back', async () => {
    await signIn();
    const cache = indexedDbHistoryCache(ALICE);
    await cache.save(GROUP, history());
    await clearKeyStore();
    expect(await records()).toEqual([]);
    await cache.save(GROUP, history());
    expect(await records()).toEqual([]);
    expect(await indexedDbHistoryCache(ALICE).load(GROUP)).toBeNull();
  });

  it.each(['keep', 'delete'] as const)('is gone after the wipe (pins: %s)', async (pins) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await signIn();
    await indexedDbHistoryCache(ALICE).save(GROUP, history());
    await wipeBrowser({ pins });
    expect(await records()).toEqual([]);
    expect(await withStore(IDENTITY_STORE, 'readonly', (store) => store.count())).toBe(0);
  });

  it('keeps the most recently written conversations only, and forgets one on request', async () => {
    await signIn();
    const cache = indexedDbHistoryCache(ALICE);
    const ids = Array.from(
      { length: MAX_CACHED_CONVERSATIONS + 2 },
      (_, i) => `group:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    for (const id of ids) await cache.save(id, history(id));
    expect((await records()).length).toBe(MAX_CACHED_CONVERSATIONS + 1);
    expect(await cache.load(ids[0]!)).toBeNull();
    expect(await cache.load(ids[1]!)).toBeNull();
    expect(await cache.load(ids.at(-1)!)).not.toBeNull();
    await cache.forget(ids.at(-1)!);
    expect(await cache.load(ids.at(-1)!)).toBeNull();
    expect((await records()).length).toBe(MAX_CACHED_CONVERSATIONS);
  });

  it('holds nothing for a member with no stored identity', async () => {
    const cache = indexedDbHistoryCache(ALICE);
    await cache.save(GROUP, history());
    expect(await records()).toEqual([]);
    expect(await cache.load(GROUP)).toBeNull();
  });

  it('drops the cached copies of the groups the member is no longer in, and keeps the rest', async () => {
    await signIn();
    const cache = indexedDbHistoryCache(ALICE);
    const other = 'group:00000000-0000-4000-8000-0000000000ee';
    for (const id of ['general', GROUP, other]) await cache.save(id, history(id));
    await cache.keepGroups([GROUP]);
    expect(await cache.load(other)).toBeNull();
    expect(await cache.load(GROUP)).toEqual(history(GROUP));
    expect(await cache.load('general')).toEqual(history('general'));
    expect((await records()).length).toBe(3);
  });
});
