import { importPublicIdentity } from '@enclave/crypto';
import type { PublicUser } from '@enclave/protocol';

type Imported = Awaited<ReturnType<typeof importPublicIdentity>>;
type Entry = { encryptionPublicKey: string; signingPublicKey: string; keys: Promise<Imported | null> };

/** Members' public keys imported once per member (and again only if the server's copy changes). */
export class PublicKeyCache {
  private readonly entries = new Map<string, Entry>();

  /** The member's verify key, or null when their published keys do not import. */
  async verifyKey(user: PublicUser): Promise<CryptoKey | null> {
    return (await this.imported(user))?.verifyKey ?? null;
  }

  private imported(user: PublicUser): Promise<Imported | null> {
    const entry = this.entries.get(user.id);
    if (entry && entry.encryptionPublicKey === user.encryptionPublicKey && entry.signingPublicKey === user.signingPublicKey) {
      return entry.keys;
    }
    const keys = importPublicIdentity({
      encryptionPublicKey: user.encryptionPublicKey,
      signingPublicKey: user.signingPublicKey,
    }).catch((error: unknown) => {
      console.error(`could not import the public keys of ${user.username}`, error);
      return null;
    });
    this.entries.set(user.id, { encryptionPublicKey: user.encryptionPublicKey, signingPublicKey: user.signingPublicKey, keys });
    return keys;
  }
}
