import { CryptoError } from './errors';

// btoa/String.fromCharCode take their arguments on the stack; converting in slices keeps large
// inputs (a 1.2 kB PKCS8 key is fine, a long ciphertext might not be) clear of argument limits.
const CHUNK = 0x8000;

const BASE64_SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_SHAPE = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Standard base64 (RFC 4648 section 4) with padding, as `btoa` produces it.
 *
 * @example
 * ```ts
 * toBase64(new Uint8Array([1, 2, 3])); // 'AQID'
 * ```
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/**
 * Inverse of {@link toBase64}. Only canonical, padded standard base64 is accepted: `atob` alone
 * would also take whitespace, missing padding and stray low bits, which would let one byte string
 * travel under several spellings.
 *
 * @throws CryptoError('malformed') when `b64` is not canonical base64.
 * @example
 * ```ts
 * fromBase64('AQID'); // Uint8Array [1, 2, 3]
 * ```
 */
export function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  if (!BASE64_SHAPE.test(b64)) throw new CryptoError('malformed', 'not base64');
  const binary = atob(b64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // The shape test lets through unused low bits in the last group ("AB==" vs "AA=="); only the
  // canonical spelling re-encodes to itself.
  if (toBase64(bytes) !== b64) throw new CryptoError('malformed', 'non-canonical base64');
  return bytes;
}

/**
 * Lowercase hexadecimal, two characters per byte.
 *
 * @example
 * ```ts
 * toHex(new Uint8Array([0, 171])); // '00ab'
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Inverse of {@link toHex}; accepts either case. Callers that need lowercase (access tokens)
 * check that themselves, because case is a token rule, not an encoding rule.
 *
 * @throws CryptoError('malformed') on odd length or a non-hex character.
 * @example
 * ```ts
 * fromHex('00ab'); // Uint8Array [0, 171]
 * ```
 */
export function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  if (!HEX_SHAPE.test(hex)) throw new CryptoError('malformed', 'not hex');
  const bytes = new Uint8Array(new ArrayBuffer(hex.length / 2));
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/**
 * UTF-8 bytes of `s`. Lone surrogates become U+FFFD, as `TextEncoder` specifies.
 *
 * @example
 * ```ts
 * utf8('é'); // Uint8Array [195, 169]
 * ```
 */
export function utf8(s: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(s);
}
