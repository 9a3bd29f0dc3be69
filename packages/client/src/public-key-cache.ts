import type { importPublicIdentity, PublicIdentity } from '@enclave/crypto';

/** Imported public keys of one member. */
export type ImportedKeys = Awaited<ReturnType<typeof importPublicIdentity>>;

/** Whose keys these are: the id keys the cache, the name only labels a log line. */
export type KeyOwner = PublicIdentity & { id: string; username?: string };

type Entry = { encryptionPublicKey: string; signingPublicKey: string; keys: Promise<ImportedKeys | null> };

/**
 * Members' public keys imported once per member (and again only if the keys given for the member
 * change). It decides nothing about trust: {@link KeyTrust} asks it only for keys it has checked.
 */
export class PublicKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly importKeys: typeof importPublicIdentity;

  /** @param importKeys `importPublicIdentity` of `@enclave/crypto` (a fake in tests). */
  constructor(importKeys: typeof importPublicIdentity) {
    this.importKeys = importKeys;
  }

  /** The member's verify key, or null when their published keys do not import. */
  async verifyKey(owner: KeyOwner): Promise<CryptoKey | null> {
    return (await this.keys(owner))?.verifyKey ?? null;
  }

  /** Both imported keys of the member, or null when they do not import. */
  keys(owner: KeyOwner): Promise<ImportedKeys | null> {
    const entry = this.entries.get(owner.id);
    if (entry && entry.encryptionPublicKey === owner.encryptionPublicKey && entry.signingPublicKey === owner.signingPublicKey) {
      return entry.keys;
    }
    const keys = this.importKeys({
      encryptionPublicKey: owner.encryptionPublicKey,
      signingPublicKey: owner.signingPublicKey,
    }).catch((error: unknown) => {
      console.error(`could not import the public keys of ${owner.username ?? owner.id}`, error);
      return null;
    });
    this.entries.set(owner.id, { encryptionPublicKey: owner.encryptionPublicKey, signingPublicKey: owner.signingPublicKey, keys });
    return keys;
  }
}
