import { CryptoError, translateErrors } from './errors';
import { fromBase64, toBase64 } from './encoding';
import { ecdsaImport, rsaOaepImport, rsaOaepKeyGen } from './algorithms';
import type { ShareIdentity } from './channel-keys';

/** A member's public keys as the server stores and hands them out: SPKI, base64. */
export type PublicIdentity = { encryptionPublicKey: string; signingPublicKey: string };

/**
 * A member's private keys after login or registration. Both are non-extractable, so they can be
 * kept in IndexedDB for session restore without script (or a stolen profile) reading them out.
 */
export type PrivateIdentity = { decryptKey: CryptoKey; signKey: CryptoKey };

/**
 * What opening the key bundle yields: the private keys, and the member's own public keys as
 * derived locally from them. The client must take its own public keys from here, never from the
 * server: a server that hands out its own key for the member would otherwise be sent every chain
 * key the member wraps.
 */
export type OpenedIdentity = PrivateIdentity & { publicIdentity: PublicIdentity; share: ShareIdentity };

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
 * Derive the public keys (base64 SPKI, exactly as `createAccount` exports them) from the two PKCS8
 * private keys. Each private key is imported extractable only inside this function, to read its
 * public components out of the JWK; those copies are dropped before it returns. Internal: used by
 * the bundle opener, not re-exported from the index.
 *
 * @throws CryptoError('malformed') when either key does not import.
 */
export async function derivePublicIdentity(keys: {
  encryption: Uint8Array<ArrayBuffer>;
  signing: Uint8Array<ArrayBuffer>;
}): Promise<PublicIdentity> {
  return translateErrors('malformed', 'private key does not import', async () => {
    const [rsa, ec] = await Promise.all([
      crypto.subtle
        .importKey('pkcs8', keys.encryption, rsaOaepImport, true, ['decrypt'])
        .then((key) => crypto.subtle.exportKey('jwk', key)),
      crypto.subtle.importKey('pkcs8', keys.signing, ecdsaImport, true, ['sign']).then((key) => crypto.subtle.exportKey('jwk', key)),
    ]);
    // Only the public members are copied out; the JWKs with the private ones go out of scope.
    const [encryptKey, verifyKey] = await Promise.all([
      crypto.subtle.importKey('jwk', { kty: 'RSA', n: rsa.n, e: rsa.e }, rsaOaepImport, true, ['encrypt']),
      crypto.subtle.importKey('jwk', { kty: 'EC', crv: ec.crv, x: ec.x, y: ec.y }, ecdsaImport, true, ['verify']),
    ]);
    const [encryptionSpki, signingSpki] = await Promise.all([
      crypto.subtle.exportKey('spki', encryptKey),
      crypto.subtle.exportKey('spki', verifyKey),
    ]);
    return {
      encryptionPublicKey: toBase64(new Uint8Array(encryptionSpki)),
      signingPublicKey: toBase64(new Uint8Array(signingSpki)),
    };
  });
}

/** A big-endian unsigned integer (RSA exponents; a platform may pad them with leading zeros). */
const bigEndian = (bytes: Uint8Array) => bytes.reduce((value, byte) => value * 256 + byte, 0);

/**
 * Import the RSA-OAEP encryption key of a member (for wrapping an epoch's chain key to them).
 * Only the keys accounts are made with are taken: 2048-bit modulus, e = 65537. A longer modulus
 * would wrap a share too long for the wire (docs/security.md §3), a shorter one or another
 * exponent is weaker than every other member's. Internal: not re-exported from the index.
 *
 * @throws CryptoError('malformed') when the key is not base64 SPKI of an RSA-2048 key with e = 65537.
 */
export async function importEncryptKey(encryptionPublicKey: string): Promise<CryptoKey> {
  const spki = fromBase64(encryptionPublicKey);
  const key = await translateErrors('malformed', 'encryption public key does not import', () =>
    crypto.subtle.importKey('spki', spki, rsaOaepImport, true, ['encrypt']),
  );
  const { modulusLength, publicExponent } = key.algorithm as RsaHashedKeyAlgorithm;
  if (modulusLength !== rsaOaepKeyGen.modulusLength || bigEndian(publicExponent) !== bigEndian(rsaOaepKeyGen.publicExponent)) {
    throw new CryptoError('malformed', 'encryption public key is not RSA-2048 with exponent 65537');
  }
  return key;
}

/**
 * Import a member's public keys for use. Nothing is cached here: the caller pins and caches keys
 * per member, because only it knows when the server handed out a different key (docs/security.md
 * §5).
 *
 * @throws CryptoError('malformed') when either key is not base64 SPKI of the right algorithm.
 * @example
 * ```ts
 * const { encryptKey, verifyKey } = await importPublicIdentity(user);
 * ```
 */
export async function importPublicIdentity(p: PublicIdentity): Promise<{ encryptKey: CryptoKey; verifyKey: CryptoKey }> {
  const signing = fromBase64(p.signingPublicKey);
  const [encryptKey, verifyKey] = await Promise.all([
    importEncryptKey(p.encryptionPublicKey),
    translateErrors('malformed', 'signing public key does not import', () =>
      crypto.subtle.importKey('spki', signing, ecdsaImport, true, ['verify']),
    ),
  ]);
  return { encryptKey, verifyKey };
}
