import { describe, it, expect, beforeAll } from 'vitest';
import { createAccount } from './account';
import type { NewAccount } from './account';
import { importPublicIdentity } from './identity';
import { openPrivateKeys } from './key-bundle';
import { fromBase64, utf8 } from './encoding';
import { generateAccessToken } from './token';

const token = generateAccessToken();
let account: NewAccount;

beforeAll(async () => {
  account = await createAccount(token);
});

async function keysWork(priv: { decryptKey: CryptoKey; signKey: CryptoKey }): Promise<void> {
  const { encryptKey, verifyKey } = await importPublicIdentity(account.publicIdentity);
  const secret = utf8('thirty-two bytes of chain key...');
  const wrapped = await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, encryptKey, secret);
  expect(new Uint8Array(await crypto.subtle.decrypt({ name: 'RSA-OAEP' }, priv.decryptKey, wrapped))).toEqual(secret);
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, priv.signKey, secret);
  expect(sig.byteLength).toBe(64);
  expect(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, verifyKey, sig, secret)).toBe(true);
}

describe('createAccount', () => {
  it('produces RSA-2048 and P-256 SPKI public keys in base64', async () => {
    const { encryptKey, verifyKey } = await importPublicIdentity(account.publicIdentity);
    expect(encryptKey.algorithm).toMatchObject({ name: 'RSA-OAEP', modulusLength: 2048, hash: { name: 'SHA-256' } });
    expect([...(encryptKey.algorithm as RsaHashedKeyAlgorithm).publicExponent]).toEqual([1, 0, 1]);
    expect(verifyKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    // Sizes the protocol schema relies on.
    expect(account.publicIdentity.encryptionPublicKey).toHaveLength(392);
    expect(account.publicIdentity.signingPublicKey).toHaveLength(124);
  });

  it('returns working, non-extractable private keys', async () => {
    const { decryptKey, signKey } = account.privateIdentity;
    expect(decryptKey.extractable).toBe(false);
    expect(signKey.extractable).toBe(false);
    expect(decryptKey.usages).toEqual(['decrypt']);
    expect(signKey.usages).toEqual(['sign']);
    await keysWork(account.privateIdentity);
  });

  it('seals a bundle that opens with the token into the same, non-extractable keys', async () => {
    expect(fromBase64(account.encryptedPrivateKey).length).toBeGreaterThan(16 + 12 + 1300);
    const opened = await openPrivateKeys(token, account.encryptedPrivateKey);
    expect(opened.decryptKey.extractable).toBe(false);
    expect(opened.signKey.extractable).toBe(false);
    await keysWork(opened);
  });

  it('derives, from the opened bundle, exactly the public keys createAccount returned', async () => {
    const opened = await openPrivateKeys(token, account.encryptedPrivateKey);
    expect(opened.publicIdentity).toEqual(account.publicIdentity);
    expect(Object.keys(opened).sort()).toEqual(['decryptKey', 'publicIdentity', 'share', 'signKey']);
    expect(opened.share.sharePublicKey).toBe(account.share.sharePublicKey);
    expect(opened.share.privateKey.extractable).toBe(false);
    // Deriving the public half does not leave the private keys extractable.
    expect(opened.decryptKey.extractable).toBe(false);
    expect(opened.signKey.extractable).toBe(false);
    expect(opened.decryptKey.usages).toEqual(['decrypt']);
    expect(opened.signKey.usages).toEqual(['sign']);
    await expect(crypto.subtle.exportKey('pkcs8', opened.decryptKey)).rejects.toThrow();
    await expect(crypto.subtle.exportKey('jwk', opened.signKey)).rejects.toThrow();
  });

  it('derives a different public identity for a different account', async () => {
    const otherToken = generateAccessToken();
    const other = await createAccount(otherToken);
    const opened = await openPrivateKeys(otherToken, other.encryptedPrivateKey);
    expect(opened.publicIdentity).toEqual(other.publicIdentity);
    expect(opened.publicIdentity.encryptionPublicKey).not.toBe(account.publicIdentity.encryptionPublicKey);
    expect(opened.publicIdentity.signingPublicKey).not.toBe(account.publicIdentity.signingPublicKey);
  });

  it('does not open with another token', async () => {
    await expect(openPrivateKeys(generateAccessToken(), account.encryptedPrivateKey)).rejects.toMatchObject({
      kind: 'wrong_token',
    });
  });

  it('refuses a token that fails the check', async () => {
    await expect(createAccount('ab'.repeat(32))).rejects.toMatchObject({ kind: 'malformed' });
  });
});

describe('importPublicIdentity', () => {
  it('refuses keys that are not base64 SPKI of the right algorithm', async () => {
    const { encryptionPublicKey, signingPublicKey } = account.publicIdentity;
    const swapped = { encryptionPublicKey: signingPublicKey, signingPublicKey: encryptionPublicKey };
    await expect(importPublicIdentity(swapped)).rejects.toMatchObject({ kind: 'malformed' });
    await expect(importPublicIdentity({ encryptionPublicKey, signingPublicKey: 'AAAA' })).rejects.toMatchObject({
      kind: 'malformed',
    });
    await expect(importPublicIdentity({ encryptionPublicKey: '!', signingPublicKey })).rejects.toMatchObject({
      kind: 'malformed',
    });
  });
});
