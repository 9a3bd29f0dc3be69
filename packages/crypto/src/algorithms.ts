/**
 * WebCrypto parameters fixed by docs/security.md §3, named once so that generation, import,
 * signing and verification cannot drift apart. Internal: not re-exported from the index.
 */

/** Identity encryption keys: the RSA-OAEP constants of docs/spec.md §9 (2048 bits, e = 65537). */
export const rsaOaepKeyGen: RsaHashedKeyGenParams = {
  name: 'RSA-OAEP',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

/** Import parameters matching {@link rsaOaepKeyGen}. */
export const rsaOaepImport: RsaHashedImportParams = { name: 'RSA-OAEP', hash: 'SHA-256' };

/** RSA-OAEP encrypt/decrypt; no label, so the wrapped key is bound to its context by the signature. */
export const rsaOaep: RsaOaepParams = { name: 'RSA-OAEP' };

/** Identity signing keys: ECDSA on P-256, so the server cannot forge a message "from" a member. */
export const ecdsaKeyGen: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** Import parameters matching {@link ecdsaKeyGen}. */
export const ecdsaImport: EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** Sign/verify: SHA-256, giving WebCrypto's 64-byte IEEE P1363 signatures on both platforms. */
export const ecdsaSha256: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

/** AES-GCM key length in bits; the 128-bit tag and 12-byte IV are WebCrypto's defaults. */
export const AES_KEY_BITS = 256;

/** AES-GCM IV length in bytes. */
export const IV_BYTES = 12;
