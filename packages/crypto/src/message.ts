import { CryptoError, translateErrors } from './errors';
import { utf8 } from './encoding';
import { concatBytes, randomBytes } from './bytes';
import { ecdsaSha256, IV_BYTES } from './algorithms';
import { checkMessageIndex, deriveMessageKey } from './message-key';
import { parseEnvelope, serializeEnvelope, type EnvelopeVersion } from './envelope';
import type { Epoch } from './sender-keys';

// The UI's counter counts UTF-16 code units (string .length); it mirrors
// `limits.messageMaxChars` of @enclave/protocol, which this package may not depend on.
const MAX_CHARS = 500;
// A structured body (v2) is counted in UTF-8 bytes: `limits.messageBodyMaxBytes`.
const MAX_BODY_BYTES = 8192;
/** Per envelope version: v1 keeps the context every stored text message was made under. */
const MESSAGE_CONTEXT: Record<EnvelopeVersion, string> = { 1: 'enclave/msg/v1', 2: 'enclave/msg/v2' };

/** What a message's envelope carries: its version and the plaintext (a text, or a body's JSON). */
export type MessagePlaintext = { version: EnvelopeVersion; plaintext: string };

/**
 * Associated data of message `index`: binds the ciphertext to its conversation, sender, epoch,
 * position and envelope version, so the server cannot move, reattribute, reorder it or pass a
 * body off as text. Internal.
 */
export function messageAad(
  epoch: Pick<Epoch, 'conversationId' | 'senderId' | 'epochId'>,
  index: number,
  version: EnvelopeVersion = 1,
): Uint8Array<ArrayBuffer> {
  return utf8(JSON.stringify([MESSAGE_CONTEXT[version], epoch.conversationId, epoch.senderId, epoch.epochId, index]));
}

/** @throws CryptoError('too_long') past the version's limit. */
function checkLength({ version, plaintext }: MessagePlaintext): void {
  if (version === 1 && plaintext.length > MAX_CHARS) throw new CryptoError('too_long', `message exceeds ${MAX_CHARS} characters`);
  if (version === 2 && utf8(plaintext).length > MAX_BODY_BYTES)
    throw new CryptoError('too_long', `message body exceeds ${MAX_BODY_BYTES} bytes`);
}

/**
 * AES-GCM encryption of one message body under a given IV. Exported for the known-answer test
 * (the IV is otherwise random); not re-exported from the index.
 */
export async function encryptMessageBody(args: {
  epoch: Epoch;
  index: number;
  plaintext: string;
  version?: EnvelopeVersion;
  iv: Uint8Array<ArrayBuffer>;
}): Promise<Uint8Array<ArrayBuffer>> {
  const { epoch, index, plaintext, iv, version = 1 } = args;
  checkLength({ version, plaintext });
  checkMessageIndex(index);
  const key = await deriveMessageKey(epoch.chainKey, index, 'encrypt');
  const aad = messageAad(epoch, index, version);
  return new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, utf8(plaintext)));
}

/**
 * Encrypt and sign message `index` of the sender's current epoch, giving the `encryptedContent`
 * string to send: `{"v":1,"iv":…,"ct":…,"sig":…}`. Sending costs one AES encryption and one
 * signature whatever the number of members. `version` 1 (the default) carries a text message;
 * 2 a structured body (JSON from @enclave/protocol's `encodeContent`).
 *
 * @throws CryptoError('too_long') when a text exceeds 500 characters or a body 8,192 UTF-8 bytes.
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
  version?: EnvelopeVersion;
  signKey: CryptoKey;
}): Promise<string> {
  const { epoch, index, plaintext, signKey, version = 1 } = args;
  const iv = randomBytes(IV_BYTES);
  const ct = await encryptMessageBody({ epoch, index, plaintext, version, iv });
  const sig = new Uint8Array(await crypto.subtle.sign(ecdsaSha256, signKey, concatBytes(messageAad(epoch, index, version), iv, ct)));
  return serializeEnvelope({ v: version, iv, ct, sig });
}

/**
 * Verify and decrypt one message. The signature is checked first, over the AAD rebuilt from the
 * epoch the reader holds, the index the server reports and the envelope's version, so a message
 * moved to another conversation, epoch or position, or relabelled, fails as `bad_signature` and
 * is never shown as trusted. The result says which version it was: a v2 plaintext is a body for
 * @enclave/protocol's `decodeContent`.
 *
 * @throws CryptoError('malformed') on an envelope of the wrong shape, a bad index, or a body that
 *   is not UTF-8.
 * @throws CryptoError('bad_signature') when the sender did not sign this envelope in this place.
 * @throws CryptoError('decrypt_failed') when the signed ciphertext does not open with this epoch.
 * @throws CryptoError('too_long') when the signed plaintext exceeds its version's limit, which only a
 *   misbehaving client can produce.
 * @example
 * ```ts
 * const { version, plaintext } = await decryptMessage({ epoch, index: m.index, encryptedContent: m.encryptedContent, senderVerifyKey });
 * ```
 */
export async function decryptMessage(args: {
  epoch: Epoch;
  index: number;
  encryptedContent: string;
  senderVerifyKey: CryptoKey;
}): Promise<MessagePlaintext> {
  const { epoch, index, encryptedContent, senderVerifyKey } = args;
  checkMessageIndex(index);
  const { v: version, iv, ct, sig } = parseEnvelope(encryptedContent);
  const aad = messageAad(epoch, index, version);
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
  const message = { version, plaintext };
  checkLength(message);
  return message;
}
