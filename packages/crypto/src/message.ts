import { CryptoError, translateErrors } from './errors';
import { utf8 } from './encoding';
import { concatBytes, randomBytes } from './bytes';
import { ecdsaSha256, IV_BYTES } from './algorithms';
import { checkMessageIndex, deriveMessageKey } from './message-key';
import { parseEnvelope, serializeEnvelope } from './envelope';
import type { Epoch } from './sender-keys';

// The UI's counter counts UTF-16 code units (string .length); it mirrors
// `limits.messageMaxChars` of @enclave/protocol, which this package may not depend on.
const MAX_CHARS = 500;
const MESSAGE_CONTEXT = 'enclave/msg/v1';

/**
 * Associated data of message `index`: binds the ciphertext to its conversation, sender, epoch
 * and position, so the server cannot move, reattribute or reorder it. Internal.
 */
export function messageAad(epoch: Pick<Epoch, 'conversationId' | 'senderId' | 'epochId'>, index: number): Uint8Array<ArrayBuffer> {
  return utf8(JSON.stringify([MESSAGE_CONTEXT, epoch.conversationId, epoch.senderId, epoch.epochId, index]));
}

/**
 * AES-GCM encryption of one message body under a given IV. Exported for the known-answer test
 * (the IV is otherwise random); not re-exported from the index.
 */
export async function encryptMessageBody(args: {
  epoch: Epoch;
  index: number;
  plaintext: string;
  iv: Uint8Array<ArrayBuffer>;
}): Promise<Uint8Array<ArrayBuffer>> {
  const { epoch, index, plaintext, iv } = args;
  if (plaintext.length > MAX_CHARS) throw new CryptoError('too_long', `message exceeds ${MAX_CHARS} characters`);
  checkMessageIndex(index);
  const key = await deriveMessageKey(epoch.chainKey, index, 'encrypt');
  const aad = messageAad(epoch, index);
  return new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, utf8(plaintext)),
  );
}

/**
 * Encrypt and sign message `index` of the sender's current epoch, giving the `encryptedContent`
 * string to send: `{"v":1,"iv":…,"ct":…,"sig":…}`. Sending costs one AES encryption and one
 * signature whatever the number of members.
 *
 * @throws CryptoError('too_long') when `plaintext.length` exceeds 500.
 * @throws CryptoError('malformed') when `index` is not an integer 0..99 (the epoch must be rotated).
 * @example
 * ```ts
 * const encryptedContent = await encryptMessage({ epoch, index: next++, plaintext: 'hi 👋', signKey });
 * ```
 */
export async function encryptMessage(args: {
  epoch: Epoch;
  index: number;
  plaintext: string;
  signKey: CryptoKey;
}): Promise<string> {
  const { epoch, index, plaintext, signKey } = args;
  const iv = randomBytes(IV_BYTES);
  const ct = await encryptMessageBody({ epoch, index, plaintext, iv });
  const sig = new Uint8Array(
    await crypto.subtle.sign(ecdsaSha256, signKey, concatBytes(messageAad(epoch, index), iv, ct)),
  );
  return serializeEnvelope({ iv, ct, sig });
}

/**
 * Verify and decrypt one message. The signature is checked first, over the AAD rebuilt from the
 * epoch the reader holds and the index the server reports, so a message moved to another
 * conversation, epoch or position fails as `bad_signature` and is never shown as trusted.
 *
 * @throws CryptoError('malformed') on an envelope of the wrong shape, a bad index, or a body that
 *   is not UTF-8.
 * @throws CryptoError('bad_signature') when the sender did not sign this envelope in this place.
 * @throws CryptoError('decrypt_failed') when the signed ciphertext does not open with this epoch.
 * @throws CryptoError('too_long') when the signed plaintext exceeds 500 characters, which only a
 *   misbehaving client can produce.
 * @example
 * ```ts
 * const text = await decryptMessage({ epoch, index: m.index, encryptedContent: m.encryptedContent, senderVerifyKey });
 * ```
 */
export async function decryptMessage(args: {
  epoch: Epoch;
  index: number;
  encryptedContent: string;
  senderVerifyKey: CryptoKey;
}): Promise<string> {
  const { epoch, index, encryptedContent, senderVerifyKey } = args;
  checkMessageIndex(index);
  const { iv, ct, sig } = parseEnvelope(encryptedContent);
  const aad = messageAad(epoch, index);
  const valid = await translateErrors('bad_signature', 'message signature does not verify', () =>
    crypto.subtle.verify(ecdsaSha256, senderVerifyKey, sig, concatBytes(aad, iv, ct)),
  );
  if (!valid) throw new CryptoError('bad_signature', 'message signature does not verify');
  const body = await translateErrors('decrypt_failed', 'message does not decrypt with this epoch', async () => {
    const key = await deriveMessageKey(epoch.chainKey, index, 'decrypt');
    return crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, ct);
  });
  let plaintext: string;
  try {
    plaintext = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new CryptoError('malformed', 'message body is not UTF-8');
  }
  if (plaintext.length > MAX_CHARS) throw new CryptoError('too_long', `message exceeds ${MAX_CHARS} characters`);
  return plaintext;
}
