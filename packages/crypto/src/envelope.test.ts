import { describe, it, expect } from 'vitest';
import { parseEnvelope, serializeEnvelope } from './envelope';

const iv = new Uint8Array(12).fill(1);
const ct = new Uint8Array(20).fill(2);
const sig = new Uint8Array(64).fill(3);

describe('serializeEnvelope', () => {
  it('writes exactly v, iv, ct, sig in that order, with a 16-character iv', () => {
    for (const v of [1, 2] as const) {
      const json = serializeEnvelope({ v, iv, ct, sig });
      const parsed = JSON.parse(json) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['v', 'iv', 'ct', 'sig']);
      expect(parsed.v).toBe(v);
      expect(parsed.iv).toHaveLength(16);
      expect(parseEnvelope(json)).toEqual({ v, iv, ct, sig });
    }
  });
});

describe('parseEnvelope', () => {
  const good = JSON.parse(serializeEnvelope({ v: 1, iv, ct, sig })) as Record<string, unknown>;

  it('refuses anything but the exact shape as malformed', () => {
    const bad: unknown[] = [
      'not json',
      null,
      [],
      { ...good, v: 3 },
      { ...good, v: '1' },
      { ...good, extra: true },
      { v: good.v, iv: good.iv, ct: good.ct },
      { ...good, iv: 'AQEBAQEBAQEBAQE=' }, // 11 bytes
      { ...good, ct: 'AgICAgICAgICAgICAgIC' }, // 15 bytes: shorter than a GCM tag
      { ...good, sig: 'not base64' },
      { ...good, ct: 12 },
    ];
    for (const b of bad) {
      const text = typeof b === 'string' ? b : JSON.stringify(b);
      expect(() => parseEnvelope(text), text).toThrow(expect.objectContaining({ kind: 'malformed' }));
    }
  });

  it('accepts a ciphertext that is only a tag (the empty message)', () => {
    const text = JSON.stringify({ ...good, ct: 'AgICAgICAgICAgICAgICAg==' });
    expect(parseEnvelope(text).ct).toHaveLength(16);
  });
});
