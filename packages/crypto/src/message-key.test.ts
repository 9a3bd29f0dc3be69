import { describe, it, expect } from 'vitest';
import { checkMessageIndex, deriveMessageKeyBits } from './message-key';
import { fromHex, toHex } from './encoding';
import vectors from './vectors.json';

const v = vectors.message;

describe('deriveMessageKeyBits', () => {
  it('matches the node:crypto HKDF vectors for indexes 0 and 7', async () => {
    expect(v.cases.map((c) => c.index)).toEqual([0, 7]);
    for (const c of v.cases) {
      expect(toHex(await deriveMessageKeyBits(fromHex(v.chainKeyHex), c.index))).toBe(c.messageKeyHex);
    }
  });

  it('gives a different key for every index', async () => {
    const keys = await Promise.all(Array.from({ length: 100 }, (_, i) => deriveMessageKeyBits(fromHex(v.chainKeyHex), i).then(toHex)));
    expect(new Set(keys).size).toBe(100);
  });
});

describe('checkMessageIndex', () => {
  it('accepts 0..99 and refuses everything else as malformed', () => {
    expect(() => checkMessageIndex(0)).not.toThrow();
    expect(() => checkMessageIndex(99)).not.toThrow();
    for (const bad of [-1, 100, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => checkMessageIndex(bad), String(bad)).toThrow(expect.objectContaining({ kind: 'malformed' }));
    }
  });
});
