import { CryptoError } from './errors';
import { utf8 } from './encoding';
import { concatBytes } from './bytes';
import { AES_KEY_BITS } from './algorithms';

// A sender rotates after this many messages (docs/security.md §4); it mirrors
// `limits.epochMaxMessages` of @enclave/protocol, which this package may not depend on.
const MESSAGES_PER_EPOCH = 100;

/**
 * Reject an index outside 0..99. Internal: not re-exported from the index.
 *
 * @throws CryptoError('malformed')
 */
export function checkMessageIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= MESSAGES_PER_EPOCH) {
    throw new CryptoError('malformed', `message index must be an integer 0..${MESSAGES_PER_EPOCH - 1}`);
  }
}

// HKDF-SHA256, empty salt (the chain key is already uniformly random), info = "msg" ‖ uint32be(i).
function messageKeyParams(index: number): HkdfParams {
  const counter = new Uint8Array(new ArrayBuffer(4));
  new DataView(counter.buffer).setUint32(0, index, false);
  return {
    name: 'HKDF',
    hash: 'SHA-256',
    salt: new Uint8Array(new ArrayBuffer(0)),
    info: concatBytes(utf8('msg'), counter),
  };
}

/**
 * The AES-GCM-256 key of message `index` of an epoch, non-extractable. Internal: not
 * re-exported from the index.
 *
 * @param chainKey - the epoch's HKDF base key (usage `deriveKey`).
 */
export async function deriveMessageKey(chainKey: CryptoKey, index: number, usage: KeyUsage): Promise<CryptoKey> {
  checkMessageIndex(index);
  return crypto.subtle.deriveKey(messageKeyParams(index), chainKey, { name: 'AES-GCM', length: AES_KEY_BITS }, false, [usage]);
}

/**
 * The raw bytes of the same key as {@link deriveMessageKey}, from a raw chain key. Exported for
 * the known-answer test only; production chain keys are imported without `deriveBits`, so
 * message keys never exist as bytes in script.
 */
export async function deriveMessageKeyBits(chainKey: Uint8Array, index: number): Promise<Uint8Array> {
  checkMessageIndex(index);
  const base = await crypto.subtle.importKey('raw', new Uint8Array(chainKey), 'HKDF', false, ['deriveBits']);
  return new Uint8Array(await crypto.subtle.deriveBits(messageKeyParams(index), base, AES_KEY_BITS));
}
