import { describe, it, expect } from 'vitest';
import { checkAccessToken, deriveLoginKey, generateAccessToken, shannonEntropy } from './token';
import vectors from './vectors.json';

describe('shannonEntropy', () => {
  it('is 0 for a repeated character and 4 for all sixteen hex digits once', () => {
    expect(shannonEntropy('0'.repeat(64))).toBe(0);
    expect(shannonEntropy('0123456789abcdef')).toBe(4);
    expect(shannonEntropy('')).toBe(0);
  });
});

describe('checkAccessToken', () => {
  const good = vectors.loginKey[0]!.token;

  it('accepts a 64-character lowercase hex token with enough entropy', () => {
    expect(checkAccessToken(good)).toEqual({ ok: true });
  });

  it('calls 63 characters too short', () => {
    expect(checkAccessToken(good.slice(0, 63))).toEqual({ ok: false, reason: 'too_short' });
    expect(checkAccessToken('')).toEqual({ ok: false, reason: 'too_short' });
  });

  it('fails integrity for 65 characters, uppercase, non-hex or low entropy', () => {
    for (const bad of [good + 'a', good.toUpperCase(), `${good.slice(0, 63)}g`, '0'.repeat(64), '01'.repeat(32)]) {
      expect(checkAccessToken(bad), bad).toEqual({ ok: false, reason: 'integrity' });
    }
  });
});

describe('generateAccessToken', () => {
  it('always produces distinct tokens that pass the check', () => {
    const tokens = Array.from({ length: 2000 }, generateAccessToken);
    for (const t of tokens) {
      expect(t).toMatch(/^[0-9a-f]{64}$/);
      expect(checkAccessToken(t)).toEqual({ ok: true });
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('deriveLoginKey', () => {
  it('matches the node:crypto HKDF vectors', async () => {
    for (const v of vectors.loginKey) expect(await deriveLoginKey(v.token)).toBe(v.loginKey);
  });

  it('refuses a token that fails the check', async () => {
    await expect(deriveLoginKey('0'.repeat(64))).rejects.toMatchObject({ kind: 'malformed' });
    await expect(deriveLoginKey(vectors.loginKey[0]!.token.toUpperCase())).rejects.toMatchObject({ kind: 'malformed' });
  });
});
