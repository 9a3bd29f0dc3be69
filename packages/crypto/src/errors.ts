/**
 * Why an operation of this package refused its input. The web app maps each kind to what the
 * member sees (a lock icon, a forged-message warning, "wrong access token"), so a kind never
 * carries secret material and never depends on the platform's error texts.
 */
export type CryptoErrorKind = 'malformed' | 'wrong_token' | 'bad_signature' | 'decrypt_failed' | 'wrong_recipient' | 'too_long';

/**
 * The only error this package throws on purpose. WebCrypto's own errors (`OperationError`,
 * `DataError`) differ between Chromium and Node, so every one of them is translated into a kind.
 *
 * @example
 * ```ts
 * try {
 *   await openPrivateKeys(token, bundle);
 * } catch (e) {
 *   if (e instanceof CryptoError && e.kind === 'wrong_token') showWrongToken();
 * }
 * ```
 */
export class CryptoError extends Error {
  /** What went wrong, stable across platforms. */
  readonly kind: CryptoErrorKind;

  /**
   * @param kind - what went wrong.
   * @param message - a developer-facing detail; never include secrets or plaintext.
   */
  constructor(kind: CryptoErrorKind, message?: string) {
    super(message ?? kind);
    this.name = 'CryptoError';
    this.kind = kind;
  }
}

/**
 * Runs `operation` and turns any platform error into `CryptoError(kind)`, letting our own
 * `CryptoError`s through so a more precise kind from deeper down is not overwritten.
 * Internal: not re-exported from the package index.
 */
export async function translateErrors<T>(kind: CryptoErrorKind, message: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (e) {
    if (e instanceof CryptoError) throw e;
    throw new CryptoError(kind, message);
  }
}
