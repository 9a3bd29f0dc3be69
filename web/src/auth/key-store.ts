/** The signed-in member's private keys, kept in IndexedDB for session restore. */
import type { PrivateIdentity } from '@enclave/crypto';
import { IDENTITY_STORE, deleteEnclaveDatabase, withStore } from '../lib/enclave-db';

/** Saves the member's non-extractable private keys under their user id. */
export async function saveIdentity(userId: string, identity: PrivateIdentity): Promise<void> {
  const record: PrivateIdentity = { decryptKey: identity.decryptKey, signKey: identity.signKey };
  await withStore(IDENTITY_STORE, 'readwrite', (store) => store.put(record, userId));
}

/** The keys stored for this member, or null when there are none (or they are not CryptoKeys). */
export async function loadIdentity(userId: string): Promise<PrivateIdentity | null> {
  const value: unknown = await withStore(IDENTITY_STORE, 'readonly', (store) => store.get(userId));
  if (typeof value !== 'object' || value === null) return null;
  const { decryptKey, signKey } = value as Record<string, unknown>;
  if (!(decryptKey instanceof CryptoKey) || !(signKey instanceof CryptoKey)) return null;
  return { decryptKey, signKey };
}

/** Forgets every key and pin held by this browser. */
export function clearKeyStore(): Promise<void> {
  return deleteEnclaveDatabase();
}
