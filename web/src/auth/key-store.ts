/**
 * The signed-in member's identity, kept in IndexedDB for session restore: their non-extractable
 * private keys and the public keys derived from them at login (the member's own copy, which the
 * server's is checked against), and the keys of their history cache (chat/history-cache.ts).
 */
import type { PrivateIdentity, PublicIdentity, ShareIdentity } from '@enclave/crypto';
import { HISTORY_STORE, IDENTITY_STORE, clearStore, transact, withStore } from '../lib/enclave-db';

/** `share`: the channel key's share key; absent in a record from before it was kept. */
export type StoredIdentity = { privateIdentity: PrivateIdentity; publicIdentity: PublicIdentity; share?: ShareIdentity };

/**
 * The history cache's keys, both non-extractable: `sealKey` (AES-GCM-256) seals each record,
 * `nameKey` (HMAC-SHA-256) names it, so that a record's key says nothing of its conversation.
 */
export type HistoryKeys = { sealKey: CryptoKey; nameKey: CryptoKey };

type IdentityRecord = PrivateIdentity & { publicIdentity: PublicIdentity; share?: ShareIdentity; historyKeys?: HistoryKeys };

/** The history cache's keys in an identity record, or null (none made yet, or the identity is gone). */
export function historyKeysOf(record: unknown): HistoryKeys | null {
  if (typeof record !== 'object' || record === null) return null;
  const keys = (record as { historyKeys?: unknown }).historyKeys;
  if (typeof keys !== 'object' || keys === null) return null;
  const { sealKey, nameKey } = keys as Record<string, unknown>;
  return sealKey instanceof CryptoKey && nameKey instanceof CryptoKey ? { sealKey, nameKey } : null;
}

/** Saves the member's private keys and their locally derived public keys under their user id. */
export async function saveIdentity(userId: string, identity: StoredIdentity): Promise<void> {
  const { privateIdentity, publicIdentity, share } = identity;
  const record: IdentityRecord = {
    decryptKey: privateIdentity.decryptKey,
    signKey: privateIdentity.signKey,
    publicIdentity: {
      encryptionPublicKey: publicIdentity.encryptionPublicKey,
      signingPublicKey: publicIdentity.signingPublicKey,
    },
    ...(share ? { share: { privateKey: share.privateKey, sharePublicKey: share.sharePublicKey, signature: share.signature } } : {}),
  };
  // Signing in again over a record of the same member (a restore that could not reach the
  // server) keeps the cache's keys, and with them the cache.
  const historyKeys = historyKeysOf(await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(userId)));
  if (historyKeys) record.historyKeys = historyKeys;
  await withStore(IDENTITY_STORE, 'readwrite', (store) => store.put(record, userId));
}

/**
 * The member's history cache keys, made and stored beside their identity the first time; null
 * when no identity is stored for them (signed out, wiped): then nothing is cached. The keys are
 * added in the transaction that reads the identity, so a logout in between cannot be undone.
 */
export async function loadHistoryKeys(userId: string): Promise<HistoryKeys | null> {
  const held = historyKeysOf(await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(userId)));
  if (held) return held;
  const made: HistoryKeys = {
    sealKey: await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
    nameKey: await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  };
  const outcome: { keys: HistoryKeys | null } = { keys: null };
  await transact([IDENTITY_STORE], 'readwrite', (tx) => {
    const store = tx.objectStore(IDENTITY_STORE);
    const request = store.get(userId);
    request.onsuccess = () => {
      const record: unknown = request.result;
      if (typeof record !== 'object' || record === null) return;
      // Another tab may have made them first: the stored ones win.
      outcome.keys = historyKeysOf(record);
      if (outcome.keys) return;
      store.put({ ...record, historyKeys: made }, userId);
      outcome.keys = made;
    };
  });
  return outcome.keys;
}

/**
 * The identity stored for this member, or null when there is none or it is incomplete (keys that
 * are not CryptoKeys, or a record from before the public keys were kept: the member signs in again).
 */
export async function loadIdentity(userId: string): Promise<StoredIdentity | null> {
  const value: unknown = await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(userId));
  if (typeof value !== 'object' || value === null) return null;
  const { decryptKey, signKey, publicIdentity } = value as Record<string, unknown>;
  if (!(decryptKey instanceof CryptoKey) || !(signKey instanceof CryptoKey)) return null;
  if (typeof publicIdentity !== 'object' || publicIdentity === null) return null;
  const { encryptionPublicKey, signingPublicKey } = publicIdentity as Record<string, unknown>;
  if (typeof encryptionPublicKey !== 'string' || typeof signingPublicKey !== 'string') return null;
  if (!encryptionPublicKey || !signingPublicKey) return null;
  const share = shareOf((value as Record<string, unknown>).share);
  return {
    privateIdentity: { decryptKey, signKey },
    publicIdentity: { encryptionPublicKey, signingPublicKey },
    ...(share ? { share } : {}),
  };
}

function shareOf(value: unknown): ShareIdentity | null {
  if (typeof value !== 'object' || value === null) return null;
  const { privateKey, sharePublicKey, signature } = value as Record<string, unknown>;
  if (!(privateKey instanceof CryptoKey) || typeof sharePublicKey !== 'string' || typeof signature !== 'string') return null;
  return { privateKey, sharePublicKey, signature };
}

/**
 * Forgets the member's identity (private keys, own public keys, the history cache's keys) held by
 * this browser, and the history cache with them: logout, an ended session, a breach. The
 * contacts' key pins are kept on purpose: were they wiped, a server could end a session once and
 * have every contact re-pinned to keys of its choosing. Never rejects; the caller is leaving the
 * page either way.
 */
export async function clearKeyStore(): Promise<void> {
  const results = await Promise.allSettled([clearStore(IDENTITY_STORE), clearStore(HISTORY_STORE)]);
  for (const r of results) if (r.status === 'rejected') console.error('could not clear the stored identity', r.reason);
}
