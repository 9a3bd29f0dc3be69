/** The wrap bench's recipient keys, made the same way in Node (bench/wrap.ts) and in the page (bench/wrap/page.ts). */
import { toBase64 } from '@enclave/crypto';

const rsa = { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };

/** `count` RSA-OAEP-2048 public keys as members publish them (SPKI, base64). */
export function rsaPublicKeys(count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const pair = await crypto.subtle.generateKey(rsa, true, ['encrypt', 'decrypt']);
      return toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey)));
    }),
  );
}

/** `count` X25519 share public keys as members publish them (raw, base64). */
export function sharePublicKeys(count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveKey'])) as CryptoKeyPair;
      return toBase64(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
    }),
  );
}
