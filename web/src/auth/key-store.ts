/**
 * The signed-in member's identity, kept in IndexedDB for session restore: their non-extractable
 * private keys and the public keys derived from them at login (the member's own copy, which the
 * server's is checked against).
 */
import type { PrivateIdentity, PublicIdentity } from '@enclave/crypto';
import { IDENTITY_STORE, clearStore, withStore } from '../lib/enclave-db';

export type StoredIdentity = { privateIdentity: PrivateIdentity; publicIdentity: PublicIdentity };

type IdentityRecord = PrivateIdentity & { publicIdentity: PublicIdentity };

/** Saves the member's private keys and their locally derived public keys under their user id. */
export async function saveIdentity(userId: string, identity: StoredIdentity): Promise<void> {
  const { privateIdentity, publicIdentity } = identity;
  const record: IdentityRecord = {
    decryptKey: privateIdentity.decryptKey,
    signKey: privateIdentity.signKey,
    publicIdentity: {
      encryptionPublicKey: publicIdentity.encryptionPublicKey,
      signingPublicKey: publicIdentity.signingPublicKey,
    },
  };
  await withStore(IDENTITY_STORE, 'readwrite', (store) => store.put(record, userId));
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
  return { privateIdentity: { decryptKey, signKey }, publicIdentity: { encryptionPublicKey, signingPublicKey } };
}

/**
 * Forgets the member's identity (private keys and own public keys) held by this browser: logout,
 * an ended session, a breach. The contacts' key pins are kept on purpose: were they wiped, a
 * server could end a session once and have every contact re-pinned to keys of its choosing.
 * Never rejects; the caller is leaving the page either way.
 */
export async function clearKeyStore(): Promise<void> {
  await clearStore(IDENTITY_STORE).catch((error: unknown) => console.error('could not clear the stored identity', error));
}
