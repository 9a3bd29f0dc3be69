import { fromBase64, toHex } from './encoding';
import { concatBytes } from './bytes';
import type { PublicIdentity } from './identity';

// 2^256 has 78 decimal digits; padding to that width first makes "the last 60 digits" well
// defined for every hash, including ones with leading zero bytes.
const DECIMAL_WIDTH = 78;
const DIGITS = 60;

/**
 * The safety number of a member: SHA-256 over both SPKI public keys, read as a big-endian
 * integer, shown as its last 60 decimal digits in 12 groups of 5. Two members compare it out of
 * band; it changes whenever either key changes.
 *
 * @throws CryptoError('malformed') when a key is not base64.
 * @example
 * ```ts
 * await fingerprint(user); // '12345 67890 … 24680' (12 groups)
 * ```
 */
export async function fingerprint(p: PublicIdentity): Promise<string> {
  const input = concatBytes(fromBase64(p.encryptionPublicKey), fromBase64(p.signingPublicKey));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
  const decimal = BigInt(`0x${toHex(digest)}`).toString(10).padStart(DECIMAL_WIDTH, '0');
  return decimal.slice(-DIGITS).replace(/(\d{5})(?=\d)/g, '$1 ');
}
