import { fromBase64, toHex, utf8 } from './encoding';
import { concatBytes } from './bytes';
import type { PublicIdentity } from './identity';

// 2^256 has 78 decimal digits; padding to that width first makes "the last 60 digits" well
// defined for every hash, including ones with leading zero bytes.
const DECIMAL_WIDTH = 78;
const DIGITS = 60;
/** Keeps a safety number from ever equalling a hash of the same bytes made for another purpose. */
const SAFETY_NUMBER_LABEL = 'enclave/safety-number/v1';

async function sixtyDigits(input: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
  const decimal = BigInt(`0x${toHex(digest)}`)
    .toString(10)
    .padStart(DECIMAL_WIDTH, '0');
  return decimal.slice(-DIGITS).replace(/(\d{5})(?=\d)/g, '$1 ');
}

/**
 * The fingerprint of one member: SHA-256 over both SPKI public keys, read as a big-endian
 * integer, shown as its last 60 decimal digits in 12 groups of 5. It changes whenever either key
 * changes; it is what a contact's pin holds.
 *
 * @throws CryptoError('malformed') when a key is not base64.
 * @example
 * ```ts
 * await fingerprint(user); // '12345 67890 … 24680' (12 groups)
 * ```
 */
export async function fingerprint(p: PublicIdentity): Promise<string> {
  return sixtyDigits(concatBytes(fromBase64(p.encryptionPublicKey), fromBase64(p.signingPublicKey)));
}

/**
 * The safety number of two members: SHA-256 over a label and their two {@link fingerprint}s in
 * sorted order, shown like a fingerprint (12 groups of 5 digits). Sorting makes it the same in
 * both members' browsers, so they compare one number out of band; it changes whenever either
 * member's keys change.
 *
 * @example
 * ```ts
 * const number = await safetyNumber(await fingerprint(me), await fingerprint(contact));
 * number === (await safetyNumber(await fingerprint(contact), await fingerprint(me))); // true
 * ```
 */
export async function safetyNumber(fingerprintA: string, fingerprintB: string): Promise<string> {
  const [low, high] = [fingerprintA, fingerprintB].sort();
  return sixtyDigits(utf8(`${SAFETY_NUMBER_LABEL}\n${low}\n${high}`));
}
