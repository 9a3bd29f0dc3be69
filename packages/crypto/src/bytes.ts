/**
 * Byte helpers shared by the modules of this package. Internal: not re-exported from the index.
 * Every array is backed by a plain ArrayBuffer because that is what TypeScript's DOM typings of
 * `crypto.subtle` accept (`BufferSource`), and SharedArrayBuffer views are refused by browsers.
 */

/** `n` bytes from the platform CSPRNG. */
export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(new ArrayBuffer(n)));
}

/** The concatenation `parts[0] ‖ parts[1] ‖ …` in a fresh buffer. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * Overwrites secret bytes once they have been handed to a non-extractable CryptoKey. JavaScript
 * gives no guarantee that no other copy exists, but this removes the copy we own.
 */
export function wipe(...buffers: (Uint8Array | ArrayBuffer)[]): void {
  for (const b of buffers) (b instanceof Uint8Array ? b : new Uint8Array(b)).fill(0);
}
