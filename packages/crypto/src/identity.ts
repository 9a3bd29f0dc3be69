import { translateErrors } from './errors';
import { fromBase64 } from './encoding';
import { ecdsaImport, rsaOaepImport } from './algorithms';

/** A member's public keys as the server stores and hands them out: SPKI, base64. */
export type PublicIdentity = { encryptionPublicKey: string; signingPublicKey: string };

/**
 * A member's private keys after login or registration. Both are non-extractable, so they can be
 * kept in IndexedDB for session restore without script (or a stolen profile) reading them out.
 */
export type PrivateIdentity = { decryptKey: CryptoKey; signKey: CryptoKey };

/**
 * Import the two PKCS8 private keys as non-extractable CryptoKeys. Internal: used by account
 * creation and by the bundle opener, not re-exported from the index.
 *
 * @throws CryptoError('malformed') when either key does not import.
 */
export async function importPrivateIdentity(keys: {
  encryption: Uint8Array<ArrayBuffer>;
  signing: Uint8Array<ArrayBuffer>;
}): Promise<PrivateIdentity> {
  return translateErrors('malformed', 'private key does not import', async () => {
    const [decryptKey, signKey] = await Promise.all([
      crypto.subtle.importKey('pkcs8', keys.encryption, rsaOaepImport, false, ['decrypt']),
      crypto.subtle.importKey('pkcs8', keys.signing, ecdsaImport, false, ['sign']),
    ]);
    return { decryptKey, signKey };
  });
}

/**
 * Import the RSA-OAEP encryption key of a member (for wrapping an epoch's chain key to them).
 * Internal: not re-exported from the index.
 *
 * @throws CryptoError('malformed') when the key is not base64 SPKI of an RSA key.
 */
export async function importEncryptKey(encryptionPublicKey: string): Promise<CryptoKey> {
  const spki = fromBase64(encryptionPublicKey);
  return translateErrors('malformed', 'encryption public key does not import', () =>
    crypto.subtle.importKey('spki', spki, rsaOaepImport, true, ['encrypt']),
  );
}

/**
 * Import a member's public keys for use. Nothing is cached here: the caller pins and caches keys
 * per member, because only it knows when the server handed out a different key (DESIGN.md
 * section 3).
 *
 * @throws CryptoError('malformed') when either key is not base64 SPKI of the right algorithm.
 * @example
 * ```ts
 * const { encryptKey, verifyKey } = await importPublicIdentity(user);
 * ```
 */
export async function importPublicIdentity(
  p: PublicIdentity,
): Promise<{ encryptKey: CryptoKey; verifyKey: CryptoKey }> {
  const signing = fromBase64(p.signingPublicKey);
  const [encryptKey, verifyKey] = await Promise.all([
    importEncryptKey(p.encryptionPublicKey),
    translateErrors('malformed', 'signing public key does not import', () =>
      crypto.subtle.importKey('spki', signing, ecdsaImport, true, ['verify']),
    ),
  ]);
  return { encryptKey, verifyKey };
}
