/** The wrap bench's recipient keys, made the same way in Node (bench/wrap.ts) and in the page (bench/wrap/page.ts). */
import { fromBase64, toBase64, utf8, verifyShareKey } from '@enclave/crypto';

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

/** A member's listed signing key (SPKI, base64) and share key with their signature over it, as the member list carries them. */
export type SignedShareKey = { signingPublicKey: string; sharePublicKey: string; signature: string };

/** `["enclave/share-key/v1", sharePublicKey]`: what a member's signing key signs over their share key (deriveShareIdentity). */
export const shareKeyBytes = (sharePublicKey: string): Uint8Array<ArrayBuffer> =>
  utf8(JSON.stringify(['enclave/share-key/v1', sharePublicKey]));

/** `count` members' signed share keys: a signing key and a share key of their own each, signed as an account signs its own. */
export async function signedShareKeys(count: number): Promise<SignedShareKey[]> {
  const shares = await sharePublicKeys(count);
  return Promise.all(
    shares.map(async (sharePublicKey) => {
      const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, shareKeyBytes(sharePublicKey));
      const spki = await crypto.subtle.exportKey('spki', pair.publicKey);
      return { signingPublicKey: toBase64(new Uint8Array(spki)), sharePublicKey, signature: toBase64(new Uint8Array(signature)) };
    }),
  );
}

/**
 * What a wrapper checks of each recipient before wrapping (KeyTrust.checkShareRecipients): their
 * listed signing key imported, and their signature over their share key verified; `members`
 * recipients, the keys used in turn, in pages of 5,000 at once as the client takes them.
 */
export async function checkShareKeys(members: number, keys: readonly SignedShareKey[]): Promise<void> {
  for (let start = 0; start < members; start += 5000) {
    const page = Array.from({ length: Math.min(5000, members - start) }, (_, i) => keys[(start + i) % keys.length]!);
    const results = await Promise.all(
      page.map(async ({ signingPublicKey, sharePublicKey, signature }) => {
        const verifyKey = await crypto.subtle.importKey(
          'spki',
          fromBase64(signingPublicKey),
          { name: 'ECDSA', namedCurve: 'P-256' },
          false,
          ['verify'],
        );
        return verifyShareKey({ sharePublicKey, signature, verifyKey });
      }),
    );
    if (!results.every(Boolean)) throw new Error('a share key did not verify');
  }
}
