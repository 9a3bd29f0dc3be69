import { describe, it, expect } from 'vitest';
import { fingerprint, safetyNumber } from './fingerprint';
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

describe('safetyNumber', () => {
  const v = vectors.safetyNumber;

  it('matches the node:crypto vector', async () => {
    const number = await safetyNumber(v.fingerprintA, v.fingerprintB);
    expect(number).toBe(v.safetyNumber);
    expect(number).toMatch(FORMAT);
  });

  it('is the same whichever member computes it', async () => {
    expect(await safetyNumber(v.fingerprintB, v.fingerprintA)).toBe(v.safetyNumber);
  });

  it("changes when either member's fingerprint changes", async () => {
    const other = vectors.fingerprint.fingerprint;
    const numbers = new Set([v.safetyNumber, await safetyNumber(other, v.fingerprintB), await safetyNumber(v.fingerprintA, other)]);
    expect(numbers.size).toBe(3);
  });

  it('is neither fingerprint', () => {
    expect([v.fingerprintA, v.fingerprintB]).not.toContain(v.safetyNumber);
  });
});
