import { describe, expect, it } from 'vitest';
import { createAccount } from './account';
import { toBase64 } from './encoding';
import { CryptoError } from './errors';
import { importPublicIdentity } from './identity';
import { createEpoch } from './sender-keys';
import { generateAccessToken } from './token';

/** SPKI (base64) of an RSA-OAEP key with a made-up modulus: public keys are not checked for primality. */
async function rsaSpki(bits: number, exponent: number[] = [1, 0, 1]): Promise<string> {
  const n = crypto.getRandomValues(new Uint8Array(bits / 8));
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  const url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'RSA', n: url(n), e: url(new Uint8Array(exponent)), ext: true },
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    true,
    ['encrypt'],
  );
  return toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', key)));
}

describe('encryption public keys', () => {
  it.each([
    ['RSA-4096', () => rsaSpki(4096)],
    ['RSA-1024', () => rsaSpki(1024)],
    ['RSA-2048 with e = 3', () => rsaSpki(2048, [3])],
  ])('refuses %s: shares are RSA-OAEP-2048 ciphertexts (docs/security.md §3)', async (_name, make) => {
    const account = await createAccount(generateAccessToken());
    const encryptionPublicKey = await make();
    await expect(importPublicIdentity({ ...account.publicIdentity, encryptionPublicKey })).rejects.toThrow(CryptoError);
    await expect(
      createEpoch({
        conversationId: 'general',
        senderId: '00000000-0000-4000-8000-00000000000a',
        membershipVersion: 1,
        recipients: [{ id: '00000000-0000-4000-8000-00000000000b', encryptionPublicKey }],
        signKey: account.privateIdentity.signKey,
      }),
    ).rejects.toMatchObject({ kind: 'malformed' });
  });

  it('accepts RSA-2048 with e = 65537, as accounts make them', async () => {
    const account = await createAccount(generateAccessToken());
    await expect(importPublicIdentity(account.publicIdentity)).resolves.toBeDefined();
    await expect(importPublicIdentity({ ...account.publicIdentity, encryptionPublicKey: await rsaSpki(2048) })).resolves.toBeDefined();
  });
});
