import { describe, expect, it } from 'vitest';
import { decodeContent, encodeContent, messageEnvelopeSchema, type AttachmentRef } from './index';

const attachment: AttachmentRef = {
  id: '0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b',
  key: 'A'.repeat(43) + '=',
  iv: 'A'.repeat(16),
  sha256: 'B'.repeat(43) + '=',
  name: 'holiday "beach".png',
  type: 'image/png',
  size: 1234,
};

describe('message content', () => {
  it('keeps a text message as it always was: envelope v1, the text itself', () => {
    expect(encodeContent({ text: 'hi 👋' })).toEqual({ version: 1, plaintext: 'hi 👋' });
    expect(decodeContent({ version: 1, plaintext: 'hi 👋' })).toEqual({ text: 'hi 👋' });
  });

  it('round-trips an attachment with its caption, or with none, as a v2 body', () => {
    for (const text of ['look at this', '']) {
      const encoded = encodeContent({ text, attachment });
      expect(encoded.version).toBe(2);
      expect(decodeContent(encoded)).toEqual({ text, attachment });
    }
  });

  it('keeps the largest body the schema admits within the 8,192-byte limit', () => {
    // Characters JSON writes as \u00XX: six bytes each.
    const worst = encodeContent({
      text: '\u0001'.repeat(500),
      attachment: { ...attachment, name: '\u0001'.repeat(255), type: `a/${'b'.repeat(125)}` },
    });
    expect(new TextEncoder().encode(worst.plaintext).length).toBeLessThanOrEqual(8192);
  });

  it('refuses what a misbehaving sender could encrypt: not JSON, extra or missing fields, a long text', () => {
    const bad = [
      'not json',
      '{}',
      JSON.stringify({ v: 2, attachment, caption: 'x', extra: 1 }),
      JSON.stringify({ v: 2, attachment: { ...attachment, key: 'short' }, caption: '' }),
      JSON.stringify({ v: 2, attachment: { ...attachment, size: 10 * 1024 * 1024 + 1 }, caption: '' }),
      JSON.stringify({ v: 2, attachment: { ...attachment, type: 'text/html; charset=utf-8' }, caption: '' }),
      JSON.stringify({ v: 2, attachment, caption: 'x'.repeat(501) }),
    ];
    for (const plaintext of bad) expect(() => decodeContent({ version: 2, plaintext }), plaintext).toThrow();
    expect(() => decodeContent({ version: 1, plaintext: 'x'.repeat(501) })).toThrow();
  });
});

describe('messageEnvelopeSchema', () => {
  const iv = 'A'.repeat(16);
  const sig = `${'A'.repeat(84)}AA==`;
  const ctOf = (bytes: number) => Buffer.alloc(bytes).toString('base64');

  it('holds a text to 1,516 bytes of ciphertext and a body to 8,208', () => {
    expect(messageEnvelopeSchema.safeParse({ v: 1, iv, ct: ctOf(1516), sig }).success).toBe(true);
    expect(messageEnvelopeSchema.safeParse({ v: 1, iv, ct: ctOf(1517), sig }).success).toBe(false);
    expect(messageEnvelopeSchema.safeParse({ v: 2, iv, ct: ctOf(8208), sig }).success).toBe(true);
    expect(messageEnvelopeSchema.safeParse({ v: 2, iv, ct: ctOf(8209), sig }).success).toBe(false);
    expect(messageEnvelopeSchema.safeParse({ v: 3, iv, ct: ctOf(16), sig }).success).toBe(false);
  });
});
