import { CryptoError, translateErrors } from './errors';
import { fromBase64, toBase64, utf8 } from './encoding';
import { concatBytes, randomBytes, wipe } from './bytes';
import { AES_KEY_BITS, IV_BYTES } from './algorithms';
import { derivePublicIdentity, importPrivateIdentity } from './identity';
import type { OpenedIdentity } from './identity';
import { deriveShareIdentity } from './channel-keys';

// docs/security.md §3. The iteration count is the specification's (docs/spec.md §9); it is low by
// today's advice, which is acceptable only because the password is a 256-bit random token, not a
// human secret.
const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const TAG_BYTES = 16;
const BUNDLE_VERSION = 1;

/** The bundle's plaintext: versioned so a later format can be told apart. */
type BundleContents = { v: typeof BUNDLE_VERSION; encryption: string; signing: string };

async function bundleKey(token: string, salt: Uint8Array<ArrayBuffer>, usage: KeyUsage): Promise<CryptoKey> {
  const password = await crypto.subtle.importKey('raw', utf8(token), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PBKDF2_ITERATIONS },
    password,
    { name: 'AES-GCM', length: AES_KEY_BITS },
    false,
    [usage],
  );
}

/**
 * Encrypt both PKCS8 private keys under the access token, in the form the server stores:
 * `base64(salt(16) ‖ iv(12) ‖ AES-GCM ciphertext with tag)`, the AES-256 key being
 * PBKDF2-SHA256(token, salt, 100 000 iterations).
 *
 * @param fixed - pins salt and IV; only for known-answer tests. Reusing an IV under one token
 *   breaks AES-GCM, so production code must leave it out.
 * @example
 * ```ts
 * const encryptedPrivateKey = await sealPrivateKeys(token, { encryption: rsaPkcs8, signing: ecPkcs8 });
 * ```
 */
export async function sealPrivateKeys(
  token: string,
  keys: { encryption: Uint8Array; signing: Uint8Array },
  fixed?: { salt: Uint8Array; iv: Uint8Array },
): Promise<string> {
  // Copies, so the caller's arrays may be of any buffer kind and are never mutated by us.
  const salt = fixed ? new Uint8Array(fixed.salt) : randomBytes(SALT_BYTES);
  const iv = fixed ? new Uint8Array(fixed.iv) : randomBytes(IV_BYTES);
  if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES) {
    throw new CryptoError('malformed', 'salt must be 16 bytes and iv 12 bytes');
  }
  const contents: BundleContents = {
    v: BUNDLE_VERSION,
    encryption: toBase64(keys.encryption),
    signing: toBase64(keys.signing),
  };
  // The JSON string itself cannot be wiped (strings are immutable); its bytes can.
  const plaintext = utf8(JSON.stringify(contents));
  try {
    const key = await bundleKey(token, salt, 'encrypt');
    const ciphertext = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plaintext);
    return toBase64(concatBytes(salt, iv, new Uint8Array(ciphertext)));
  } finally {
    wipe(plaintext);
  }
}

function parseContents(plaintext: Uint8Array): { encryption: Uint8Array<ArrayBuffer>; signing: Uint8Array<ArrayBuffer> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    throw new CryptoError('malformed', 'bundle is not JSON');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Object.keys(parsed).length !== 3 ||
    !('v' in parsed) ||
    parsed.v !== BUNDLE_VERSION ||
    !('encryption' in parsed) ||
    typeof parsed.encryption !== 'string' ||
    !('signing' in parsed) ||
    typeof parsed.signing !== 'string'
  ) {
    throw new CryptoError('malformed', 'bundle has an unknown shape');
  }
  return { encryption: fromBase64(parsed.encryption), signing: fromBase64(parsed.signing) };
}

/**
 * Open the bundle made by {@link sealPrivateKeys}, import both private keys as non-extractable
 * CryptoKeys and derive the member's public keys from them. This is what login does with the
 * bundle the server returns; the derived `publicIdentity` is the member's own copy of their public
 * keys, to be compared with (never replaced by) what the server says they are.
 *
 * @throws CryptoError('wrong_token') when AES-GCM rejects the token (including any token that
 *   does not pass {@link checkAccessToken}, as it cannot have sealed a bundle).
 * @throws CryptoError('malformed') when the stored string, its JSON or a key is damaged.
 * @example
 * ```ts
 * const { decryptKey, signKey, publicIdentity } = await openPrivateKeys(token, session.encryptedPrivateKey);
 * ```
 */
export async function openPrivateKeys(token: string, encryptedPrivateKey: string): Promise<OpenedIdentity> {
  const stored = fromBase64(encryptedPrivateKey);
  if (stored.length < SALT_BYTES + IV_BYTES + TAG_BYTES) throw new CryptoError('malformed', 'bundle too short');
  const salt = stored.slice(0, SALT_BYTES);
  const iv = stored.slice(SALT_BYTES, SALT_BYTES + IV_BYTES);
  const ciphertext = stored.slice(SALT_BYTES + IV_BYTES);
  // Key derivation is inside the translation too: a password WebCrypto refuses (the empty
  // string, on some platforms) is just another wrong token.
  const plaintext = new Uint8Array(
    await translateErrors('wrong_token', 'bundle does not open with this token', async () => {
      const key = await bundleKey(token, salt, 'decrypt');
      return crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, ciphertext);
    }),
  );
  try {
    const pkcs8 = parseContents(plaintext);
    try {
      const [privateIdentity, publicIdentity] = await Promise.all([importPrivateIdentity(pkcs8), derivePublicIdentity(pkcs8)]);
      const share = await deriveShareIdentity(pkcs8.signing, privateIdentity.signKey);
      return { ...privateIdentity, publicIdentity, share };
    } finally {
      wipe(pkcs8.encryption, pkcs8.signing);
    }
  } finally {
    wipe(plaintext);
  }
}
