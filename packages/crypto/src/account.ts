import { CryptoError } from './errors';
import { toBase64 } from './encoding';
import { wipe } from './bytes';
import { ecdsaKeyGen, rsaOaepKeyGen } from './algorithms';
import { importPrivateIdentity } from './identity';
import type { PrivateIdentity, PublicIdentity } from './identity';
import { sealPrivateKeys } from './key-bundle';
import { deriveShareIdentity, type ShareIdentity } from './channel-keys';
import { checkAccessToken } from './token';

/** Everything registration produces: the public keys and bundle to upload, the keys to keep. */
export type NewAccount = {
  publicIdentity: PublicIdentity;
  privateIdentity: PrivateIdentity;
  encryptedPrivateKey: string;
  /** The share key channel secrets are wrapped to, derived from the signing key (channel-keys.ts). */
  share: ShareIdentity;
};

/**
 * Generate a member's identity keys (RSA-OAEP-2048 for encryption, ECDSA P-256 for signing),
 * seal the private halves under the access token, and return non-extractable copies to keep.
 * The generated pairs must be extractable once, to be exported into the bundle; they are
 * dropped afterwards and only the re-imported non-extractable keys leave this function.
 *
 * @throws CryptoError('malformed') when the token fails {@link checkAccessToken}.
 * @example
 * ```ts
 * const token = generateAccessToken();
 * const { publicIdentity, privateIdentity, encryptedPrivateKey } = await createAccount(token);
 * await api.register({ inviteKey, username, loginKey: await deriveLoginKey(token), ...publicIdentity, encryptedPrivateKey });
 * ```
 */
export async function createAccount(token: string): Promise<NewAccount> {
  if (!checkAccessToken(token).ok) throw new CryptoError('malformed', 'not an access token');
  const [encryption, signing] = await Promise.all([
    crypto.subtle.generateKey(rsaOaepKeyGen, true, ['encrypt', 'decrypt']),
    crypto.subtle.generateKey(ecdsaKeyGen, true, ['sign', 'verify']),
  ]);
  const [encryptionPkcs8, signingPkcs8, encryptionSpki, signingSpki] = await Promise.all([
    crypto.subtle.exportKey('pkcs8', encryption.privateKey),
    crypto.subtle.exportKey('pkcs8', signing.privateKey),
    crypto.subtle.exportKey('spki', encryption.publicKey),
    crypto.subtle.exportKey('spki', signing.publicKey),
  ]);
  const pkcs8 = { encryption: new Uint8Array(encryptionPkcs8), signing: new Uint8Array(signingPkcs8) };
  try {
    const [encryptedPrivateKey, privateIdentity] = await Promise.all([sealPrivateKeys(token, pkcs8), importPrivateIdentity(pkcs8)]);
    const share = await deriveShareIdentity(pkcs8.signing, privateIdentity.signKey);
    return {
      share,
      publicIdentity: {
        encryptionPublicKey: toBase64(new Uint8Array(encryptionSpki)),
        signingPublicKey: toBase64(new Uint8Array(signingSpki)),
      },
      privateIdentity,
      encryptedPrivateKey,
    };
  } finally {
    wipe(pkcs8.encryption, pkcs8.signing);
  }
}
