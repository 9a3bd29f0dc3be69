/**
 * Attachments (docs/security.md §14): each file is encrypted with a fresh AES-256-GCM key and IV
 * that travel only inside the end-to-end encrypted message, so the server stores a blob it cannot
 * open. The message also carries the SHA-256 of the ciphertext: the receiver checks it before
 * decrypting, so a server that swaps or truncates the blob is caught before any byte is used.
 */
import { AES_KEY_BITS, IV_BYTES } from './algorithms';
import { randomBytes, wipe } from './bytes';
import { fromBase64, toBase64, utf8 } from './encoding';
import { CryptoError, translateErrors } from './errors';

// Mirrors `limits.attachmentMaxBytes` of @enclave/protocol, which this package may not depend on.
const MAX_BYTES = 10 * 1024 * 1024;
/** Binds the ciphertext to its purpose: a message key can never open an attachment, nor the reverse. */
const ATTACHMENT_AAD = utf8('enclave/attachment/v1');

/** An encrypted file and what its message must carry to open it (all base64). */
export type EncryptedAttachment = {
  ciphertext: Uint8Array<ArrayBuffer>;
  /** The file's own AES-256-GCM key: 32 bytes. */
  key: string;
  /** 12 bytes. */
  iv: string;
  /** SHA-256 of `ciphertext`: 32 bytes. */
  sha256: string;
};

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * AES-GCM encryption of a file under a given key and IV. Exported for the known-answer test (the
 * key and IV are otherwise random); not re-exported from the index.
 */
export async function encryptAttachmentWith(args: {
  plaintext: Uint8Array<ArrayBuffer>;
  key: Uint8Array<ArrayBuffer>;
  iv: Uint8Array<ArrayBuffer>;
}): Promise<EncryptedAttachment> {
  const { plaintext, key, iv } = args;
  if (plaintext.length > MAX_BYTES) throw new CryptoError('too_long', `attachment exceeds ${MAX_BYTES} bytes`);
  const aesKey = await crypto.subtle.importKey('raw', key, { name: 'AES-GCM', length: AES_KEY_BITS }, false, ['encrypt']);
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ATTACHMENT_AAD }, aesKey, plaintext),
  );
  return { ciphertext, key: toBase64(key), iv: toBase64(iv), sha256: toBase64(await sha256(ciphertext)) };
}

/**
 * Encrypts one file with a fresh random key and IV. Upload `ciphertext`; put `key`, `iv` and
 * `sha256` (with the file's name, type and size) into the message, never anywhere else.
 *
 * @throws CryptoError('too_long') when the file exceeds 10 MiB.
 * @example
 * ```ts
 * const { ciphertext, key, iv, sha256 } = await encryptAttachment(new Uint8Array(await file.arrayBuffer()));
 * ```
 */
export async function encryptAttachment(plaintext: Uint8Array<ArrayBuffer>): Promise<EncryptedAttachment> {
  const key = randomBytes(AES_KEY_BITS / 8);
  try {
    return await encryptAttachmentWith({ plaintext, key, iv: randomBytes(IV_BYTES) });
  } finally {
    // The base64 copy in the result is the one the message carries; this one is no longer needed.
    wipe(key);
  }
}

/**
 * Checks a downloaded ciphertext against the hash its message carries, then decrypts it.
 *
 * @throws CryptoError('malformed') when the key, IV or hash are not of their sizes.
 * @throws CryptoError('bad_signature') when the ciphertext is not the one the sender hashed (swapped or cut by the server).
 * @throws CryptoError('decrypt_failed') when it does not open with this key.
 * @example
 * ```ts
 * const bytes = await decryptAttachment({ ciphertext, key: ref.key, iv: ref.iv, sha256: ref.sha256 });
 * const url = URL.createObjectURL(new Blob([bytes], { type: ref.type }));
 * ```
 */
export async function decryptAttachment(args: {
  ciphertext: Uint8Array<ArrayBuffer>;
  key: string;
  iv: string;
  sha256: string;
}): Promise<Uint8Array<ArrayBuffer>> {
  const key = fromBase64(args.key);
  const iv = fromBase64(args.iv);
  const expected = fromBase64(args.sha256);
  if (key.length !== AES_KEY_BITS / 8 || iv.length !== IV_BYTES || expected.length !== 32) {
    throw new CryptoError('malformed', 'attachment key, iv or hash has the wrong size');
  }
  const actual = await sha256(args.ciphertext);
  // Not secret: the hash is of the ciphertext, so a plain comparison leaks nothing.
  if (toBase64(actual) !== toBase64(expected)) throw new CryptoError('bad_signature', 'attachment is not the one the sender sent');
  return translateErrors('decrypt_failed', 'attachment does not decrypt with its key', async () => {
    const aesKey = await crypto.subtle.importKey('raw', key, { name: 'AES-GCM', length: AES_KEY_BITS }, false, ['decrypt']);
    wipe(key);
    return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: ATTACHMENT_AAD }, aesKey, args.ciphertext));
  });
}
