import { describe, it, expect } from 'vitest';
import { fingerprint } from './fingerprint';
import { createAccount } from './account';
import { generateAccessToken } from './token';
import vectors from './vectors.json';

const FORMAT = /^(\d{5} ){11}\d{5}$/;

describe('fingerprint', () => {
  it('matches the node:crypto vector', async () => {
    const v = vectors.fingerprint;
    const fp = await fingerprint({ encryptionPublicKey: v.encryptionPublicKey, signingPublicKey: v.signingPublicKey });
    expect(fp).toBe(v.fingerprint);
    expect(fp).toMatch(FORMAT);
  });

  it('is 12 groups of 5 digits, stable for the same keys and different for others', async () => {
    const { publicIdentity } = await createAccount(generateAccessToken());
    const fp = await fingerprint(publicIdentity);
    expect(fp).toMatch(FORMAT);
    expect(await fingerprint({ ...publicIdentity })).toBe(fp);
    const other = { ...publicIdentity, signingPublicKey: vectors.fingerprint.signingPublicKey };
    expect(await fingerprint(other)).not.toBe(fp);
  });
});
