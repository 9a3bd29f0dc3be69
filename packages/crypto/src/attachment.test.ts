import { describe, expect, it } from 'vitest';
import { decryptAttachment, encryptAttachment, encryptAttachmentWith } from './attachment';
import { fromBase64, fromHex, toBase64, toHex } from './encoding';
import vectors from './vectors.json';

const v = vectors.attachment;

function flipBit(bytes: Uint8Array<ArrayBuffer>, at: number): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes);
  copy[at]! ^= 1;
  return copy;
}

describe('known answers (node:crypto vectors)', () => {
  it('encrypts and hashes as node:crypto does', async () => {
    const out = await encryptAttachmentWith({
      plaintext: fromHex(v.plaintextHex),
      key: fromBase64(v.keyBase64),
      iv: fromBase64(v.ivBase64),
    });
    expect(toBase64(out.ciphertext)).toBe(v.ciphertextBase64);
    expect(out.sha256).toBe(v.sha256Base64);
  });

  it('decrypts the node:crypto ciphertext', async () => {
    const plaintext = await decryptAttachment({
      ciphertext: fromBase64(v.ciphertextBase64),
      key: v.keyBase64,
      iv: v.ivBase64,
      sha256: v.sha256Base64,
    });
    expect(toHex(plaintext)).toBe(v.plaintextHex);
  });
});

describe('encryptAttachment and decryptAttachment', () => {
  const file = new TextEncoder().encode('a file with a marker 9d3c5a1e in it');

  it('round-trips, and the ciphertext is the plaintext plus a 16-byte tag, holding none of it', async () => {
    const out = await encryptAttachment(file);
    expect(out.ciphertext.length).toBe(file.length + 16);
    expect(Buffer.from(out.ciphertext).includes(Buffer.from('9d3c5a1e'))).toBe(false);
    expect(fromBase64(out.key)).toHaveLength(32);
    expect(fromBase64(out.iv)).toHaveLength(12);
    expect(await decryptAttachment(out)).toEqual(file);
  });

  it('uses a fresh key and IV for every file', async () => {
    const [a, b] = await Promise.all([encryptAttachment(file), encryptAttachment(file)]);
    expect(a.key).not.toBe(b.key);
    expect(a.iv).not.toBe(b.iv);
    expect(toBase64(a.ciphertext)).not.toBe(toBase64(b.ciphertext));
  });

  it('round-trips an empty file and exactly 10 MiB; refuses one byte more as too_long', async () => {
    for (const size of [0, 10 * 1024 * 1024]) {
      const bytes = new Uint8Array(size);
      expect((await decryptAttachment(await encryptAttachment(bytes))).length).toBe(size);
    }
    await expect(encryptAttachment(new Uint8Array(10 * 1024 * 1024 + 1))).rejects.toMatchObject({ kind: 'too_long' });
  });

  it('refuses a swapped or cut blob by its hash before decrypting (bad_signature)', async () => {
    const out = await encryptAttachment(file);
    await expect(decryptAttachment({ ...out, ciphertext: flipBit(out.ciphertext, 3) })).rejects.toMatchObject({ kind: 'bad_signature' });
    await expect(decryptAttachment({ ...out, ciphertext: out.ciphertext.slice(0, -1) })).rejects.toMatchObject({ kind: 'bad_signature' });
    const other = await encryptAttachment(file);
    await expect(decryptAttachment({ ...out, ciphertext: other.ciphertext })).rejects.toMatchObject({ kind: 'bad_signature' });
  });

  it('reports the wrong key or IV as decrypt_failed, and keys of the wrong size as malformed', async () => {
    const out = await encryptAttachment(file);
    const other = await encryptAttachment(file);
    await expect(decryptAttachment({ ...out, key: other.key })).rejects.toMatchObject({ kind: 'decrypt_failed' });
    await expect(decryptAttachment({ ...out, iv: other.iv })).rejects.toMatchObject({ kind: 'decrypt_failed' });
    await expect(decryptAttachment({ ...out, key: toBase64(new Uint8Array(16)) })).rejects.toMatchObject({ kind: 'malformed' });
    await expect(decryptAttachment({ ...out, sha256: toBase64(new Uint8Array(31)) })).rejects.toMatchObject({ kind: 'malformed' });
  });
});
