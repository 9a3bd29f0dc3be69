import { beforeEach, describe, expect, it, vi } from 'vitest';
import { clearKeyStore, loadIdentity, saveIdentity } from './key-store';

/** The stores of the `enclave` database as plain maps, behind stand-ins for its helpers (Node has no IndexedDB). */
const stores = vi.hoisted(() => ({
  identity: new Map<string, unknown>(),
  contacts: new Map<string, unknown>(),
  history: new Map<string, unknown>(),
}));

vi.mock('../lib/enclave-db', () => {
  type Name = keyof typeof stores;
  const fakeStore = (name: Name) => ({
    get: (key: string) => stores[name].get(key),
    put: (value: unknown, key: string) => void stores[name].set(key, value),
    clear: () => stores[name].clear(),
  });
  const withStore = async (name: Name, _mode: unknown, run: (store: unknown) => unknown) => run(fakeStore(name));
  return {
    IDENTITY_STORE: 'identity',
    CONTACTS_STORE: 'contacts',
    HISTORY_STORE: 'history',
    withStore,
    clearStore: async (name: Name) => void (await withStore(name, 'readwrite', (s) => (s as { clear(): void }).clear())),
    writeBatch: async (name: Name, write: (store: unknown) => void) => write(fakeStore(name)),
  };
});

const ALICE = '00000000-0000-4000-8000-00000000000a';
const publicIdentity = { encryptionPublicKey: 'alice-rsa-spki', signingPublicKey: 'alice-ec-spki' };

async function privateIdentity() {
  const rsa = await crypto.subtle.generateKey(
    { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    false,
    ['encrypt', 'decrypt'],
  );
  const ec = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  return { decryptKey: rsa.privateKey, signKey: ec.privateKey };
}

beforeEach(() => {
  stores.identity.clear();
  stores.contacts.clear();
  stores.history.clear();
});

describe('key store', () => {
  it('keeps the locally derived public keys next to the private keys', async () => {
    const keys = await privateIdentity();
    await saveIdentity(ALICE, { privateIdentity: keys, publicIdentity });
    expect(await loadIdentity(ALICE)).toEqual({ privateIdentity: keys, publicIdentity });
    expect(await loadIdentity('someone-else')).toBeNull();
  });

  it('keeps the share key with the identity, and restores a record from before share keys without one', async () => {
    const keys = await privateIdentity();
    const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, false, ['deriveKey'])) as CryptoKeyPair;
    const share = { privateKey: pair.privateKey, sharePublicKey: 'alice-x25519', signature: 'alice-signed' };
    await saveIdentity(ALICE, { privateIdentity: keys, publicIdentity, share });
    expect(await loadIdentity(ALICE)).toEqual({ privateIdentity: keys, publicIdentity, share });

    stores.identity.set(ALICE, { ...keys, publicIdentity });
    expect(await loadIdentity(ALICE)).toEqual({ privateIdentity: keys, publicIdentity });
    // A share key that is not a CryptoKey is no share key: the session sends as one from before them.
    stores.identity.set(ALICE, { ...keys, publicIdentity, share: { ...share, privateKey: 'not a key' } });
    expect(await loadIdentity(ALICE)).toEqual({ privateIdentity: keys, publicIdentity });
  });

  it('treats a record without its public keys as no identity', async () => {
    const keys = await privateIdentity();
    stores.identity.set(ALICE, { ...keys });
    expect(await loadIdentity(ALICE)).toBeNull();
    stores.identity.set(ALICE, { ...keys, publicIdentity: { encryptionPublicKey: 'x', signingPublicKey: 1 } });
    expect(await loadIdentity(ALICE)).toBeNull();
  });

  it('forgets the identity at logout but keeps the contacts pins', async () => {
    await saveIdentity(ALICE, { privateIdentity: await privateIdentity(), publicIdentity });
    stores.contacts.set(`${ALICE}:bob`, { owner: ALICE, contact: 'bob', fingerprint: '12345', pinnedAt: 'then' });
    await clearKeyStore();
    expect(await loadIdentity(ALICE)).toBeNull();
    expect(stores.identity.size).toBe(0);
    expect([...stores.contacts.keys()]).toEqual([`${ALICE}:bob`]);
  });

  it('never rejects, even when the store cannot be cleared', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const clear = vi.spyOn(stores.identity, 'clear').mockImplementation(() => {
      throw new Error('IndexedDB gone');
    });
    await expect(clearKeyStore()).resolves.toBeUndefined();
    expect(error).toHaveBeenCalled();
    clear.mockRestore();
    error.mockRestore();
  });
});
