import { describe, it, expect } from 'vitest';
import { openPrivateKeys, sealPrivateKeys } from './key-bundle';
import { fromBase64, fromHex, toBase64 } from './encoding';
import { CryptoError } from './errors';
import { generateAccessToken } from './token';
import vectors from './vectors.json';

const v = vectors.bundle;
const pkcs8 = { encryption: fromHex(v.encryptionPkcs8Hex), signing: fromHex(v.signingPkcs8Hex) };

describe('sealPrivateKeys', () => {
  it('matches the node:crypto PBKDF2 + AES-GCM vector', async () => {
    const sealed = await sealPrivateKeys(v.token, pkcs8, { salt: fromHex(v.saltHex), iv: fromHex(v.ivHex) });
    expect(sealed).toBe(v.encryptedPrivateKey);
  });

  it('uses a fresh salt and iv each time', async () => {
    const a = fromBase64(await sealPrivateKeys(v.token, pkcs8));
    const b = fromBase64(await sealPrivateKeys(v.token, pkcs8));
    expect(a.slice(0, 28)).not.toEqual(b.slice(0, 28));
  });

  it('refuses a pinned salt or iv of the wrong length', async () => {
    await expect(sealPrivateKeys(v.token, pkcs8, { salt: new Uint8Array(8), iv: fromHex(v.ivHex) })).rejects.toMatchObject({
      kind: 'malformed',
    });
  });
});

describe('openPrivateKeys', () => {
  it('decrypts the vector, then refuses its placeholder keys as malformed', async () => {
    // 'malformed' rather than 'wrong_token' shows AES-GCM accepted the token.
    await expect(openPrivateKeys(v.token, v.encryptedPrivateKey)).rejects.toMatchObject({ kind: 'malformed' });
  });

  it('reports a wrong token as wrong_token', async () => {
    const error: unknown = await openPrivateKeys(generateAccessToken(), v.encryptedPrivateKey).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CryptoError);
    expect(error).toMatchObject({ kind: 'wrong_token' });
    await expect(openPrivateKeys('', v.encryptedPrivateKey)).rejects.toMatchObject({ kind: 'wrong_token' });
  });

  it('reports a flipped ciphertext bit as wrong_token, since GCM cannot tell the two apart', async () => {
    const stored = fromBase64(v.encryptedPrivateKey);
    stored[40]! ^= 1;
    await expect(openPrivateKeys(v.token, toBase64(stored))).rejects.toMatchObject({ kind: 'wrong_token' });
  });

  it('reports bad base64, a truncated bundle and non-JSON contents as malformed', async () => {
    await expect(openPrivateKeys(v.token, 'not base64!')).rejects.toMatchObject({ kind: 'malformed' });
    await expect(openPrivateKeys(v.token, toBase64(new Uint8Array(43)))).rejects.toMatchObject({ kind: 'malformed' });

    // A correctly sealed bundle whose plaintext is not our JSON, built with WebCrypto directly.
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const password = await crypto.subtle.importKey('raw', new TextEncoder().encode(v.token), 'PBKDF2', false, ['deriveKey']);
    const key = await crypto.subtle.deriveKey(
      { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 100_000 },
      password,
      { name: 'AES-GCM', length: 256 },
      false,
      ['encrypt'],
    );
    for (const contents of ['not json', '{"v":2,"encryption":"","signing":""}', '{"v":1,"encryption":"@@@@","signing":""}']) {
      const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(contents)));
      const stored = new Uint8Array([...salt, ...iv, ...ct]);
      await expect(openPrivateKeys(v.token, toBase64(stored)), contents).rejects.toMatchObject({ kind: 'malformed' });
    }
  });
});
