import { describe, it, expect } from 'vitest';
import { fromBase64, fromHex, toBase64, toHex, utf8 } from './encoding';
import { CryptoError } from './errors';

function kindOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof CryptoError ? e.kind : 'not a CryptoError';
  }
  return undefined;
}

describe('base64', () => {
  it('matches RFC 4648 test vectors', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, encoded] of cases) {
      expect(toBase64(utf8(plain))).toBe(encoded);
      expect(fromBase64(encoded)).toEqual(utf8(plain));
    }
  });

  it('round-trips every byte value and inputs larger than one conversion slice', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
  });

  it('refuses whitespace, missing padding, URL-safe letters and non-canonical low bits', () => {
    for (const bad of ['Zm9v Yg==', 'Zm9vYg', 'Zm9v-_==', 'Zh==', 'Zm9vY===', '====', 'Zg==Zg==']) {
      expect(
        kindOf(() => fromBase64(bad)),
        bad,
      ).toBe('malformed');
    }
  });
});

describe('hex', () => {
  it('encodes lowercase and decodes either case', () => {
    expect(toHex(new Uint8Array([0, 1, 171, 255]))).toBe('0001abff');
    expect(fromHex('0001ABff')).toEqual(new Uint8Array([0, 1, 171, 255]));
  });

  it('refuses odd lengths and non-hex characters', () => {
    for (const bad of ['abc', '0g', ' 00', '0x00'])
      expect(
        kindOf(() => fromHex(bad)),
        bad,
      ).toBe('malformed');
  });
});

describe('utf8', () => {
  it('encodes multi-byte characters', () => {
    expect(toHex(utf8('é🔐'))).toBe('c3a9f09f9490');
  });
});
