import { describe, expect, it } from 'vitest';
import { describeFile, isInlineImage, sizeRefusal } from './attachments';

describe('attachments in the browser', () => {
  it('refuses a file over 10 MB before encrypting it, with the server’s own text', () => {
    expect(sizeRefusal({ size: 10 * 1024 * 1024 })).toBeNull();
    expect(sizeRefusal({ size: 10 * 1024 * 1024 + 1 })).toBe('File exceeds the 10 MB limit');
  });

  it('shows png, jpeg, gif and webp inline, and never SVG or HTML', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) expect(isInlineImage(type)).toBe(true);
    for (const type of ['image/svg+xml', 'text/html', 'application/pdf', '']) expect(isInlineImage(type)).toBe(false);
  });

  it('keeps names and types within what a message carries', () => {
    expect(describeFile({ name: 'a\nb\u0000.png', type: 'image/png' })).toEqual({ name: 'ab.png', type: 'image/png' });
    expect(describeFile({ name: 'x'.repeat(300), type: '' })).toEqual({ name: 'x'.repeat(255), type: 'application/octet-stream' });
    expect(describeFile({ name: '', type: 'text/html; charset=utf-8' })).toEqual({ name: 'file', type: 'application/octet-stream' });
  });
});
