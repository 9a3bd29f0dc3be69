import { translateErrors, CryptoError } from './errors';
import { fromHex, toHex, utf8 } from './encoding';
import { randomBytes, wipe } from './bytes';

// The specification's token rules (docs/spec.md §5, §9); they mirror `limits.tokenLength` and
// `limits.tokenMinEntropy` of @enclave/protocol, which this package may not depend on.
const TOKEN_LENGTH = 64;
const TOKEN_MIN_ENTROPY = 3.5;
const TOKEN_SHAPE = /^[0-9a-f]+$/;

const LOGIN_SALT = 'enclave/login/v1';
const LOGIN_INFO = 'login';

/** Result of {@link checkAccessToken}: `too_short` lets the UI say "keep typing" rather than "wrong". */
export type TokenCheck = { ok: true } | { ok: false; reason: 'too_short' | 'integrity' };

/**
 * Shannon entropy of the characters of `s`, in bits per character (0 for the empty string).
 * Counts code points, so a surrogate pair is one character.
 *
 * @example
 * ```ts
 * shannonEntropy('0000'); // 0
 * shannonEntropy('0123456789abcdef'); // 4
 * ```
 */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    total++;
  }
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Checks an access token against the specification (docs/spec.md §5): exactly 64 lowercase hexadecimal
 * characters with at least 3.5 bits of Shannon entropy per character.
 *
 * @example
 * ```ts
 * checkAccessToken('abc'); // { ok: false, reason: 'too_short' }
 * checkAccessToken('0'.repeat(64)); // { ok: false, reason: 'integrity' }
 * checkAccessToken(generateAccessToken()); // { ok: true }
 * ```
 */
export function checkAccessToken(token: string): TokenCheck {
  if (token.length < TOKEN_LENGTH) return { ok: false, reason: 'too_short' };
  if (token.length !== TOKEN_LENGTH) return { ok: false, reason: 'integrity' };
  if (!TOKEN_SHAPE.test(token)) return { ok: false, reason: 'integrity' };
  if (shannonEntropy(token) < TOKEN_MIN_ENTROPY) return { ok: false, reason: 'integrity' };
  return { ok: true };
}

/**
 * A fresh access token: 32 bytes from the CSPRNG as 64 lowercase hex characters. Roughly one
 * random token in five thousand falls under the entropy floor; those are drawn again so that
 * every token we hand out passes {@link checkAccessToken}.
 *
 * @example
 * ```ts
 * const token = generateAccessToken(); // e.g. '3f9a…' (64 characters)
 * ```
 */
export function generateAccessToken(): string {
  for (;;) {
    const bytes = randomBytes(TOKEN_LENGTH / 2);
    const token = toHex(bytes);
    wipe(bytes);
    if (checkAccessToken(token).ok) return token;
  }
}

/**
 * The login key `L = HKDF-SHA256(ikm = bytes(token), salt = "enclave/login/v1", info = "login")`
 * as 64 lowercase hex characters. Login sends `L`, never the token, so the server learns nothing
 * that opens the private key bundle (docs/security.md §2).
 *
 * @throws CryptoError('malformed') when the token fails {@link checkAccessToken}.
 * @example
 * ```ts
 * const loginKey = await deriveLoginKey(token);
 * await api.login({ loginKey });
 * ```
 */
export async function deriveLoginKey(token: string): Promise<string> {
  if (!checkAccessToken(token).ok) throw new CryptoError('malformed', 'not an access token');
  const ikm = fromHex(token);
  try {
    return await translateErrors('malformed', 'login key derivation failed', async () => {
      const base = await crypto.subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
      const bits = await crypto.subtle.deriveBits(
        { name: 'HKDF', hash: 'SHA-256', salt: utf8(LOGIN_SALT), info: utf8(LOGIN_INFO) },
        base,
        256,
      );
      return toHex(new Uint8Array(bits));
    });
  } finally {
    wipe(ikm);
  }
}
